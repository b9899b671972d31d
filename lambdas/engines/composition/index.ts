/**
 * The composition capability's public surface: the engine interface and errors, the engine chosen by
 * configuration (`compositionEngine()`), media probing, the ffmpeg/ffprobe locations, captions,
 * subtitle files (SRT, WebVTT) and the media primitives of dubbing (dubbing.ts). Job code imports from here.
 */
import { type CompositionEngineName, config } from '../../core/config.js';
import type { CompositionEngine } from './composition-engine.js';
import { createFfmpegCompositionEngine } from './ffmpeg-composition-engine.js';
import { createTestDoubleCompositionEngine } from './test-double-composition-engine.js';

export * from './captions.js';
export * from './chunks.js';
export * from './composition-engine.js';
export * from './dubbing.js';
export { ffmpegPath, ffprobePath } from './ffmpeg-binaries.js';
export * from './ffmpeg-composition-engine.js';
export * from './probe.js';
export * from './subtitle-files.js';

/**
 * The configured composition engine (`COMPOSITION_ENGINE`, see core/config.ts): `ffmpeg` (the reference
 * engine, the default) or `test-double` (tests only). Job code records its `name` on the job. Engines
 * hold no resources between compositions, so each call makes a new one from the current configuration.
 */
export function compositionEngine(
  name: CompositionEngineName = config().compositionEngine,
): CompositionEngine {
  switch (name) {
    case 'ffmpeg':
      return createFfmpegCompositionEngine();
    case 'test-double':
      return createTestDoubleCompositionEngine();
    default:
      throw new Error(`unknown composition engine ${String(name satisfies never)}`);
  }
}
