/**
 * `composite`: an identity remix made without a generative model, from the vision engines this service
 * ships (`MEDIA_GENERATION_ENGINE=composite`; local and in the media image, nothing to download). It
 * composes, it does not generate, and says so in its name. For an image from pictures (the scene first,
 * then the person):
 *
 * 1. The scene is turned upright and scaled to cover the canvas asked for, centred, cropped.
 * 2. The person is cut from the first identity picture by person segmentation (MediaPipe selfie,
 *    `cutOutPerson`), with its alpha as the matte.
 * 3. Scale and place: the face of the person and the face of the scene (face landmarks, the most
 *    confident face) are matched: the cut-out is scaled so that its face is as wide as the scene's, and
 *    moved so that the two faces' centres coincide.
 * 4. Light: each colour channel of the cut-out is moved linearly so that its face's mean and spread match
 *    the scene face's (a per-channel transfer, the gain kept within 0.5 to 2).
 * 5. The cut-out is laid over the scene with its matte.
 *
 * What it does not do: the scene's own person is not removed (where the new person does not cover them,
 * they still show), clothing and pose are the identity picture's, not the scene's, and there is no
 * randomness (every image of a request is the same; the seed changes nothing). A scene without a face,
 * or a person picture without one, is `invalid_input`. Text to image and videos: `engine_unavailable`.
 */

import { findFaces, type PixelBox } from '../vision/face-landmarks.js';
import type { RawImage } from '../vision/human-runtime.js';
import { cutOutPerson } from '../vision/segmentation.js';
import {
  type ImageGenerationRequest,
  type ImageGenerationResult,
  type MediaGenerationEngine,
  MediaGenerationError,
  validateImageRequest,
} from './generation-engine.js';

export const COMPOSITE_GENERATION_ENGINE = 'composite';
export const COMPOSITE_MODEL = 'segmentation-composite';

/** Bounds of the per-channel gain of the light match: a face in deep shadow is not blown out. */
const GAIN_RANGE = [0.5, 2] as const;

interface ChannelStats {
  mean: [number, number, number];
  spread: [number, number, number];
}

/** Mean and standard deviation of each channel inside `box` (clipped to the picture). */
function statsIn(image: RawImage, box: PixelBox): ChannelStats {
  const left = Math.max(0, Math.floor(box.x));
  const top = Math.max(0, Math.floor(box.y));
  const right = Math.min(image.width, Math.ceil(box.x + box.width));
  const bottom = Math.min(image.height, Math.ceil(box.y + box.height));
  const sums = [0, 0, 0];
  const squares = [0, 0, 0];
  let count = 0;
  for (let y = top; y < bottom; y += 1) {
    for (let x = left; x < right; x += 1) {
      const at = (y * image.width + x) * image.channels;
      for (let channel = 0; channel < 3; channel += 1) {
        const value = image.data[at + channel] as number;
        sums[channel] = (sums[channel] as number) + value;
        squares[channel] = (squares[channel] as number) + value * value;
      }
      count += 1;
    }
  }
  const mean = sums.map((sum) => sum / Math.max(1, count)) as ChannelStats['mean'];
  const spread = squares.map((square, channel) =>
    Math.sqrt(Math.max(0, square / Math.max(1, count) - (mean[channel] as number) ** 2)),
  ) as ChannelStats['spread'];
  return { mean, spread };
}

/** The per-channel `a·v + b` that moves `from`'s face colours onto `to`'s. */
export function lightTransfer(from: ChannelStats, to: ChannelStats): { a: number[]; b: number[] } {
  const a = [0, 1, 2].map((channel) => {
    const gain = (to.spread[channel] as number) / Math.max(1, from.spread[channel] as number);
    return Math.min(GAIN_RANGE[1], Math.max(GAIN_RANGE[0], gain));
  });
  const b = [0, 1, 2].map(
    (channel) => (to.mean[channel] as number) - (a[channel] as number) * (from.mean[channel] as number),
  );
  return { a, b };
}

async function rgbOf(
  bytes: Uint8Array,
  what: string,
  size?: { width: number; height: number },
): Promise<RawImage> {
  const { default: sharp } = await import('sharp');
  try {
    let picture = sharp(bytes).rotate();
    if (size) picture = picture.resize(size.width, size.height, { fit: 'cover' });
    const { data, info } = await picture.removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return {
      data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      width: info.width,
      height: info.height,
      channels: 3,
    };
  } catch (error) {
    throw new MediaGenerationError('invalid_input', `${what} cannot be decoded`, { cause: error });
  }
}

async function faceOf(image: RawImage, what: string): Promise<PixelBox> {
  const [face] = await findFaces(image);
  if (!face)
    throw new MediaGenerationError(
      'invalid_input',
      `No face was found in ${what}: the composite places the person by their faces`,
    );
  return face.box;
}

/**
 * The scene's face in canvas pixels. Looked for in the scene as given first (face detection is sensitive
 * to scale: a small face found there may be missed once the scene is scaled), its box carried through
 * the cover-and-crop onto the canvas; then on the canvas itself.
 */
async function sceneFaceOnCanvas(bytes: Uint8Array, canvas: RawImage): Promise<PixelBox> {
  const original = await rgbOf(bytes, 'The scene picture');
  const [face] = await findFaces(original);
  if (!face) return faceOf(canvas, 'the scene picture');
  const scale = Math.max(canvas.width / original.width, canvas.height / original.height);
  const offsetX = (original.width * scale - canvas.width) / 2;
  const offsetY = (original.height * scale - canvas.height) / 2;
  return {
    x: face.box.x * scale - offsetX,
    y: face.box.y * scale - offsetY,
    width: face.box.width * scale,
    height: face.box.height * scale,
  };
}

class CompositeRemixEngine implements MediaGenerationEngine {
  readonly name = COMPOSITE_GENERATION_ENGINE;

  async generateImage(request: ImageGenerationRequest): Promise<ImageGenerationResult> {
    const image = validateImageRequest(request);
    const [scenePicture, personPicture] = image.conditioning;
    if (!scenePicture || !personPicture) {
      throw new MediaGenerationError(
        'engine_unavailable',
        'The composite engine (MEDIA_GENERATION_ENGINE=composite) composes a person into a scene and generates nothing from text; text to image needs MEDIA_GENERATION_ENGINE=bedrock or openai. Nothing was charged.',
      );
    }
    const { default: sharp } = await import('sharp');
    const canvas = { width: image.width, height: image.height };
    const scene = await rgbOf(scenePicture.bytes, 'The scene picture', canvas);
    const sceneFace = await sceneFaceOnCanvas(scenePicture.bytes, scene);
    const cut = await cutOutPerson(personPicture.bytes).catch((error: unknown) => {
      throw new MediaGenerationError('invalid_input', 'The person picture cannot be read', { cause: error });
    });
    const person = await rgbOf(personPicture.bytes, 'The person picture');
    const personFace = await faceOf(person, 'the person picture');

    const scale = sceneFace.width / personFace.width;
    const width = Math.max(1, Math.round(cut.width * scale));
    const height = Math.max(1, Math.round(cut.height * scale));
    const left = Math.round(
      sceneFace.x + sceneFace.width / 2 - (personFace.x + personFace.width / 2) * scale,
    );
    const top = Math.round(
      sceneFace.y + sceneFace.height / 2 - (personFace.y + personFace.height / 2) * scale,
    );
    const { a, b } = lightTransfer(statsIn(person, personFace), statsIn(scene, sceneFace));
    // The light match changes the colours only: the matte (alpha) is kept as segmented.
    const matched = await sharp(cut.png)
      .resize(width, height)
      .linear([...a, 1], [...b, 0])
      .png()
      .toBuffer();
    // The part of the placed cut-out inside the canvas (sharp composites only within the base picture).
    const visible = {
      left: Math.max(0, -left),
      top: Math.max(0, -top),
      right: Math.min(width, canvas.width - left),
      bottom: Math.min(height, canvas.height - top),
    };
    const layers =
      visible.right > visible.left && visible.bottom > visible.top
        ? [
            {
              input: await sharp(matched)
                .extract({
                  left: visible.left,
                  top: visible.top,
                  width: visible.right - visible.left,
                  height: visible.bottom - visible.top,
                })
                .toBuffer(),
              left: Math.max(0, left),
              top: Math.max(0, top),
            },
          ]
        : [];
    const png = await sharp(scene.data, { raw: { width: scene.width, height: scene.height, channels: 3 } })
      .composite(layers)
      .png()
      .toBuffer();
    return {
      engine: this.name,
      model: COMPOSITE_MODEL,
      images: Array.from({ length: image.count }, () => new Uint8Array(png)),
      mediaType: 'image/png',
      width: scene.width,
      height: scene.height,
    };
  }

  async generateVideo(): Promise<never> {
    throw new MediaGenerationError(
      'engine_unavailable',
      'The composite engine (MEDIA_GENERATION_ENGINE=composite) composes images only; model videos need MEDIA_GENERATION_ENGINE=bedrock (Nova Reel). Nothing was charged.',
    );
  }
}

export function createCompositeRemixEngine(): MediaGenerationEngine {
  return new CompositeRemixEngine();
}
