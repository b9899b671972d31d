import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { App, Stack } from 'aws-cdk-lib';
import { InlineCode } from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ICON_INDEX_FILE, iconIndexFromPackage } from '../../lambdas/catalog/icon-catalog.js';
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
  // The one esbuild run: a small area's generated entry, the speech engine selection module (its
  // eSpeak engine starts a worker thread), the assets area (its search reads the icon index) and the
  // asset search on its own (to run it).
  let app: App;
  let stack: Stack;
  let bundles: HandlerBundles;
  const SPEECH = 'engines/speech/index';
  const AREA = 'api/meta';
  const ASSETS_AREA = 'api/assets';
  const ASSET_SEARCH = 'catalog/asset-search';
  beforeAll(() => {
    app = appIn();
    stack = new Stack(app, 'Bundles');
    bundles = new HandlerBundles(stack, 'Bundles', {
      projectRoot: PROJECT_ROOT,
      modules: [SPEECH, ASSET_SEARCH],
      generatedEntries: {
        [AREA]: areaBundleEntry(PROJECT_ROOT, 'meta'),
        [ASSETS_AREA]: areaBundleEntry(PROJECT_ROOT, 'assets'),
      },
    });
  }, 60_000);

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
    expect(readdirSync(path.join(app.outdir, '.bundles')).sort()).toEqual(['api', 'catalog', 'engines']);
  });

  it('gives the assets area the icon index the search reads, and neither the package nor sharp', () => {
    const assets = path.join(app.outdir, '.bundles', ASSETS_AREA);
    expect(readdirSync(assets).sort()).toEqual(['index.mjs', ICON_INDEX_FILE]);
    const index = path.join(assets, ICON_INDEX_FILE);
    expect(JSON.parse(readFileSync(index, 'utf8'))).toEqual(iconIndexFromPackage());
    // The index, not the package's 51 MB of SVGs and JSON.
    expect(statSync(index).size).toBeLessThan(1_000_000);
    // The search only presigns: nothing draws an icon in a zip function.
    const code = readFileSync(path.join(assets, 'index.mjs'), 'utf8');
    expect(code).toContain('tabler-icons-index.json');
    expect(code).not.toContain('renderIconPng');
    expect(code).not.toContain('Could not load the "sharp" module');
    // Bundles that do not search icons go without it.
    expect(readdirSync(path.join(app.outdir, '.bundles', AREA))).toEqual(['index.mjs']);
  });

  it('answers a public icon search from the bundle alone, presigning what the catalog publisher published', async () => {
    // The assembly is in the OS temporary directory: no node_modules (and no @tabler/icons) up the tree.
    const bundle = path.join(app.outdir, '.bundles', ASSET_SEARCH, 'index.mjs');
    const script = `
      const { searchAssets } = await import(process.argv[2]);
      const page = await searchAssets('workspace', { query: 'rocket', type: 'icon', scope: 'public', limit: 50 });
      console.log(JSON.stringify(page));
    `;
    const page = JSON.parse(
      await runInNode(script, pathToFileURL(bundle).href, {
        TABLE_NAME: 'unused',
        BUCKET_NAME: 'media-bucket',
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
        AWS_SECRET_ACCESS_KEY: 'secret',
        // Nothing listens there: a search that called S3 (to check or upload an icon) would fail.
        AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9',
      }),
    ) as { items: { id: string; url: string; svg_url: string; width: number }[]; nextToken: string | null };
    expect(page.items[0]).toMatchObject({ id: 'tabler-rocket', width: 512 });
    expect(page.nextToken).toBeNull();
    const { version } = iconIndexFromPackage();
    const png = new URL(page.items[0]?.url ?? '');
    expect(png.pathname).toBe(`/media-bucket/catalog/icons/tabler/${version}/outline/rocket-512.png`);
    expect(png.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(new URL(page.items[0]?.svg_url ?? '').pathname).toBe(
      `/media-bucket/catalog/icons/tabler/${version}/outline/rocket.svg`,
    );
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
