/**
 * Filler-word removal's media work (`lambdas/engines/composition/media-cuts.ts` then `muxDub`): a 60 s
 * 640×360 25 fps clip with a tone, cut in 10 and in 60 places (each cut 0.3 s, every join crossfaded),
 * as the Clean step does after planning. Prints the wall time of the cut and of the mux, and the
 * real-time factor.
 *
 *   npm run bench -- filler-cuts     (BENCH_KEEP=1 keeps the files)
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { muxDub, prepareSource } from '../lambdas/engines/composition/dubbing.js';
import { ensureExecutable, ffmpegPath } from '../lambdas/engines/composition/ffmpeg-binaries.js';
import { cutMedia } from '../lambdas/engines/composition/media-cuts.js';
import { planCuts } from '../lambdas/filler-removals/cut-plan.js';

const SECONDS = 60;
const FPS = 25;
const run = promisify(execFile);
const ffmpeg = ffmpegPath();
await ensureExecutable(ffmpeg);
const dir = await mkdtemp(path.join(tmpdir(), 'bench-filler-cuts-'));
const source = path.join(dir, 'source.mp4');
await run(ffmpeg, [
  ...['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=s=640x360:r=${FPS}:d=${SECONDS}`],
  ...['-f', 'lavfi', '-i', `sine=f=440:r=48000:d=${SECONDS}`],
  ...['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', source],
]);
const prepared = await prepareSource(source, { workDir: dir });

for (const count of [10, 60]) {
  const spacing = (SECONDS * 1000) / (count + 1);
  const plan = planCuts({
    fps: FPS,
    totalFrames: SECONDS * FPS,
    fillers: Array.from({ length: count }, (_, index) => ({
      startMs: (index + 1) * spacing,
      endMs: (index + 1) * spacing + 300,
    })),
    silences: [],
    silenceThresholdMs: 1000,
    silenceKeptMs: 300,
  });
  const workDir = path.join(dir, `cuts-${count}`);
  await mkdir(workDir, { recursive: true });
  const started = performance.now();
  const cut = await cutMedia({
    videoPath: prepared.videoPath,
    audioPath: prepared.audioPath,
    fps: FPS,
    kept: plan.kept,
    crossfadeMs: 10,
    workDir,
  });
  const cutMs = performance.now() - started;
  await muxDub({
    videoPath: cut.videoPath,
    audioPath: cut.audioPath as string,
    outPath: path.join(workDir, 'cleaned.mp4'),
    format: 'mp4',
    fpsMode: 'vfr',
    keepSameFormat: false,
    sourceInfo: prepared,
  });
  const totalMs = performance.now() - started;
  console.log(
    `${count} cuts: cut ${(cutMs / 1000).toFixed(2)} s, mux ${((totalMs - cutMs) / 1000).toFixed(2)} s, ` +
      `${(SECONDS / (totalMs / 1000)).toFixed(1)}× real time (${plan.keptFrames} of ${SECONDS * FPS} frames kept)`,
  );
}
if (process.env.BENCH_KEEP) console.log(`files in ${dir}`);
else await rm(dir, { recursive: true, force: true });
