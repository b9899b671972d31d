/**
 * A HyperFrames render in one pass against the same render in chunks, as the workflow runs it (Plan,
 * the chunks `RENDER_CHUNK_CONCURRENCY` at a time, Assemble), here on one machine with the reference
 * engine (lambdas/engines/hyperframes/producer-engine.ts). The composition: 1920×1080, `BENCH_SECONDS`
 * long (default 10) at 30 fps, three boxes moved, turned and recoloured by a GSAP timeline.
 *
 * Prints the wall time of each, and of each part of the chunked render; then what one chunk costs
 * (the browser's start, and per frame) and the estimate for 10 minutes of 1080p on AWS that the README
 * quotes: plan + waves × chunk + assemble + cold starts, for `BENCH_AWS_CONCURRENCY` (default 16)
 * Lambdas at once and chunks of `HYPERFRAMES_CHUNK_FRAMES` frames (default 240).
 *
 *   npm run bench -- hyperframes-chunked
 *   BENCH_SECONDS=4 BENCH_CHUNK_FRAMES=40 npm run bench -- hyperframes-chunked
 */
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { createProducerHyperframesEngine } from '../lambdas/engines/hyperframes/producer-engine.js';
import { benchComposition } from './support/hyperframes-composition.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const FPS = 30;
const CHUNK_FRAMES = Number(process.env.BENCH_CHUNK_FRAMES ?? 60);
const CONCURRENCY = Number(process.env.RENDER_CHUNK_CONCURRENCY ?? availableParallelism());
const AWS_CONCURRENCY = Number(process.env.BENCH_AWS_CONCURRENCY ?? 16);
const AWS_CHUNK_FRAMES = Number(process.env.HYPERFRAMES_CHUNK_FRAMES ?? 240);
/**
 * What AWS adds per step, from AWS's documentation rather than measured here: a cold start of the
 * media container image (Chromium unpacked by @sparticuz/chromium) and Step Functions' transitions.
 */
const AWS_COLD_START_S = 3;
const AWS_TRANSITIONS_S = 1;
/** Remotion Lambda's published figure for 10 minutes of HD (remotion.dev/docs/lambda). */
const REMOTION_10_MIN_HD = '56–61 s';

const composition = benchComposition(SECONDS);

const scratch = await mkdtemp(join(tmpdir(), 'hyperframes-chunked-bench-'));
const projectDir = join(scratch, 'project');
await mkdir(projectDir);
await writeFile(join(projectDir, 'index.html'), composition);
const engine = createProducerHyperframesEngine();
const settings = {
  projectDir,
  entryFile: 'index.html',
  fps: FPS,
  quality: 'standard',
  format: 'mp4',
  variables: {},
  outputPreset: null,
  timeoutMs: 240_000,
} as const;
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function onePass(name: string): Promise<number> {
  const started = performance.now();
  await engine.render({ ...settings, outputPath: join(scratch, `${name}.mp4`), onProgress: () => undefined });
  return performance.now() - started;
}

interface ChunkedTimes {
  total: number;
  plan: number;
  chunks: { frames: number; ms: number }[];
  assemble: number;
}

async function chunked(name: string, chunkFrames = CHUNK_FRAMES): Promise<ChunkedTimes> {
  const started = performance.now();
  const planDir = join(scratch, `${name}-plan`);
  const plan = await engine.plan({
    ...settings,
    planDir,
    width: 1920,
    height: 1080,
    chunkFrames,
    maxChunks: 200,
  });
  const planned = performance.now();
  const limit = pLimit(CONCURRENCY);
  const chunks = await Promise.all(
    plan.chunks.map((chunk, index) =>
      limit(async () => {
        const chunkStarted = performance.now();
        await engine.renderChunk(planDir, index, join(scratch, `${name}-chunk-${index}.mp4`), 240_000);
        return { frames: chunk.endFrame - chunk.startFrame, ms: performance.now() - chunkStarted };
      }),
    ),
  );
  const rendered = performance.now();
  await engine.assemble(
    planDir,
    plan.chunks.map((_, index) => join(scratch, `${name}-chunk-${index}.mp4`)),
    join(scratch, `${name}.mp4`),
  );
  const done = performance.now();
  return { total: done - started, plan: planned - started, chunks, assemble: done - rendered };
}

try {
  const frames = SECONDS * FPS;
  console.log(
    `${availableParallelism()} cores, load ${loadavg()[0]?.toFixed(1)}; 1920×1080, ${SECONDS} s at ${FPS} fps (${frames} frames), chunks of ${CHUNK_FRAMES} frames, ${CONCURRENCY} at a time`,
  );
  // One chunk of the whole first: Chromium unpacked and the producer loaded before anything is timed.
  await chunked('warm-up', SECONDS * FPS);
  const single = await onePass('one-pass');
  const split = await chunked('chunked');
  const chunkMs = split.chunks.map((chunk) => chunk.ms);
  console.log(`  one pass: ${s(single)}`);
  console.log(
    `  chunked: ${s(split.total)} (plan ${s(split.plan)}; ${split.chunks.length} chunks, ${CONCURRENCY} at a time as the Map asks, rendered in turn by the one process: done after ${chunkMs.map(s).join(', ')}; assemble ${s(split.assemble)})`,
  );
  console.log(`  ratio chunked / one pass on this machine: ${(split.total / single).toFixed(2)}`);
  console.log(
    `  sizes: one pass ${(await stat(join(scratch, 'one-pass.mp4'))).size} B, chunked ${(await stat(join(scratch, 'chunked.mp4'))).size} B`,
  );

  // One chunk alone (nothing else running): its fixed cost (the browser's start and warm-up) and
  // its cost per frame, from a short and a long chunk of the same plan.
  const planDir = join(scratch, 'cost-plan');
  const costPlan = await engine.plan({
    ...settings,
    planDir,
    width: 1920,
    height: 1080,
    chunkFrames: Math.floor(frames / 2),
    maxChunks: 2,
  });
  const timeChunk = async (index: number) => {
    const started = performance.now();
    await engine.renderChunk(planDir, index, join(scratch, `cost-${index}.mp4`), 240_000);
    const chunk = costPlan.chunks[index] ?? { startFrame: 0, endFrame: 0 };
    return { frames: chunk.endFrame - chunk.startFrame, ms: performance.now() - started };
  };
  const alone = await timeChunk(0);
  // A chunk of 10 frames: the same start, almost no frames.
  const shortPlanDir = join(scratch, 'short-plan');
  await engine.plan({
    ...settings,
    planDir: shortPlanDir,
    width: 1920,
    height: 1080,
    chunkFrames: 10,
    maxChunks: 200,
  });
  const shortStarted = performance.now();
  await engine.renderChunk(shortPlanDir, 0, join(scratch, 'short.mp4'), 240_000);
  const short = { frames: 10, ms: performance.now() - shortStarted };
  const perFrameMs = (alone.ms - short.ms) / (alone.frames - short.frames);
  const fixedMs = short.ms - short.frames * perFrameMs;
  console.log(
    `  one chunk alone: ${alone.frames} frames ${s(alone.ms)}, 10 frames ${s(short.ms)} → ${fixedMs.toFixed(0)} ms to start + ${perFrameMs.toFixed(1)} ms a frame`,
  );

  const tenMinutes = 600 * FPS;
  const chunkCount = Math.ceil(tenMinutes / AWS_CHUNK_FRAMES);
  const waves = Math.ceil(chunkCount / AWS_CONCURRENCY);
  const perChunkS = (fixedMs + AWS_CHUNK_FRAMES * perFrameMs) / 1000;
  // The plan compiles and probes once (measured above for this composition); assembling is a copy of
  // the streams, measured above for ${SECONDS} s and scaled to 10 minutes.
  const planS = split.plan / 1000;
  const assembleS = (split.assemble / 1000) * (600 / SECONDS);
  const estimateS = planS + waves * perChunkS + assembleS + 3 * AWS_COLD_START_S + 3 * AWS_TRANSITIONS_S;
  console.log(
    `  10 min of 1080p at ${FPS} fps on AWS, by the plan: ${chunkCount} chunks of ${AWS_CHUNK_FRAMES} frames, ${AWS_CONCURRENCY} Lambdas at once → ${waves} waves × ${perChunkS.toFixed(1)} s + plan ${planS.toFixed(1)} s + assemble ${assembleS.toFixed(1)} s + cold starts and transitions ${3 * (AWS_COLD_START_S + AWS_TRANSITIONS_S)} s ≈ ${Math.round(estimateS)} s (Remotion Lambda publishes ${REMOTION_10_MIN_HD})`,
  );
} finally {
  await rm(scratch, { recursive: true, force: true });
}
