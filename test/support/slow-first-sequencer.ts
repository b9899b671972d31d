/**
 * The order test files start in: the slowest first, then Vitest's own order. Vitest runs the files it
 * has timings for longest first, but a fresh checkout (CI) has none, and it then starts the largest
 * files first, so a short file that takes long (the Node versions smoke test: two service starts)
 * started last and ran alone at the end while the other core idled. These files, measured on 2 cores,
 * start first; a file that grows slow belongs in the list.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Slowest first: seconds of wall time on 2 cores in the suite (November 2026), those this round of
 * speed-ups changed measured again on their own. The Node versions smoke test stays first: it varies
 * most (21 to 55 s: two services on other Node.js versions, real renders).
 */
export const SLOW_FILES: readonly string[] = [
  'test/smoke/node-versions.test.ts', // 21-55
  'test/integration/security/route-fuzz.test.ts', // 60 s of CPU alone (174 properties)
  'test/integration/private-avatars.test.ts', // 47
  'test/infra/service-stack.test.ts', // 66 before two forced re-syntheses went
  'test/integration/security/create-fuzz.test.ts', // 39 (149 when it waited on another process's catalog generation)
  'test/integration/video-agents.test.ts', // 31
  'test/integration/security/idempotency-race.test.ts', // 30
  'test/integration/admin-cli.test.ts', // 59 before, 33 alone after (one local stack start less, no sound regeneration)
  'test/integration/video-agent-documents.test.ts', // 28
  'test/integration/videos.test.ts', // 28
  'test/integration/usage.test.ts', // 28
  'test/integration/lipsyncs.test.ts', // 27
  'test/unit/engines/composition/talking-footage.test.ts', // 26
  'test/unit/engines/vision/footage-lips.test.ts', // 24
  'test/integration/security/authorization-matrix.test.ts', // 24
  'test/integration/video-agent-render.test.ts', // 23
  'test/infra/video-pipeline.test.ts', // 23
  'test/integration/video-agent-queue.test.ts', // 19
  'test/integration/talking-photo.test.ts', // 19
  'test/unit/engines/vision/twin-footage.test.ts', // 18
  'test/infra/workflow-state-machines.test.ts', // 17.5
  'test/integration/models-audio.test.ts', // 17
  'test/integration/models-videos.test.ts', // 17
  'test/integration/hyperframes-real-render.test.ts', // 15.5
  'test/unit/engines/vision/segmentation.test.ts', // 15.5
  'test/integration/video-restart.test.ts', // 15
  'test/infra/preflight-stack.test.ts', // 15
  'test/integration/security/oauth.test.ts', // 14
  'test/integration/ai-clipping.test.ts', // 13
  'test/integration/webhook-deliveries.test.ts', // 13
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
