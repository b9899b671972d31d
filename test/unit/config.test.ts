/**
 * Boolean settings: every on/off variable reads the same words, and a value that is none of them stops
 * the service instead of being taken as off.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { config, parseBooleanSetting, resetConfig } from '../../lambdas/core/config.js';

const BOOLEAN_SETTINGS = [
  ['ALLOW_LOOPBACK_URLS', 'allowLoopbackUrls'],
  ['S3_FORCE_PATH_STYLE', 's3ForcePathStyle'],
] as const;
const TRUE_WORDS = ['1', 'true', 'TRUE', 'True', 'yes', 'YES', 'on', 'On', ' true '];
const FALSE_WORDS = ['0', 'false', 'FALSE', 'no', 'No', 'off', 'OFF', ''];
const NOT_BOOLEAN = ['maybe', '2', 'enabled', 'y', 'truee', '__proto__', 'constructor'];

const saved = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
  resetConfig();
});

function configWith(environment: Record<string, string>) {
  Object.assign(process.env, { TABLE_NAME: 'table' }, environment);
  resetConfig();
  return config();
}

describe('boolean settings', () => {
  describe.each(BOOLEAN_SETTINGS)('%s', (variable, field) => {
    it.each(TRUE_WORDS)('"%s" turns it on', (word) => {
      expect(configWith({ [variable]: word })[field]).toBe(true);
    });

    it.each(FALSE_WORDS)('"%s" turns it off', (word) => {
      expect(configWith({ [variable]: word })[field]).toBe(false);
    });

    it('is off when unset', () => {
      delete process.env[variable];
      expect(configWith({})[field]).toBe(false);
    });

    it.each(NOT_BOOLEAN)('refuses "%s", naming the variable', (word) => {
      expect(() => configWith({ [variable]: word })).toThrow(
        `Environment variable ${variable} must be one of 1/0, true/false, yes/no, on/off, got "${word}"`,
      );
    });
  });

  it('ALLOW_TEST_DOUBLE_ENGINES reads the same words', () => {
    expect(configWith({ SPEECH_ENGINE: 'test-double', ALLOW_TEST_DOUBLE_ENGINES: '1' }).speechEngine).toBe(
      'test-double',
    );
    expect(() => configWith({ SPEECH_ENGINE: 'test-double', ALLOW_TEST_DOUBLE_ENGINES: 'off' })).toThrow(
      /an engine for tests only/,
    );
    expect(() => configWith({ SPEECH_ENGINE: 'test-double', ALLOW_TEST_DOUBLE_ENGINES: 'sure' })).toThrow(
      /ALLOW_TEST_DOUBLE_ENGINES must be one of/,
    );
  });

  it('keeps the fallback for an unset or empty value', () => {
    expect(parseBooleanSetting('X', undefined, true)).toBe(true);
    expect(parseBooleanSetting('X', '  ', true)).toBe(true);
    expect(parseBooleanSetting('X', 'no', true)).toBe(false);
  });

  it('npm start refuses an unreadable ALLOW_LOOPBACK_URLS with one line naming it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'serve-config-'));
    try {
      const failure = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bin/serve.ts'], {
        env: { ...process.env, ALLOW_LOOPBACK_URLS: 'maybe', DATA_DIR: dataDir, PORT: '0' },
        timeout: 60_000,
      }).then(
        () => undefined,
        (error: { code?: number; stderr?: string }) => error,
      );
      expect(failure?.code).toBe(1);
      expect(failure?.stderr).toContain(
        'Cannot start: Environment variable ALLOW_LOOPBACK_URLS must be one of 1/0, true/false, yes/no, on/off, got "maybe"',
      );
      expect(failure?.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
