/**
 * The Apertium engine runs a real child process: a stand-in `apertium` (a shell script in a temporary
 * directory) lists its pairs for `-l` and "translates" stdin by upper-casing it, so the spawning,
 * argument passing, stdin/stdout, exit codes and timeouts are exercised without Apertium installed.
 * Apertium itself is not installed here: the engine says which packages to install.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApertiumEngine } from '../../../lambdas/engines/translation/apertium-engine.js';

let directory = '';
let fakeApertium = '';
let slowApertium = '';
let failingApertium = '';

async function script(name: string, body: string): Promise<string> {
  const file = path.join(directory, name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'apertium-test-'));
  // Records its arguments, so the test sees exactly what was passed (no shell in between).
  fakeApertium = await script(
    'apertium',
    `echo "$@" >> "${directory}/calls.log"
if [ "$1" = "-l" ]; then printf 'en-es\\nes-en\\nen-ca\\n'; exit 0; fi
tr 'a-z' 'A-Z'`,
  );
  slowApertium = await script(
    'slow-apertium',
    `if [ "$1" = "-l" ]; then echo en-es; exit 0; fi\nexec sleep 5`,
  );
  failingApertium = await script(
    'failing-apertium',
    `if [ "$1" = "-l" ]; then echo en-es; exit 0; fi\necho "Error: mode not found" >&2; exit 1`,
  );
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('the Apertium engine', () => {
  it('translates each segment through the binary for the installed pair, glossary terms kept', async () => {
    const engine = createApertiumEngine({ path: fakeApertium, timeoutMs: 2000 });

    const result = await engine.translate({
      segments: ['Welcome to Acme Cloud; open the dashboard', '', 'bye'],
      sourceLanguage: 'en-US',
      targetLanguage: 'es',
      glossary: { doNotTranslate: ['Acme Cloud'], terms: [{ source: 'dashboard', target: 'panel' }] },
    });

    expect(result).toEqual({
      engine: 'apertium',
      segments: ['WELCOME TO Acme Cloud; OPEN THE panel', '', 'BYE'],
      glossaryViolations: [],
    });
    const { readFile } = await import('node:fs/promises');
    const calls = (await readFile(path.join(directory, 'calls.log'), 'utf8')).trim().split('\n');
    expect(calls).toEqual(['-l', '-u en-es', '-u en-es']);
  });

  it('names the package of a pair that is not installed', async () => {
    const engine = createApertiumEngine({ path: fakeApertium, timeoutMs: 2000 });
    await expect(
      engine.translate({ segments: ['Hello'], sourceLanguage: 'en', targetLanguage: 'fr' }),
    ).rejects.toMatchObject({
      failureCode: 'language_pair_unsupported',
      message:
        'Apertium has no en-fr pair installed (installed: en-ca, en-es, es-en): install it with `apt-get install apertium-en-fr`.',
    });
  });

  it('is unavailable when apertium is not installed, naming what to install', async () => {
    const engine = createApertiumEngine({ path: path.join(directory, 'no-such-apertium'), timeoutMs: 2000 });
    await expect(
      engine.translate({ segments: ['Hello'], sourceLanguage: 'en', targetLanguage: 'es' }),
    ).rejects.toMatchObject({
      failureCode: 'engine_unavailable',
      message: expect.stringContaining('Apertium is not installed'),
    });
    await expect(
      engine.translate({ segments: ['Hello'], sourceLanguage: 'en', targetLanguage: 'es' }),
    ).rejects.toMatchObject({
      message: expect.stringContaining('`apt-get install apertium apertium-en-es`, or set APERTIUM_PATH'),
    });
  });

  it('fails the translation when a run fails or outlives its deadline', async () => {
    await expect(
      createApertiumEngine({ path: failingApertium, timeoutMs: 2000 }).translate({
        segments: ['Hi'],
        sourceLanguage: 'en',
        targetLanguage: 'es',
      }),
    ).rejects.toMatchObject({
      failureCode: 'translation_failed',
      message: expect.stringContaining('exited with code 1: Error: mode not found'),
    });

    const started = performance.now();
    await expect(
      createApertiumEngine({ path: slowApertium, timeoutMs: 100 }).translate({
        segments: ['Hi'],
        sourceLanguage: 'en',
        targetLanguage: 'es',
      }),
    ).rejects.toMatchObject({
      failureCode: 'translation_failed',
      message: expect.stringContaining('did not finish within 100 ms'),
    });
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
