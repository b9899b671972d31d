/**
 * The catalog custom resource's handler (lambdas/catalog/publish-catalog-handler.ts) over an
 * in-memory store and the speech engine's test double: transient failures are retried away, and a
 * failure that stays says which object, which engine and what failed, succeeding the deploy unless
 * the stack asks otherwise. Retry delays are milliseconds here.
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type {
  CloudFormationCustomResourceCreateEvent,
  CloudFormationCustomResourceDeleteEvent,
} from 'aws-lambda';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { CATALOG_RESOURCE_PROPERTIES } from '../../../lambdas/catalog/catalog-keys.js';
import {
  type CatalogMediaItem,
  catalogMediaItems,
  iconMediaItems,
} from '../../../lambdas/catalog/catalog-media.js';
import { type CatalogIcon, catalogIcons } from '../../../lambdas/catalog/icon-catalog.js';
import { catalogResourceHandler } from '../../../lambdas/catalog/publish-catalog-handler.js';
import {
  type CatalogStore,
  publishIconMedia,
  type RetryTiming,
} from '../../../lambdas/catalog/publish-catalog-media.js';
import { type SpeechEngine, SpeechEngineError } from '../../../lambdas/engines/speech/speech-engine.js';
import { createTestDoubleSpeechEngine } from '../../../lambdas/engines/speech/test-double-speech-engine.js';

const RETRY: RetryTiming = { attempts: 3, firstDelayMs: 1, maxDelayMs: 4 };

/**
 * A bucket holding every image, sound and icon already, so only the voice previews are spoken (or what
 * `missing` says is missing).
 */
function memoryStore(
  engineName: string,
  failUpload: (key: string) => boolean = () => false,
  missing: (item: CatalogMediaItem) => boolean = (item) => item.kind === 'voice-preview',
) {
  const objects = new Map<string, string>();
  const bodies = new Map<string, Uint8Array>();
  for (const item of catalogMediaItems(engineName)) if (!missing(item)) objects.set(item.key, item.version);
  const store: CatalogStore = {
    keys: async () => new Set(objects.keys()),
    versionOf: async (key) => objects.get(key),
    put: async (item: CatalogMediaItem, body: Uint8Array) => {
      if (failUpload(item.key)) throw Object.assign(new Error('Slow Down'), { name: 'SlowDown' });
      objects.set(item.key, item.version);
      bodies.set(item.key, body);
    },
  };
  return { store, objects, bodies };
}

function catalogIcon(id: string): CatalogIcon {
  const icon = catalogIcons().find((candidate) => candidate.id === id);
  if (!icon) throw new Error(`no icon ${id}`);
  return icon;
}

/** The package's own file, read here without the catalog's code. */
const packageSvg = (style: string, name: string) =>
  readFileSync(createRequire(import.meta.url).resolve(`@tabler/icons/${style}/${name}.svg`));

/** A PNG's size and how much of it is transparent. */
async function pngFacts(png: Uint8Array) {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const pixels = info.width * info.height;
  let transparent = 0;
  for (let pixel = 0; pixel < pixels; pixel++) if (data[pixel * 4 + 3] === 0) transparent++;
  return { width: info.width, height: info.height, transparentShare: transparent / pixels };
}

/** The test double, failing `failures(voiceId)` times for each engine voice before it speaks. */
function flakyEngine(failures: (voiceId: string) => number) {
  const engine = createTestDoubleSpeechEngine();
  const calls = new Map<string, number>();
  const flaky: SpeechEngine = {
    name: engine.name,
    voices: () => engine.voices(),
    close: () => engine.close(),
    synthesize: async (request) => {
      const call = (calls.get(request.voiceId) ?? 0) + 1;
      calls.set(request.voiceId, call);
      if (call <= failures(request.voiceId))
        throw new SpeechEngineError('engine_unavailable', 'Rate exceeded (throttled)');
      return engine.synthesize(request);
    },
  };
  return { engine: flaky, calls };
}

function createEvent(properties: Record<string, string> = {}): CloudFormationCustomResourceCreateEvent {
  return {
    RequestType: 'Create',
    ServiceToken: 'arn:aws:lambda:eu-west-1:123456789012:function:provider',
    ResponseURL: 'https://cloudformation-custom-resource-response.example.com/',
    StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/VideoCreationService/1',
    RequestId: 'request',
    LogicalResourceId: 'CatalogMedia',
    ResourceType: 'Custom::CatalogMedia',
    ResourceProperties: { ServiceToken: 'provider', CatalogVersion: 'v', ...properties },
  };
}

const voicePreviews = (engineName: string) =>
  catalogMediaItems(engineName).filter((item) => item.kind === 'voice-preview');

describe('catalog custom resource', () => {
  it('retries an engine that fails for a while, and publishes every preview', async () => {
    const { engine, calls } = flakyEngine(() => 2);
    const { store, objects } = memoryStore(engine.name);
    const handler = catalogResourceHandler({
      speechEngine: () => engine,
      publication: { store, retry: RETRY },
    });
    const response = await handler(createEvent());
    const previews = voicePreviews(engine.name);
    expect(previews.length).toBeGreaterThan(0);
    expect(response.Data).toMatchObject({ Failed: 0, Uploaded: previews.length });
    expect(response.Data?.Status).toMatch(/^published: /);
    for (const item of previews) expect(objects.get(item.key)).toBe(item.version);
    expect([...calls.values()].every((count) => count === 3)).toBe(true);
  });

  it('names the object, the engine and what failed, and succeeds with the failure recorded', async () => {
    const [broken] = voicePreviews('test-double');
    if (broken?.kind !== 'voice-preview') throw new Error('expected a voice preview');
    const { engine, calls } = flakyEngine((voiceId) => (voiceId === broken.engineVoiceId ? 99 : 0));
    const { store, objects } = memoryStore(engine.name);
    const handler = catalogResourceHandler({
      speechEngine: () => engine,
      publication: { store, retry: RETRY },
    });
    const response = await handler(createEvent());
    expect(response.PhysicalResourceId).toBe('video-service-catalog-media');
    expect(response.Data?.Failed).toBe(1);
    const status = response.Data?.Status ?? '';
    expect(status).toMatch(/^FAILED \(publish again: cdk deploy -c catalogPublicationNonce=/);
    expect(status).toContain('speech engine test-double');
    expect(status).toContain(
      `voice preview of ${broken.voice.voiceId} (test-double voice ${broken.engineVoiceId})`,
    );
    expect(status).toContain(`${broken.key}: generate failed: `);
    expect(status).toContain('Rate exceeded (throttled)');
    expect(status).toContain('after 3 attempts');
    // Every engine voice a preview uses was tried exactly as often as RETRY says.
    expect(calls.get(broken.engineVoiceId)).toBe(3);
    expect(objects.has(broken.key)).toBe(false);
    for (const item of voicePreviews(engine.name).filter((item) => item.key !== broken.key))
      expect(objects.get(item.key)).toBe(item.version);
  });

  it('fails the deploy with that reason when the stack asks for it', async () => {
    const { engine } = flakyEngine(() => 0);
    const failing = voicePreviews(engine.name)[1]?.key ?? '';
    const { store } = memoryStore(engine.name, (key) => key === failing);
    const handler = catalogResourceHandler({
      speechEngine: () => engine,
      publication: { store, retry: RETRY },
    });
    const event = createEvent({ [CATALOG_RESOURCE_PROPERTIES.failDeployOnError]: 'true' });
    await expect(handler(event)).rejects.toThrow(
      new RegExp(
        `1 of \\d+ objects failed after 3 attempts\\. .*${failing}: upload failed: SlowDown: Slow Down`,
      ),
    );
  });

  it("publishes the icons the bucket lacks: the package's SVG, and the transparent 512×512 PNG drawn from it", async () => {
    const engine = createTestDoubleSpeechEngine();
    const icons = [catalogIcon('tabler-rocket'), catalogIcon('tabler-pizza-filled')];
    const wanted = icons.flatMap((icon) => iconMediaItems(icon));
    const { store, objects, bodies } = memoryStore(engine.name, undefined, (item) =>
      wanted.some((icon) => icon.key === item.key),
    );
    const handler = catalogResourceHandler({
      speechEngine: () => engine,
      publication: { store, retry: RETRY },
    });
    const response = await handler(createEvent());
    expect(response.Data).toMatchObject({ Failed: 0, Uploaded: 4, Generated: 4 });
    for (const item of wanted) expect(objects.get(item.key), item.key).toBe(item.version);
    for (const icon of icons) {
      const [svg, png] = iconMediaItems(icon);
      expect(Buffer.from(bodies.get(svg.key) ?? []).equals(packageSvg(icon.style, icon.name))).toBe(true);
      const facts = await pngFacts(bodies.get(png.key) ?? new Uint8Array());
      expect(facts).toMatchObject({ width: 512, height: 512 });
      expect(facts.transparentShare, icon.id).toBeGreaterThan(0.5);
      expect(facts.transparentShare, icon.id).toBeLessThan(0.99);
    }
  });

  it('answers before its time runs out, naming what is left to publish', async () => {
    const engine = createTestDoubleSpeechEngine();
    const { store, objects } = memoryStore(engine.name);
    const handler = catalogResourceHandler({
      speechEngine: () => engine,
      publication: { store, retry: RETRY },
    });
    // Less time left than the margin kept for answering: nothing is started.
    const response = await handler(createEvent(), { getRemainingTimeInMillis: () => 30_000 });
    const previews = voicePreviews(engine.name);
    expect(response.Data?.Failed).toBe(previews.length);
    expect(response.Data?.Status).toMatch(/^FAILED \(publish again: /);
    expect(response.Data?.Status).toContain('not started: the publisher ran out of time');
    for (const item of previews) expect(objects.has(item.key)).toBe(false);
    // With time enough, the same publication completes.
    const again = await handler(createEvent(), { getRemainingTimeInMillis: () => 600_000 });
    expect(again.Data).toMatchObject({ Failed: 0, Uploaded: previews.length });
  });

  it('publishes an icon on first use only when its PNG is missing or outdated', async () => {
    const icon = catalogIcon('tabler-rocket');
    const [svg, png] = iconMediaItems(icon);
    const { store, objects, bodies } = memoryStore('test-double', undefined, () => true);
    await publishIconMedia(icon, store);
    expect([...bodies.keys()]).toEqual([svg.key, png.key]);
    expect(objects.get(png.key)).toBe(png.version);
    bodies.clear();
    await publishIconMedia(icon, store);
    expect(bodies.size).toBe(0);
    objects.set(png.key, 'an-older-version');
    await publishIconMedia(icon, store);
    expect([...bodies.keys()]).toEqual([svg.key, png.key]);
  });

  it('leaves the media alone on Delete', async () => {
    const { engine, calls } = flakyEngine(() => 0);
    const handler = catalogResourceHandler({ speechEngine: () => engine });
    const event: CloudFormationCustomResourceDeleteEvent = {
      ...createEvent(),
      RequestType: 'Delete',
      PhysicalResourceId: 'video-service-catalog-media',
    };
    expect(await handler(event)).toEqual({ PhysicalResourceId: 'video-service-catalog-media' });
    expect(calls.size).toBe(0);
  });
});
