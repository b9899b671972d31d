import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { App, Stack } from 'aws-cdk-lib';
import { InlineCode } from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_OPERATION_ID_VARIABLE } from '../../lambdas/core/config.js';
import { HandlerBundles } from '../../lib/stack/handler-bundles.js';
import { areaBundleEntry } from '../../lib/stack/route-plan.js';
import { PROJECT_ROOT } from './synth-helpers.js';

const outdirs: string[] = [];
afterAll(() => {
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

/**
 * Runs an ES module script in a plain Node process (as Lambda loads bundles; vitest's own module runner
 * would transform the bundle first), with `url` as `process.argv[2]`; returns what it prints.
 */
async function runInNode(
  script: string,
  url: string,
  extraEnv: Record<string, string> = {},
): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'handler-bundles-script-'));
  outdirs.push(dir);
  // A file, not `--eval`: worker threads inherit the process's flags, and `--input-type` breaks them.
  const file = path.join(dir, 'script.mjs');
  writeFileSync(file, script);
  const { NODE_OPTIONS: _, ...env } = process.env;
  const { stdout } = await promisify(execFile)(process.execPath, [file, url], {
    cwd: dir,
    env: { ...env, ...extraEnv },
  });
  return stdout.trim();
}

function appIn(context: Record<string, unknown> = {}): App {
  const outdir = mkdtempSync(path.join(tmpdir(), 'handler-bundles-'));
  outdirs.push(outdir);
  return new App({ outdir, context, builtinCloudFormationValidation: false });
}

describe('HandlerBundles', () => {
  // The one esbuild run: a small area's generated entry, and the speech engine selection module (its
  // eSpeak engine starts a worker thread).
  let app: App;
  let stack: Stack;
  let bundles: HandlerBundles;
  const SPEECH = 'engines/speech/index';
  const AREA = 'api/meta';
  beforeAll(() => {
    app = appIn();
    stack = new Stack(app, 'Bundles');
    bundles = new HandlerBundles(stack, 'Bundles', {
      projectRoot: PROJECT_ROOT,
      modules: [SPEECH],
      generatedEntries: { [AREA]: areaBundleEntry(PROJECT_ROOT, 'meta') },
    });
  });

  it('bundles a generated entry into <assembly>/.bundles/<name>/index.mjs that exports the handler', async () => {
    const bundle = path.join(app.outdir, '.bundles', AREA, 'index.mjs');
    expect(existsSync(bundle)).toBe(true);
    const loaded = await runInNode(
      'const m = await import(process.argv[2]); console.log(typeof m.handler);',
      pathToFileURL(bundle).href,
      { [ROUTE_OPERATION_ID_VARIABLE]: 'OpenApiGet' },
    );
    expect(loaded).toBe('function');
    // The function's environment must name a row of the area: the bundle refuses to load otherwise.
    await expect(
      runInNode('await import(process.argv[2]);', pathToFileURL(bundle).href, {
        [ROUTE_OPERATION_ID_VARIABLE]: 'FolderList',
      }),
    ).rejects.toThrow(/names no row of this area/);

    // Functions sharing an entry share its code within a stack; an asset cannot span stacks.
    const code = bundles.codeFor(stack, AREA);
    expect(bundles.codeFor(stack, AREA)).toBe(code);
    expect(bundles.codeFor(new Stack(app, 'Other'), AREA)).not.toBe(code);
  });

  it('puts the eSpeak worker and its package beside every bundle that starts it, and only there', () => {
    const speech = path.join(app.outdir, '.bundles', SPEECH);
    const emscripten = path.join(speech, 'node_modules/@echogarden/espeak-ng-emscripten');
    expect(readdirSync(speech).sort()).toEqual(['espeak-worker.mjs', 'index.mjs', 'node_modules']);
    expect(readdirSync(emscripten).sort()).toEqual([
      'COPYING',
      'README.md',
      'espeak-ng.data',
      'espeak-ng.js',
      'package.json',
    ]);
    expect(statSync(path.join(emscripten, 'espeak-ng.data')).size).toBeGreaterThan(20_000_000);
    expect(readdirSync(path.join(app.outdir, '.bundles', AREA))).toEqual(['index.mjs']);
    expect(readdirSync(path.join(app.outdir, '.bundles')).sort()).toEqual(['api', 'engines']);
  });

  it('runs the bundled eSpeak engine from the bundle alone (its worker, package and data)', async () => {
    // The assembly is in the OS temporary directory: nothing outside the bundle can be resolved.
    const bundle = path.join(app.outdir, '.bundles', SPEECH, 'index.mjs');
    const script = `
      const { createSpeechEngine } = await import(process.argv[2]);
      const engine = createSpeechEngine('espeak');
      const result = await engine.synthesize({ text: 'Hello bundle', voiceId: 'espeak-en-us-m1' });
      await engine.close();
      console.log(JSON.stringify({ words: result.words.map((word) => word.word), durationMs: result.durationMs }));
    `;
    const result = JSON.parse(await runInNode(script, pathToFileURL(bundle).href)) as {
      words: string[];
      durationMs: number;
    };
    expect(result.words).toEqual(['Hello', 'bundle']);
    expect(result.durationMs).toBeGreaterThan(300);
  });

  it('hands out a placeholder when bundling is skipped, and only for declared entries', () => {
    const skipped = appIn({ 'aws:cdk:bundling-stacks': [] });
    const stack = new Stack(skipped, 'Skipped');
    const bundles = new HandlerBundles(stack, 'Bundles', {
      projectRoot: PROJECT_ROOT,
      modules: ['api/authorizer'],
      generatedEntries: { [AREA]: areaBundleEntry(PROJECT_ROOT, 'meta') },
    });
    expect(bundles.codeFor(stack, 'api/authorizer')).toBeInstanceOf(InlineCode);
    expect(bundles.codeFor(stack, AREA)).toBeInstanceOf(InlineCode);
    expect(() => bundles.codeFor(stack, 'api/unknown')).toThrow(/not declared/);
  });

  it('refuses an entry module that does not exist', () => {
    const app = appIn({ 'aws:cdk:bundling-stacks': [] });
    const stack = new Stack(app, 'Missing');
    expect(
      () =>
        new HandlerBundles(stack, 'Bundles', { projectRoot: PROJECT_ROOT, modules: ['api/no-such-handler'] }),
    ).toThrow(/lambdas\/api\/no-such-handler\.ts does not exist/);
  });
});
