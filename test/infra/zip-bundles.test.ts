/**
 * Zip-packaged task functions load in Lambda's Node.js runtime with nothing but their bundle: no
 * node_modules beside them. A module that also serves media-image steps (the video render's steps
 * share one module) must load what only the image has (sharp, the vision runtime, ffmpeg) when a step
 * uses it, never at import, or the zip steps of that module fail before they run.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { buildSync } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { TASK_PACKAGING } from '../../lambdas/jobs/task-deployment.js';
import { TASK_FUNCTIONS } from '../../lambdas/workflows/task-functions.js';
import { BUNDLE_WORKERS, LAMBDA_BUILD_OPTIONS } from '../../lib/stack/handler-bundles.js';
import { TASK_FUNCTION_MODULES } from '../../lib/stack/workflow-task-functions.js';
import { PROJECT_ROOT } from './synth-helpers.js';

const outdir = mkdtempSync(path.join(tmpdir(), 'zip-bundles-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('zip-packaged task functions', () => {
  it('import with nothing beside their bundle and export their handlers', async () => {
    const entryPoints = Object.fromEntries(
      TASK_FUNCTION_MODULES.map((module) => [
        `${module}/index`,
        path.join(PROJECT_ROOT, 'lambdas', `${module}.ts`),
      ]),
    );
    buildSync({
      absWorkingDir: PROJECT_ROOT,
      entryPoints,
      external: BUNDLE_WORKERS.flatMap((worker) => worker.packages),
      outdir,
      ...LAMBDA_BUILD_OPTIONS,
      logLevel: 'error',
    });
    const zipped = Object.values(TASK_FUNCTIONS).filter(
      (definition) => definition.packaging !== TASK_PACKAGING.mediaImage,
    );
    const script = path.join(outdir, 'load.mjs');
    writeFileSync(
      script,
      'for (const arg of process.argv.slice(2)) { const [file, name] = arg.split("#"); const m = await import(file); console.log(name + ":" + typeof m[name]); }',
    );
    const { NODE_OPTIONS: _, ...env } = process.env;
    const loaded = promisify(execFile)(
      process.execPath,
      [
        script,
        ...zipped.map(
          (definition) =>
            `${pathToFileURL(path.join(outdir, definition.module, 'index.mjs')).href}#${definition.exportName ?? 'handler'}`,
        ),
      ],
      // Outside the project: no node_modules up the tree.
      { cwd: outdir, env: { ...env, TABLE_NAME: 'unused', NODE_PATH: '' } },
    ).catch((error: { stderr?: string }) => {
      // The failing import's error, not the bundle source Node prints around it.
      const lines = (error.stderr ?? String(error)).split('\n').filter((line) => line.length < 400);
      throw new Error(lines.slice(-12).join('\n'));
    });
    const { stdout } = await loaded;
    expect(stdout.trim().split('\n')).toEqual(
      zipped.map((definition) => `${definition.exportName ?? 'handler'}:function`),
    );
    expect(zipped.some((definition) => definition.module === 'videos/render-steps')).toBe(true);
  }, 60_000);
});
