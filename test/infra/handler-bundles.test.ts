import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import { InlineCode } from 'aws-cdk-lib/aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { HandlerBundles } from '../../lib/stack/handler-bundles.js';
import { PROJECT_ROOT } from './synth-helpers.js';

const outdirs: string[] = [];
afterAll(() => {
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

function appIn(context: Record<string, unknown> = {}): App {
  const outdir = mkdtempSync(path.join(tmpdir(), 'handler-bundles-'));
  outdirs.push(outdir);
  return new App({ outdir, context, builtinCloudFormationValidation: false });
}

describe('HandlerBundles', () => {
  // The one test that runs esbuild: a single small entry, to prove the bundle loads as an ES module.
  it('bundles an entry into <assembly>/.bundles/<module>/index.mjs that exports the handler', async () => {
    const app = appIn();
    const stack = new Stack(app, 'Bundles');
    const bundles = new HandlerBundles(stack, 'Bundles', {
      projectRoot: PROJECT_ROOT,
      modules: ['api/not-implemented'],
    });
    const bundle = path.join(app.outdir, '.bundles/api/not-implemented/index.mjs');
    expect(existsSync(bundle)).toBe(true);
    const loaded = (await import(pathToFileURL(bundle).href)) as { handler?: unknown };
    expect(typeof loaded.handler).toBe('function');

    // Functions sharing an entry share its code within a stack; an asset cannot span stacks.
    const code = bundles.codeFor(stack, 'api/not-implemented');
    expect(bundles.codeFor(stack, 'api/not-implemented')).toBe(code);
    expect(bundles.codeFor(new Stack(app, 'Other'), 'api/not-implemented')).not.toBe(code);
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
