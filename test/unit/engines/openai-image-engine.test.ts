/**
 * The OpenAI-compatible images engine against a model server on loopback: text to image as
 * `POST /images/generations` JSON, an image from pictures as `POST /images/edits` multipart with each
 * picture an `image[]` PNG; the PNGs' real sizes reported; a server that answers URLs, a refused key
 * and videos said clearly.
 */
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetModelEnginesConfig } from '../../../lambdas/core/config.js';
import {
  createGenerationEngine,
  imageGenerationConfigured,
  videoGenerationConfigured,
} from '../../../lambdas/engines/generation/index.js';
import { resetApiKeys } from '../../../lambdas/engines/openai-compatible/api-keys.js';
import { type ModelServer, type ModelServerAnswer, startModelServer } from '../../support/model-server.js';

let server: ModelServer | undefined;
let pngBase64: string;

async function serve(answer: (path: string) => ModelServerAnswer): Promise<ModelServer> {
  server = await startModelServer((request) => answer(request.path));
  vi.stubEnv('MEDIA_GENERATION_ENGINE', 'openai');
  vi.stubEnv('MEDIA_GENERATION_BASE_URL', server.baseUrl);
  vi.stubEnv('MEDIA_GENERATION_MODEL', 'gpt-image-1');
  vi.stubEnv('MEDIA_GENERATION_API_KEY', 'sk-test');
  vi.stubEnv('MEDIA_GENERATION_HTTP_TIMEOUT_MS', '2000');
  resetModelEnginesConfig();
  return server;
}

beforeEach(async () => {
  vi.stubEnv('MODEL_HOSTS_ALLOW_PRIVATE', 'true');
  vi.stubEnv('MODEL_HTTP_RETRIES', '0');
  resetModelEnginesConfig();
  pngBase64 = (
    await sharp({ create: { width: 1024, height: 1536, channels: 3, background: '#336699' } })
      .png()
      .toBuffer()
  ).toString('base64');
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.unstubAllEnvs();
  resetModelEnginesConfig();
  resetApiKeys();
});

describe('the OpenAI-compatible images engine', () => {
  it('makes text to image with /images/generations and reports the PNG size the server made', async () => {
    const models = await serve(() => ({ json: { data: [{ b64_json: pngBase64 }] } }));
    expect(imageGenerationConfigured()).toBe(true);
    expect(videoGenerationConfigured()).toBe(false);
    const result = await createGenerationEngine().generateImage({
      prompt: 'A red kite',
      width: 1024,
      height: 1520,
    });
    expect(result).toMatchObject({ engine: 'openai', model: 'gpt-image-1', width: 1024, height: 1536 });
    expect(models.requests[0]?.path).toBe('/v1/images/generations');
    expect(models.requests[0]?.headers.authorization).toBe('Bearer sk-test');
    expect(models.json(0)).toEqual({ model: 'gpt-image-1', prompt: 'A red kite', n: 1, size: '1024x1520' });
  });

  it('makes an image from pictures with /images/edits, each picture an image[] PNG', async () => {
    const models = await serve(() => ({ json: { data: [{ b64_json: pngBase64 }] } }));
    const jpeg = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#aa0000' } })
      .jpeg()
      .toBuffer();
    await createGenerationEngine().generateImage({
      prompt: 'The person in the scene',
      width: 1024,
      height: 1024,
      conditioning: [
        { bytes: new Uint8Array(jpeg), mediaType: 'image/jpeg' },
        { bytes: new Uint8Array(jpeg), mediaType: 'image/jpeg' },
      ],
    });
    expect(models.requests[0]?.path).toBe('/v1/images/edits');
    const form = await models.form(0);
    expect(form.get('model')).toBe('gpt-image-1');
    expect(form.get('prompt')).toBe('The person in the scene');
    expect(form.get('size')).toBe('1024x1024');
    const pictures = form.getAll('image[]') as File[];
    expect(pictures).toHaveLength(2);
    const metadata = await sharp(Buffer.from(await (pictures[0] as File).arrayBuffer())).metadata();
    expect(metadata).toMatchObject({ format: 'png', width: 40, height: 30 });
  });

  it('says why it cannot: URLs only, a refused key, videos', async () => {
    await serve((path) =>
      path.endsWith('/generations')
        ? { json: { data: [{ url: 'https://cdn.example/x.png' }] } }
        : { status: 401, json: {} },
    );
    const engine = createGenerationEngine();
    await expect(engine.generateImage({ prompt: 'x' })).rejects.toMatchObject({
      failureCode: 'media_generation_failed',
      message: expect.stringContaining('answer b64_json'),
    });
    await expect(
      engine.generateImage({
        prompt: 'x',
        conditioning: [{ bytes: new Uint8Array(Buffer.from(pngBase64, 'base64')), mediaType: 'image/png' }],
      }),
    ).rejects.toMatchObject({ failureCode: 'engine_unavailable' });
    await expect(
      engine.generateVideo({ prompt: 'x', output: { bucket: 'b', prefix: 'p' }, runId: 'r' }),
    ).rejects.toMatchObject({
      failureCode: 'engine_unavailable',
      message: expect.stringContaining('images only'),
    });
  });
});
