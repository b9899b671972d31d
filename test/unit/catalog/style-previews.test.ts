/**
 * A video agent style's preview video, rendered for real (sharp cards, synthesized music, ffmpeg) and
 * published through an in-memory store: what `preview_video_url` of `GET /v3/video-agents/styles`
 * downloads.
 */
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { musicFor } from '../../../lambdas/audio/sound-search.js';
import {
  type CatalogMediaItem,
  catalogMediaItems,
  STYLE_PREVIEW,
  stylePreviewItem,
} from '../../../lambdas/catalog/catalog-media.js';
import {
  type CatalogStore,
  publishCatalogMedia,
  publishStylePreview,
} from '../../../lambdas/catalog/publish-catalog-media.js';
import { stylePreviewHeadlines } from '../../../lambdas/catalog/render-style-preview.js';
import {
  ensureExecutable,
  ffmpegPath,
  runProcess,
} from '../../../lambdas/engines/composition/ffmpeg-binaries.js';
import { probeMedia } from '../../../lambdas/engines/composition/index.js';
import { createTestDoubleSpeechEngine } from '../../../lambdas/engines/speech/test-double-speech-engine.js';
import { AGENT_STYLES, findStyle, stylePreviewKey } from '../../../lambdas/video-agents/agent-styles.js';
import { cardLines, MAX_CARD_LINES } from '../../../lambdas/video-agents/scene-cards.js';
import { frameAt, meanColor, meanDifference, scratchDir } from '../engines/composition/media-fixtures.js';

const PREVIEW_SECONDS = STYLE_PREVIEW.cardSeconds.reduce((total, seconds) => total + seconds, 0);

/** The mean loudness (dBFS) of `seconds` of a file's audio from `start`, by ffmpeg's volumedetect. */
async function meanVolume(file: string, start: number, seconds: number): Promise<number> {
  const ffmpeg = ffmpegPath();
  await ensureExecutable(ffmpeg);
  const { stderr } = await runProcess(
    ffmpeg,
    [
      '-nostdin',
      '-ss',
      String(start),
      '-t',
      String(seconds),
      '-i',
      file,
      '-af',
      'volumedetect',
      '-f',
      'null',
      '-',
    ],
    { timeoutMs: 30_000 },
  );
  const match = /mean_volume: (-?[\d.]+|-inf) dB/.exec(stderr);
  if (!match?.[1]) throw new Error(`no volume measured: ${stderr.slice(-300)}`);
  return match[1] === '-inf' ? Number.NEGATIVE_INFINITY : Number(match[1]);
}

function memoryStore() {
  const versions = new Map<string, string>();
  const bodies = new Map<string, Uint8Array>();
  const store: CatalogStore = {
    keys: async () => new Set(versions.keys()),
    versionOf: async (key) => versions.get(key),
    put: async (item: CatalogMediaItem, body: Uint8Array) => {
      versions.set(item.key, item.version);
      bodies.set(item.key, body);
    },
  };
  return { store, versions, bodies };
}

describe('style previews in the catalog', () => {
  it('gives every style a preview over music of its mood, its cards showing all their text', () => {
    const previews = catalogMediaItems('espeak', { icons: false }).filter(
      (item) => item.kind === 'style-preview',
    );
    expect(previews.map((item) => item.style.style_id)).toEqual(AGENT_STYLES.map((style) => style.style_id));
    for (const style of AGENT_STYLES) {
      const item = stylePreviewItem(style);
      expect(item?.key, style.style_id).toBe(stylePreviewKey(style.style_id));
      expect(item?.music.id, style.style_id).toBe(musicFor(style.music_mood)?.sound.id);
      for (const text of stylePreviewHeadlines(style)) {
        const request = {
          style,
          width: STYLE_PREVIEW.width,
          height: STYLE_PREVIEW.height,
          text,
          presenter: false,
        };
        expect(cardLines(request).length, `${style.style_id}: ${text}`).toBeLessThanOrEqual(MAX_CARD_LINES);
      }
    }
    // The local stack leaves them to first use.
    expect(
      catalogMediaItems('espeak', { icons: false, stylePreviews: false }).some(
        (item) => item.kind === 'style-preview',
      ),
    ).toBe(false);
  });
});

describe('a style preview video', () => {
  const style = findStyle('noir-cinema');
  if (!style) throw new Error('no noir-cinema style');
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  let video: string;
  let store: ReturnType<typeof memoryStore>;

  beforeAll(async () => {
    scratch = await scratchDir('style-preview');
    store = memoryStore();
    // No disk cache: the preview is rendered here.
    await publishStylePreview(style, store.store, false);
    const bytes = store.bodies.get(stylePreviewKey(style.style_id));
    if (!bytes) throw new Error('nothing published');
    video = path.join(scratch.dir, 'noir-cinema.mp4');
    await writeFile(video, bytes);
  });
  afterAll(() => scratch?.remove());

  it('is a small H.264/AAC MP4 of the stated size and length', async () => {
    const info = await probeMedia(video);
    expect(info.formatName).toContain('mp4');
    expect(info.durationSeconds).toBeCloseTo(PREVIEW_SECONDS, 1);
    const picture = info.streams.find((stream) => stream.type === 'video');
    expect(picture).toMatchObject({
      codec: 'h264',
      width: STYLE_PREVIEW.width,
      height: STYLE_PREVIEW.height,
    });
    expect(info.streams.find((stream) => stream.type === 'audio')).toMatchObject({
      codec: 'aac',
      channels: 2,
    });
    expect((store.bodies.get(stylePreviewKey(style.style_id)) as Uint8Array).length).toBeLessThan(400_000);
  });

  it('plays the style’s music, faded in', async () => {
    const middle = await meanVolume(video, PREVIEW_SECONDS / 2 - 0.5, 1);
    // Well above silence (digital silence is -91 dB and below).
    expect(middle).toBeGreaterThan(-35);
    // The first tenth of a second is still fading in: quieter than the middle.
    expect(await meanVolume(video, 0, 0.1)).toBeLessThan(middle - 6);
  });

  it('shows the style’s cards one after the other, in its colours', async () => {
    const firstCardSeconds = STYLE_PREVIEW.cardSeconds[0] ?? 0;
    const first = await frameAt(video, firstCardSeconds / 2, scratch.dir);
    const second = await frameAt(video, firstCardSeconds + 1, scratch.dir);
    const whole = { left: 0, top: 0, width: STYLE_PREVIEW.width, height: STYLE_PREVIEW.height };
    expect(meanDifference(first, second, whole)).toBeGreaterThan(3);
    // The first card's gradient starts top left at the palette's `from` (#050505, near black) and
    // its headline is in the palette's pale gold: the frame is dark with light text.
    const corner = meanColor(first, { left: 0, top: 0, width: 20, height: 20 });
    for (const channel of [corner.r, corner.g, corner.b]) expect(channel).toBeLessThan(20);
  });

  it('joins the cards by the style’s transition, a dip to black centred on their boundary', async () => {
    expect(style.transition.kind).toBe('fadeblack');
    const firstCardSeconds = STYLE_PREVIEW.cardSeconds[0] ?? 0;
    const halfTransition = style.transition.duration_ms / 2000;
    const whole = { left: 0, top: 0, width: STYLE_PREVIEW.width, height: STYLE_PREVIEW.height };
    const brightest = (frame: Awaited<ReturnType<typeof frameAt>>) =>
      frame.data.reduce((highest, value) => Math.max(highest, value), 0);
    // The pale gold headline, before and after the transition; at the boundary, almost black.
    const before = await frameAt(video, firstCardSeconds - halfTransition - 0.1, scratch.dir);
    const middle = await frameAt(video, firstCardSeconds, scratch.dir);
    const after = await frameAt(video, firstCardSeconds + halfTransition + 0.1, scratch.dir);
    expect(brightest(before)).toBeGreaterThan(150);
    expect(brightest(after)).toBeGreaterThan(150);
    expect(brightest(middle)).toBeLessThan(40);
    expect(meanColor(middle, whole).r).toBeLessThan(meanColor(before, whole).r);
  });

  it('is published once, and again only when outdated', async () => {
    const key = stylePreviewKey(style.style_id);
    expect(store.versions.get(key)).toBe(stylePreviewItem(style)?.version);
    store.bodies.clear();
    await publishStylePreview(style, store.store, false);
    expect(store.bodies.size).toBe(0);
  });
});

describe('the local publication, which leaves the previews to first use', () => {
  it("keeps their cached renders, and the other speech engines' voice previews, while pruning outdated files", async () => {
    const scratch = await scratchDir('style-preview-cache');
    try {
      const engine = createTestDoubleSpeechEngine();
      const style = AGENT_STYLES[0];
      const preview = style && stylePreviewItem(style);
      if (!preview) throw new Error('no preview');
      await writeFile(path.join(scratch.dir, `${preview.version}.mp4`), 'a cached render');
      await writeFile(path.join(scratch.dir, 'aaaaaaaaaaaaaaaaaaaaaaaa.mp4'), 'an outdated render');
      // eSpeak's previews (another process on the same cache, the suite's reference engine) stay.
      const espeakPreview = catalogMediaItems('espeak', { icons: false, stylePreviews: false }).find(
        (item) => item.kind === 'voice-preview',
      );
      if (!espeakPreview) throw new Error('no eSpeak voice preview');
      await writeFile(path.join(scratch.dir, `${espeakPreview.version}.wav`), 'an eSpeak preview');
      // Everything is in the store but one style thumbnail: drawing it runs the generation and the prune.
      const { store, versions } = memoryStore();
      const items = catalogMediaItems(engine.name, { icons: false, stylePreviews: false });
      for (const item of items)
        if (item.kind !== 'style-thumbnail' || item.style !== style) versions.set(item.key, item.version);
      const result = await publishCatalogMedia({
        speechEngine: engine,
        icons: false,
        stylePreviews: false,
        store,
        cacheDirectory: scratch.dir,
      });
      expect(result.generated).toBe(1);
      const files = await readdir(scratch.dir);
      expect(files).toContain(`${preview.version}.mp4`);
      expect(files).toContain(`${espeakPreview.version}.wav`);
      expect(files).not.toContain('aaaaaaaaaaaaaaaaaaaaaaaa.mp4');
    } finally {
      await scratch.remove();
    }
  });
});
