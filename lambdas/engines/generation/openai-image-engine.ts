/**
 * `openai`: images from an OpenAI-compatible images server (hosted OpenAI with `gpt-image-1`, or what
 * self-hosters run: LocalAI, a Stable Diffusion server behind an OpenAI-style API). Settings
 * `MEDIA_GENERATION_BASE_URL`, `MEDIA_GENERATION_MODEL` (default `gpt-image-1`), `MEDIA_GENERATION_API_KEY`
 * or `_API_KEY_SECRET`, `MEDIA_GENERATION_HTTP_TIMEOUT_MS`, through the shared client (outbound guard,
 * retries, failure mapping: openai-compatible-client.ts).
 *
 * - Text to image: `POST <base>/images/generations` JSON `{model, prompt, n, size: "<w>x<h>"}`.
 * - From pictures (an identity remix): `POST <base>/images/edits` multipart: `model`, `prompt`, `n`,
 *   `size`, and each picture as an `image[]` PNG file (the reference first).
 *
 * The answer's `data[].b64_json` are the images; a server that answers only `url`s is refused with a
 * message (this service does not fetch from a model server's URLs). The images' real sizes are read
 * from the PNGs: servers round sizes to what their model makes. OpenAI's API takes no seed: the seed is
 * not sent, and a seed does not repeat an image here. Videos: none (`engine_unavailable`).
 */
import type { ModelServerConfig } from '../../core/config.js';
import {
  type ModelServerFailure,
  modelServerClient,
  type OpenAiCompatibleClient,
} from '../openai-compatible/index.js';
import {
  type ImageGenerationRequest,
  type ImageGenerationResult,
  type MediaGenerationEngine,
  MediaGenerationError,
  type MediaGenerationFailureCode,
  validateImageRequest,
} from './generation-engine.js';

export const OPENAI_GENERATION_ENGINE = 'openai';

const FAILURE_CODES: Readonly<Record<ModelServerFailure, MediaGenerationFailureCode>> = {
  unavailable: 'engine_unavailable',
  invalid_input: 'invalid_input',
  failed: 'media_generation_failed',
};

/** A PNG's size from its IHDR chunk, or undefined when the bytes are not a PNG. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length < 24 || signature.some((byte, index) => bytes[index] !== byte)) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

class OpenAiImageEngine implements MediaGenerationEngine {
  readonly name = OPENAI_GENERATION_ENGINE;
  private readonly client: OpenAiCompatibleClient;

  constructor(server: ModelServerConfig) {
    this.client = modelServerClient(server, {
      capability: 'Image generation',
      prefix: 'MEDIA_GENERATION',
      failure: (kind, message, cause) => new MediaGenerationError(FAILURE_CODES[kind], message, { cause }),
    });
  }

  async generateImage(request: ImageGenerationRequest): Promise<ImageGenerationResult> {
    const image = validateImageRequest(request);
    const size = `${image.width}x${image.height}`;
    let answer: unknown;
    if (image.conditioning.length === 0) {
      answer = await this.client.postJson('/images/generations', {
        model: this.client.model,
        prompt: image.prompt,
        n: image.count,
        size,
      });
    } else {
      const form = new FormData();
      form.set('model', this.client.model);
      form.set('prompt', image.prompt);
      form.set('n', String(image.count));
      form.set('size', size);
      const { default: sharp } = await import('sharp');
      for (const [index, picture] of image.conditioning.entries()) {
        const png = await sharp(picture.bytes)
          .rotate()
          .png()
          .toBuffer()
          .catch((error: unknown) => {
            throw new MediaGenerationError(
              'invalid_input',
              'A picture to make the image from cannot be decoded',
              {
                cause: error,
              },
            );
          });
        form.append(
          'image[]',
          new Blob([new Uint8Array(png)], { type: 'image/png' }),
          `picture-${index}.png`,
        );
      }
      answer = await this.client.postMultipart('/images/edits', form);
    }
    const data = (answer as { data?: { b64_json?: unknown; url?: unknown }[] } | null)?.data ?? [];
    const images: Uint8Array[] = [];
    for (const item of data) {
      if (typeof item?.b64_json === 'string')
        images.push(new Uint8Array(Buffer.from(item.b64_json, 'base64')));
    }
    if (images.length === 0) {
      throw new MediaGenerationError(
        'media_generation_failed',
        data.some((item) => typeof item?.url === 'string')
          ? 'The images server answered with URLs only; configure it to answer b64_json (this service does not fetch from model servers)'
          : 'The images server answered without an image',
      );
    }
    const sizes = images.map(pngSize);
    const first = sizes[0];
    if (
      !first ||
      sizes.some((found) => !found || found.width !== first.width || found.height !== first.height)
    ) {
      throw new MediaGenerationError(
        'media_generation_failed',
        'The images server answered with something other than PNGs of one size',
      );
    }
    return {
      engine: this.name,
      model: this.client.model,
      images,
      mediaType: 'image/png',
      width: first.width,
      height: first.height,
    };
  }

  async generateVideo(): Promise<never> {
    throw new MediaGenerationError(
      'engine_unavailable',
      'The OpenAI-compatible images engine (MEDIA_GENERATION_ENGINE=openai) makes images only; model videos need MEDIA_GENERATION_ENGINE=bedrock (Nova Reel). Nothing was charged.',
    );
  }
}

/** An engine of the configured OpenAI-compatible images server. */
export function createOpenAiImageEngine(server: ModelServerConfig): MediaGenerationEngine {
  return new OpenAiImageEngine(server);
}
