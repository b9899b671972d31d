/**
 * The HyperFrames capability's public surface: the engine interface and its failure codes, and the
 * engine chosen by configuration (`hyperframesEngine()`). Job code imports from here.
 */
import { config, type HyperframesEngineName } from '../../core/config.js';
import type { HyperframesEngine } from './hyperframes-engine.js';
import { createProducerHyperframesEngine } from './producer-engine.js';
import { createTestDoubleHyperframesEngine } from './test-double-hyperframes-engine.js';

export * from './hyperframes-engine.js';

/** The configured engine (`HYPERFRAMES_ENGINE`): `producer` (the default) or `test-double` (tests only). */
export function hyperframesEngine(
  name: HyperframesEngineName = config().hyperframesEngine,
): HyperframesEngine {
  switch (name) {
    case 'producer':
      return createProducerHyperframesEngine();
    case 'test-double':
      return createTestDoubleHyperframesEngine();
    default:
      throw new Error(`unknown HyperFrames engine ${String(name satisfies never)}`);
  }
}
