/**
 * A HyperFrames render through the API against the producer alone, and their ratio (the issue's target:
 * at most 1.1). The same composition both ways: 1920×1080, `BENCH_SECONDS` long (default 5) at
 * `BENCH_FPS` (default 30), three boxes moved, turned and recoloured by a GSAP timeline that loads GSAP
 * from jsDelivr (served from the `gsap` package: no network).
 *
 * - producer alone: the reference engine's `render` (lambdas/engines/hyperframes/producer-engine.ts:
 *   HyperFrames' `executeRenderJob` with its Chromium launcher and the network guard), in this process;
 * - through the API: `POST /v3/hyperframes/renders` on the local stack in memory (the same engine,
 *   plus the zip stored and checked, the record, progress writes, the probe, the thumbnail, the stored
 *   video), polled every 100 ms until it reads completed.
 *
 * A warm-up render of each first (loading the producer, unpacking Chromium), then `BENCH_RUNS` (default
 * 2) of each, alternated; the medians are compared.
 *
 *   npm run bench -- hyperframes-render
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { createProducerHyperframesEngine } from '../lambdas/engines/hyperframes/producer-engine.js';
import { startLocalStack } from '../lib/local/local-stack.js';
import { benchWorkspace } from './support/bench-workspace.js';
import { benchComposition } from './support/hyperframes-composition.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const FPS = Number(process.env.BENCH_FPS ?? 30);
const RUNS = Number(process.env.BENCH_RUNS ?? 2);
const POLL_MS = 100;

const composition = benchComposition(SECONDS);

const scratch = await mkdtemp(join(tmpdir(), 'hyperframes-bench-'));
const projectDir = join(scratch, 'project');
await mkdir(projectDir);
await writeFile(join(projectDir, 'index.html'), composition);
const zip = Buffer.from(zipSync({ 'index.html': new TextEncoder().encode(composition) })).toString('base64');

const stack = await startLocalStack({ port: 0, stepFunctionsTimeScale: 0.001 });
const { apiKey } = await benchWorkspace({ name: 'HyperFrames bench', included_credits: 1_000_000 });

async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  const response = await fetch(`${stack.baseUrl}${url}`, {
    method,
    headers: { 'X-Api-Key': apiKey, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Milliseconds of one render through the API, request to the poll that saw it completed. */
async function throughApi(): Promise<number> {
  const started = performance.now();
  const created = await call<{ data: { render_id: string } }>('POST', '/v3/hyperframes/renders', {
    project: { type: 'base64', media_type: 'application/zip', data: zip },
    fps: FPS,
    quality: 'standard',
  });
  for (;;) {
    const { data } = await call<{ data: { status: string; failure_message: string | null } }>(
      'GET',
      `/v3/hyperframes/renders/${created.data.render_id}`,
    );
    if (data.status === 'completed') return performance.now() - started;
    if (data.status === 'failed') throw new Error(`render failed: ${data.failure_message}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Milliseconds of one render by the producer engine alone. */
async function producerAlone(run: number): Promise<number> {
  const started = performance.now();
  await createProducerHyperframesEngine().render({
    projectDir,
    entryFile: 'index.html',
    fps: FPS,
    quality: 'standard',
    format: 'mp4',
    variables: {},
    outputPreset: null,
    outputPath: join(scratch, `alone-${run}.mp4`),
    timeoutMs: 600_000,
    onProgress: () => undefined,
  });
  return performance.now() - started;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

try {
  console.log(
    `${availableParallelism()} cores, load ${loadavg()[0]?.toFixed(1)}; composition 1920×1080, ${SECONDS} s at ${FPS} fps (${SECONDS * FPS} frames), quality standard`,
  );
  console.log(
    `  warm-up: producer alone ${s(await producerAlone(0))}, through the API ${s(await throughApi())}`,
  );
  const alone: number[] = [];
  const api: number[] = [];
  for (let run = 1; run <= RUNS; run++) {
    alone.push(await producerAlone(run));
    api.push(await throughApi());
  }
  console.log(`  producer alone: ${alone.map(s).join(', ')} (median ${s(median(alone))})`);
  console.log(`  through the API: ${api.map(s).join(', ')} (median ${s(median(api))})`);
  console.log(`  ratio API / producer: ${(median(api) / median(alone)).toFixed(2)} (target ≤ 1.1)`);
} finally {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await stack.stop();
  await rm(scratch, { recursive: true, force: true });
}
