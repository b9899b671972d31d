import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One seed for every property test (test/support/property-seed.ts).
    setupFiles: ['test/support/property-seed.ts'],
    // Each file runs in its own process: a file's local stack owns its process environment.
    pool: 'forks',
    // One file per core and one more. Vitest's default leaves a core free (one worker on a 2-core CI
    // machine, which ran the suite file after file); the integration files wait on HTTP, timers and
    // child processes (ffmpeg) much of the time, so a third worker fills the cores' idle time.
    // Measured on 2 cores (the suite of 142 files): 2 workers 374 s, 3 workers see the README.
    maxWorkers: availableParallelism() + 1,
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
