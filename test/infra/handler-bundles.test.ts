import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { App, Stack } from 'aws-cdk-lib';
import { InlineCode } from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HandlerBundles } from '../../lib/stack/handler-bundles.js';
import { PROJECT_ROOT } from './synth-helpers.js';

const outdirs: string[] = [];
afterAll(() => {
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

/**
 * Runs an ES module script in a plain Node process (as Lambda loads bundles; vitest's own module runner
 * would transform the bundle first), with `url` as `process.argv[2]`; returns what it prints.
 */
async function runInNode(script: string, url: string): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'handler-bundles-script-'));
  outdirs.push(dir);
  // A file, not `--eval`: worker threads inherit the process's flags, and `--input-type` breaks them.
  const file = path.join(dir, 'script.mjs');
  writeFileSync(file, script);
  const { NODE_OPTIONS: _, ...env } = process.env;
  const { stdout } = await promisify(execFile)(process.execPath, [file, url], { cwd: dir, env });
  return stdout.trim();
}

function appIn(context: Record<string, unknown> = {}): App {
  const outdir = mkdtempSync(path.join(tmpdir(), 'handler-bundles-'));
  outdirs.push(outdir);
  return new App({ outdir, context, builtinCloudFormationValidation: false });
}

describe('HandlerBundles', () => {
  // The one esbuild run: a small handler, and the speech engine selection module (its eSpeak engine
  // starts a worker thread).
  let app: App;
  let stack: Stack;
  let bundles: HandlerBundles;
  const SPEECH = 'engines/speech/index';
  beforeAll(() => {
    app = appIn();
    stack = new Stack(app, 'Bundles');
    bundles = new HandlerBundles(stack, 'Bundles', {
      projectRoot: PROJECT_ROOT,
      modules: ['api/not-implemented', SPEECH],
    });
  });

  it('bundles an entry into <assembly>/.bundles/<module>/index.mjs that exports the handler', async () => {
    const bundle = path.join(app.outdir, '.bundles/api/not-implemented/index.mjs');
    expect(existsSync(bundle)).toBe(true);
    const loaded = await runInNode(
      'const m = await import(process.argv[2]); console.log(typeof m.handler);',
      pathToFileURL(bundle).href,
    );
    expect(loaded).toBe('function');

    // Functions sharing an entry share its code within a stack; an asset cannot span stacks.
    const code = bundles.codeFor(stack, 'api/not-implemented');
    expect(bundles.codeFor(stack, 'api/not-implemented')).toBe(code);
    expect(bundles.codeFor(new Stack(app, 'Other'), 'api/not-implemented')).not.toBe(code);
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
    expect(readdirSync(path.join(app.outdir, '.bundles/api/not-implemented'))).toEqual(['index.mjs']);
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
      modules: ['api/not-implemented', 'api/authorizer'],
    });
    expect(bundles.codeFor(stack, 'api/not-implemented')).toBeInstanceOf(InlineCode);
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
