import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/support/slow-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One seed for every property test (test/support/property-seed.ts).
    setupFiles: ['test/support/property-seed.ts'],
    // Each file runs in its own process: a file's local stack owns its process environment.
    pool: 'forks',
    // One file per core. Vitest's default leaves a core free (one worker on a 2-core CI machine, which
    // ran the suite file after file). Measured on 2 cores with the suite of 142 files: 2 workers 374 s,
    // 3 workers 373 s (each file slower under the contention).
    maxWorkers: availableParallelism(),
    // The slowest files start first, so none runs alone at the end (test/support/slow-first-sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
    // The handlers' logger reads its level when it loads; tests assert on responses, not logs.
    env: {
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  },
});
