/**
 * Acceptance by a real client: HyperFrames' own CLI (`hyperframes cloud render`, from the npm
 * registry, on the Node 22 it needs) renders a project directory against the local stack, unchanged:
 * it zips the project, uploads it through `POST /v3/assets/direct-uploads`, the presigned PUT and
 * `POST /v3/assets/{id}/complete`, creates the render, polls it and downloads `video_url`. The file it
 * writes is measured, and the render it made is the one the API lists.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWorkspace } from '../../lambdas/accounts/workspaces.js';
import { probeMedia } from '../../lambdas/engines/composition/probe.js';
import { hyperframesCli, nodeRuntime, SMOKE_NODE_VERSIONS } from '../support/npm-tools.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

const run = promisify(execFile);

let api: TestStack;
let scratch: string;
beforeAll(async () => {
  // The real renderer; speech and composition are not this test's subject.
  api = await startTestStack({ environment: { HYPERFRAMES_ENGINE: 'producer' } });
  scratch = await mkdtemp(join(tmpdir(), 'hyperframes-cli-'));
}, 300_000);
afterAll(async () => {
  await api?.stop();
  await rm(scratch, { recursive: true, force: true });
});

/** A 1 s composition whose box slides right, with GSAP from jsDelivr as HyperFrames' templates load it. */
const COMPOSITION = `<!doctype html>
<html><head><meta charset="utf-8">
<script src="https://cdn.jsdelivr.net/npm/gsap@3.12.5/dist/gsap.min.js"></script>
<style>html,body{margin:0;background:#102040}
#box{position:absolute;left:100px;top:440px;width:200px;height:200px;background:#ff3030}</style>
</head><body>
<div id="root" data-composition-id="main" data-start="0" data-duration="1" data-width="1920" data-height="1080">
  <div id="box"></div>
</div>
<script>
  const tl = gsap.timeline({ paused: true });
  tl.to('#box', { x: 1400, duration: 1, ease: 'none' });
  window.__timelines = window.__timelines || {};
  window.__timelines['main'] = tl;
</script>
</body></html>`;

describe('hyperframes cloud render', () => {
  it('renders a project directory unchanged against this API and downloads the video', async () => {
    const [node, cli] = await Promise.all([nodeRuntime(SMOKE_NODE_VERSIONS[0]), hyperframesCli()]);
    const project = join(scratch, 'project');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'index.html'), COMPOSITION);
    const output = join(scratch, 'out.mp4');
    const before = (await getWorkspace(api.workspaceId, true))?.remaining_credits ?? 0;

    const { stdout } = await run(
      node,
      [
        cli,
        'cloud',
        'render',
        '--fps',
        '10',
        '--quality',
        'draft',
        '--poll-interval',
        '1',
        '--json',
        '-o',
        output,
        project,
      ],
      {
        cwd: scratch,
        timeout: 240_000,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: scratch,
          HEYGEN_API_URL: api.baseUrl,
          HEYGEN_API_KEY: api.apiKey,
          HYPERFRAMES_NO_TELEMETRY: '1',
          HYPERFRAMES_NO_UPDATE_CHECK: '1',
          DO_NOT_TRACK: '1',
        },
      },
    );

    const probe = await probeMedia(output);
    const video = probe.streams.find((stream) => stream.type === 'video');
    expect([video?.width, video?.height]).toEqual([1920, 1080]);
    expect(probe.durationSeconds).toBeCloseTo(1, 1);

    const listed = await api.call<{ data: { render_id: string; status: string; duration: number }[] }>(
      'GET',
      '/v3/hyperframes/renders',
    );
    const [render] = listed.body.data;
    expect(render).toMatchObject({ status: 'completed' });
    expect(stdout).toContain(render?.render_id);
    // Charged once, for the one render: one started minute at 1080p.
    await expect
      .poll(async () => (await getWorkspace(api.workspaceId, true))?.remaining_credits)
      .toBe(before - 1);
  }, 300_000);
});
