/**
 * The order test files start in: the slowest first, then Vitest's own order. Vitest runs the files it
 * has timings for longest first, but a fresh checkout (CI) has none, and it then starts the largest
 * files first, so a short file that takes long (the Node versions smoke test: two service starts)
 * started last and ran alone at the end while the other core idled. These files, measured on 2 cores,
 * start first; a file that grows slow belongs in the list.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Slowest first (seconds on 2 cores, in the suite, late 2026). */
export const SLOW_FILES: readonly string[] = [
  'test/smoke/node-versions.test.ts', // 48
  'test/integration/security/create-fuzz.test.ts', // 30
  'test/integration/security/route-fuzz.test.ts', // 29
  'test/integration/private-avatars.test.ts', // 29
  'test/integration/templates.test.ts', // 26
  'test/integration/lipsyncs.test.ts', // 25
  'test/integration/admin-cli.test.ts', // 25
  'test/unit/engines/composition/talking-footage.test.ts', // 24
  'test/integration/videos.test.ts', // 23
  'test/integration/webhook-deliveries.test.ts', // 22
  'test/integration/filler-word-removals.test.ts', // 20
  'test/integration/talking-photo.test.ts', // 19
  'test/integration/ai-clipping.test.ts', // 19 (a loaded machine: 31 wall, 19 CPU)
  'test/integration/models-audio.test.ts', // 18
  'test/integration/background-removals.test.ts', // 18
  'test/unit/engines/vision/twin-footage.test.ts', // 17
  'test/integration/video-restart.test.ts', // 15
  'test/integration/access-enforcement.test.ts', // 14
  'test/unit/engines/vision/segmentation.test.ts', // 14
  'test/integration/rate-limit-leases.test.ts', // 13
];

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = SLOW_FILES.indexOf(relative(this.ctx.config.root, file.moduleId).replaceAll('\\', '/'));
      return index === -1 ? SLOW_FILES.length : index;
    };
    // Array.prototype.sort is stable: files outside the list keep Vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
