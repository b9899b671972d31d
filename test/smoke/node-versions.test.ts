/**
 * The product on the other Node.js versions it supports (22 and 24, Lambda's runtimes; the suite itself
 * runs on the machine's Node): `npm start`'s entry point is started with that version's binary,
 * exactly as a user starts it, then one video is made through the API with the real engines, polled
 * to completion and downloaded, and ffprobe reads it back.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeMedia } from '../../lambdas/engines/composition/probe.js';
import { nodeRuntime, SMOKE_NODE_VERSIONS } from '../support/npm-tools.js';

const PROJECT_ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(PROJECT_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const STARTUP_TIMEOUT_MS = 120_000;
const RENDER_TIMEOUT_MS = 120_000;
/** Installing a runtime, starting on it and rendering, on a busy machine. */
const SMOKE_TIMEOUT_MS = 300_000;

interface RunningService {
  process: ChildProcess;
  baseUrl: string;
  apiKey: string;
  dataDir: string;
}

/** Starts `bin/serve.ts` with `node`, on a free port and a fresh data directory; resolves once it prints its key. */
async function startService(node: string): Promise<RunningService> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'smoke-'));
  const child = spawn(node, [TSX, path.join(PROJECT_ROOT, 'bin', 'serve.ts')], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'ERROR' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`No start within ${STARTUP_TIMEOUT_MS} ms:\n${output}`)),
      STARTUP_TIMEOUT_MS,
    );
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const baseUrl = /Base URL:\s+(\S+)/.exec(output)?.[1];
      const apiKey = /API key:\s+(\S+)/.exec(output)?.[1];
      if (baseUrl && apiKey) {
        clearTimeout(timer);
        resolve({ process: child, baseUrl, apiKey, dataDir });
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The service exited with ${code} before it started:\n${output}`));
    });
  });
}

async function stopService(service: RunningService): Promise<void> {
  if (service.process.exitCode === null) {
    const exited = new Promise((resolve) => service.process.once('exit', resolve));
    service.process.kill('SIGINT');
    await exited;
  }
  await rm(service.dataDir, { recursive: true, force: true });
}

let running: RunningService | undefined;
afterEach(async () => {
  if (running) await stopService(running);
  running = undefined;
});

describe.each(SMOKE_NODE_VERSIONS)('on Node.js %s', (version) => {
  it(
    'starts, makes a video, and serves it for download',
    async () => {
      const node = await nodeRuntime(version);
      running = await startService(node);
      const { baseUrl, apiKey } = running;
      const headers = { 'X-Api-Key': apiKey, 'Content-Type': 'application/json' };

      const me = await fetch(`${baseUrl}/v3/users/me`, { headers });
      expect(me.status).toBe(200);
      const created = await fetch(`${baseUrl}/v3/videos`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          type: 'avatar',
          avatar_id: 'maya-office',
          script: `Made on Node ${version}.`,
        }),
      });
      expect(created.status).toBe(200);
      const { video_id: videoId } = ((await created.json()) as { data: { video_id: string } }).data;

      let video: { status: string; video_url?: string | null; duration?: number | null } = {
        status: 'pending',
      };
      const deadline = Date.now() + RENDER_TIMEOUT_MS;
      while (!['completed', 'failed'].includes(video.status) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        const polled = await fetch(`${baseUrl}/v3/videos/${videoId}`, { headers });
        video = ((await polled.json()) as { data: typeof video }).data;
      }
      expect(video.status).toBe('completed');

      const download = await fetch(video.video_url as string);
      expect(download.status).toBe(200);
      const file = path.join(running.dataDir, 'smoke.mp4');
      await writeFile(file, Buffer.from(await download.arrayBuffer()));
      const probed = await probeMedia(file);
      expect(probed.streams.map((stream) => stream.type).sort()).toEqual(['audio', 'video']);
      expect(probed.durationSeconds).toBeGreaterThan(1);
      expect(Math.abs(probed.durationSeconds - (video.duration ?? 0))).toBeLessThan(0.2);
    },
    SMOKE_TIMEOUT_MS,
  );
});
