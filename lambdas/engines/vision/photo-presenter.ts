/**
 * A talking presenter from a photo of a real person (an `image` presenter): the photo upright, and
 * the same sprites a stock presenter has (`lambdas/catalog/sprite-art.ts`): one small transparent PNG
 * per viseme and one for a blink, each with the pixel box it goes to on the photo. The composition
 * engine pastes, per frame, the current viseme's sprite (and the blink's during blinks) on the still.
 *
 * The face is found with landmarks (`face-landmarks.ts`) and the photo's own mouth and eyes are warped
 * (`feature-warps.ts`); a photo that cannot be animated well (no face, several, too small, cut off)
 * stays a still, with a message saying what photo would work.
 */
import sharp from 'sharp';
import { VISEMES, type Viseme } from '../speech/visemes.js';
import { type FaceLandmarks, findFaces, type PixelBox, type Point } from './face-landmarks.js';
import {
  areaBox,
  areaWeight,
  eyeArea,
  eyeGeometry,
  type FeatureArea,
  MOUTH_SHAPES,
  type MouthGeometry,
  mouthArea,
  mouthGeometry,
  type RgbaImage,
  renderBlinkSprite,
  renderMouthSprite,
  toLocal,
} from './feature-warps.js';
import { type RawImage, VISION_FAILURE, VisionEngineError } from './human-runtime.js';

export interface PresenterSprite {
  /** RGBA PNG of `box.width` × `box.height`, transparent wherever the photo is unchanged. */
  png: Uint8Array;
  /** Where the PNG goes on the upright photo, in its pixels. */
  box: PixelBox;
}

export type PresenterSpriteName = Viseme | 'blink';

/** Why a photo stays a still presenter. */
export const STILL_REASONS = {
  noFace: 'no_face',
  severalFaces: 'several_faces',
  faceTooSmall: 'face_too_small',
  faceCutOff: 'face_cut_off',
} as const;
export type StillReason = (typeof STILL_REASONS)[keyof typeof STILL_REASONS];

export type PhotoPresenterResult =
  | {
      kind: 'animated';
      /** The photo upright (its EXIF orientation applied), PNG. */
      image: Uint8Array;
      width: number;
      height: number;
      sprites: Record<PresenterSpriteName, PresenterSprite>;
      face: { box: PixelBox; score: number };
    }
  | { kind: 'still'; reason: StillReason; message: string };

/** Faces at least this confident count: two of them make a group photo. */
export const FACE_MIN_SCORE = 0.5;
/** The face must be at least this wide, in pixels and as a share of the photo's shorter side. */
export const FACE_MIN_WIDTH_PIXELS = 64;
export const FACE_MIN_WIDTH_SHARE = 0.08;

/**
 * Decodes a picture upright (its EXIF orientation applied) as raw RGB or RGBA, or fails with
 * `invalid_media` saying what `what` could not be read.
 */
export async function decodeUpright<Channels extends 3 | 4>(
  picture: Uint8Array,
  channels: Channels,
  what = 'The photo',
): Promise<RawImage & { channels: Channels }> {
  try {
    const upright = sharp(picture).rotate();
    const { data, info } = await (channels === 4 ? upright.ensureAlpha() : upright.removeAlpha())
      .raw()
      .toBuffer({ resolveWithObject: true });
    return {
      data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      width: info.width,
      height: info.height,
      channels,
    };
  } catch (error) {
    throw new VisionEngineError(
      VISION_FAILURE.invalidMedia,
      `${what} cannot be read as an image: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** Why this face cannot be animated, if it cannot. */
export function stillReason(
  faces: readonly FaceLandmarks[],
  width: number,
  height: number,
): { reason: StillReason; message: string } | undefined {
  const confident = faces.filter((face) => face.score >= FACE_MIN_SCORE);
  const minimumWidth = Math.max(FACE_MIN_WIDTH_PIXELS, FACE_MIN_WIDTH_SHARE * Math.min(width, height));
  const face = confident[0];
  if (!face) {
    return {
      reason: STILL_REASONS.noFace,
      message: `No face was found in the photo: use a photo of one person facing the camera, the face at least ${FACE_MIN_WIDTH_PIXELS} px wide.`,
    };
  }
  if (confident.length > 1) {
    return {
      reason: STILL_REASONS.severalFaces,
      message: `The photo shows ${confident.length} faces: use a photo with one face, at least ${FACE_MIN_WIDTH_PIXELS} px wide, or crop it to the presenter.`,
    };
  }
  if (face.box.width < minimumWidth) {
    return {
      reason: STILL_REASONS.faceTooSmall,
      message: `The face is ${Math.round(face.box.width)} px wide in a ${width}×${height} photo: use a photo where the face is at least ${Math.ceil(minimumWidth)} px wide (crop closer to the presenter).`,
    };
  }
  const inside = (point: Point) => point.x >= 0 && point.y >= 0 && point.x <= width && point.y <= height;
  const features = [
    ...face.lips.upperOuter,
    ...face.lips.lowerOuter,
    ...face.rightEye.upper,
    ...face.rightEye.lower,
    ...face.leftEye.upper,
    ...face.leftEye.lower,
  ];
  if (!features.every(inside)) {
    return {
      reason: STILL_REASONS.faceCutOff,
      message:
        'The mouth or the eyes are outside the photo: use a photo showing the whole face, chin included.',
    };
  }
  return undefined;
}

async function spritePng(rgba: Uint8Array, box: PixelBox): Promise<Uint8Array> {
  const png = await sharp(rgba, { raw: { width: box.width, height: box.height, channels: 4 } })
    .png({ compressionLevel: 6 })
    .toBuffer();
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
}

/** The smallest box holding every pixel with alpha above 0, of sprites that share `box`. */
function trimmedBox(sprites: readonly Uint8Array[], box: PixelBox): PixelBox {
  let left = box.width;
  let top = box.height;
  let right = -1;
  let bottom = -1;
  for (const sprite of sprites) {
    for (let row = 0; row < box.height; row++) {
      for (let column = 0; column < box.width; column++) {
        if ((sprite[(row * box.width + column) * 4 + 3] as number) === 0) continue;
        left = Math.min(left, column);
        right = Math.max(right, column);
        top = Math.min(top, row);
        bottom = Math.max(bottom, row);
      }
    }
  }
  if (right < 0) return { x: box.x, y: box.y, width: 1, height: 1 };
  return { x: box.x + left, y: box.y + top, width: right - left + 1, height: bottom - top + 1 };
}

function crop(rgba: Uint8Array, from: PixelBox, to: PixelBox): Uint8Array {
  const out = new Uint8Array(to.width * to.height * 4);
  for (let row = 0; row < to.height; row++) {
    const start = ((to.y - from.y + row) * from.width + (to.x - from.x)) * 4;
    out.set(rgba.subarray(start, start + to.width * 4), row * to.width * 4);
  }
  return out;
}

/**
 * Where a recorded mouth moves, in the mouth's axes: the lips from a tenth of the mouth's width above
 * the upper lip to `FOOTAGE_MOUTH_DROP` of it below the lower lip (an open jaw), a little wider than
 * the corners. Footage's `rest` sprite covers it opaquely.
 */
export const FOOTAGE_MOUTH_DROP = 0.45;

function footageMouthArea(face: FaceLandmarks, mouth: MouthGeometry): FeatureArea {
  const local = [...face.lips.upperOuter, ...face.lips.lowerOuter].map((point) =>
    toLocal(mouth.frame, point),
  );
  const top = Math.min(...local.map((point) => point.t)) - 0.1 * mouth.width;
  const bottom = Math.max(...local.map((point) => point.t)) + FOOTAGE_MOUTH_DROP * mouth.width;
  const middle = (mouth.innerStart + mouth.innerEnd) / 2;
  return {
    frame: mouth.frame,
    centre: { s: middle, t: (top + bottom) / 2 },
    halfAcross: 0.65 * mouth.width,
    halfDown: (bottom - top) / 2,
  };
}

/**
 * `rest`: the photo itself wherever any other mouth sprite shows something, so it covers them all;
 * with `cover`, also opaquely over that area (footage, whose own mouth moves under it).
 */
function restSprite(
  photo: RgbaImage,
  others: readonly Uint8Array[],
  box: PixelBox,
  cover?: FeatureArea,
): Uint8Array {
  const out = new Uint8Array(box.width * box.height * 4);
  for (let row = 0; row < box.height; row++) {
    for (let column = 0; column < box.width; column++) {
      const at = (row * box.width + column) * 4;
      let alpha = cover
        ? Math.round(
            255 * areaWeight(cover, toLocal(cover.frame, { x: box.x + column + 0.5, y: box.y + row + 0.5 })),
          )
        : 0;
      for (const other of others) alpha = Math.max(alpha, other[at + 3] as number);
      if (alpha === 0) continue;
      const from = ((box.y + row) * photo.width + box.x + column) * 4;
      out[at] = photo.data[from] as number;
      out[at + 1] = photo.data[from + 1] as number;
      out[at + 2] = photo.data[from + 2] as number;
      out[at + 3] = alpha;
    }
  }
  return out;
}

export interface PresenterSpriteOptions {
  /**
   * Make `rest` cover the whole mouth opaquely (`footageMouthArea`), not only where the other mouths
   * change the picture: for footage, whose recorded mouth moves under it. @default false
   */
  coverMouth?: boolean;
}

/** The photo's mouth and blink sprites for one face (raw RGBA, before encoding). */
export function presenterSprites(
  photo: RgbaImage,
  face: FaceLandmarks,
  options: PresenterSpriteOptions = {},
): Record<PresenterSpriteName, { rgba: Uint8Array; box: PixelBox }> {
  const mouth = mouthGeometry(face, photo);
  const area = mouthArea(mouth);
  const cover = options.coverMouth ? footageMouthArea(face, mouth) : undefined;
  const mouthBox = areaBox(cover ? [area, cover] : [area], photo.width, photo.height);
  const shaped = Object.entries(MOUTH_SHAPES).map(
    ([viseme, shape]) => [viseme, renderMouthSprite(photo, mouth, area, shape, mouthBox)] as const,
  );
  const rest = restSprite(
    photo,
    shaped.map(([, rgba]) => rgba),
    mouthBox,
    cover,
  );
  const mouthSprites = [...shaped, [VISEMES.rest, rest] as const];
  const usedMouth = trimmedBox(
    mouthSprites.map(([, rgba]) => rgba),
    mouthBox,
  );

  const mouthCentre = face.lips.upperOuter[5] as Point;
  const eyes = [face.rightEye, face.leftEye].map((eye) => {
    const geometry = eyeGeometry(eye, mouthCentre, photo);
    return { geometry, area: eyeArea(geometry) };
  });
  const eyesBox = areaBox(
    eyes.map((eye) => eye.area),
    photo.width,
    photo.height,
  );
  const blink = renderBlinkSprite(photo, eyes, eyesBox);
  const usedEyes = trimmedBox([blink], eyesBox);

  const sprites = Object.fromEntries(
    mouthSprites.map(([viseme, rgba]) => [viseme, { rgba: crop(rgba, mouthBox, usedMouth), box: usedMouth }]),
  ) as Record<Viseme, { rgba: Uint8Array; box: PixelBox }>;
  return { ...sprites, blink: { rgba: crop(blink, eyesBox, usedEyes), box: usedEyes } };
}

/**
 * Finds the one face in a photo and makes its sprites; a photo that cannot be animated well comes
 * back as a still with the reason and what to do. Throws `VisionEngineError` (`invalid_media`) when
 * the bytes are not a picture, (`engine_unavailable`) when the models cannot run.
 */
export async function preparePhotoPresenter(photo: Uint8Array): Promise<PhotoPresenterResult> {
  const upright: RgbaImage = await decodeUpright(photo, 4);
  const faces = await findFaces(upright);
  const still = stillReason(faces, upright.width, upright.height);
  if (still) return { kind: 'still', ...still };
  const face = faces[0] as FaceLandmarks;
  const [image, sprites] = await Promise.all([
    sharp(upright.data, { raw: { width: upright.width, height: upright.height, channels: 4 } })
      .png({ compressionLevel: 6 })
      .toBuffer(),
    encodedPresenterSprites(upright, face),
  ]);
  return {
    kind: 'animated',
    image: new Uint8Array(image.buffer, image.byteOffset, image.byteLength),
    width: upright.width,
    height: upright.height,
    sprites,
    face: { box: face.box, score: face.score },
  };
}

/**
 * The sprites of one face as PNGs with their boxes (`presenterSprites`, encoded): what photo
 * presenters and twin footage (`twin-footage.ts`, on the footage's reference frame) both hand to the
 * composition engine. `rest` is the picture's own mouth over the area every other mouth changes.
 */
export async function encodedPresenterSprites(
  picture: RgbaImage,
  face: FaceLandmarks,
  options: PresenterSpriteOptions = {},
): Promise<Record<PresenterSpriteName, PresenterSprite>> {
  const sprites = presenterSprites(picture, face, options);
  const encoded = await Promise.all(
    Object.entries(sprites).map(async ([name, sprite]) => {
      const png = await spritePng(sprite.rgba, sprite.box);
      return [name, { png, box: sprite.box }] as const;
    }),
  );
  return Object.fromEntries(encoded) as Record<PresenterSpriteName, PresenterSprite>;
}
