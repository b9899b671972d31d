/**
 * The console as a browser receives it: the JavaScript of the first load stays within its budget
 * (300 KB compressed), the page runs no inline code (so its Content-Security-Policy can forbid it),
 * the TSX typechecks, and the captions conversion gives WebVTT a `<track>` accepts.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { srtToVtt } from '../../../console/src/captions.ts';
import { buildConsole, type ConsoleBuild } from '../../../lib/console/build-console.js';

/** What the first page costs to download, compressed (the budget). */
const FIRST_LOAD_GZIP_BUDGET_BYTES = 300 * 1024;

let consoleBuild: ConsoleBuild;

beforeAll(async () => {
  consoleBuild = await buildConsole({ mediaOrigins: ['https://media.example.com'] });
});

const file = (name: string) => {
  const found = consoleBuild.files.find((candidate) => candidate.path === name);
  if (!found) throw new Error(`no ${name} in the build`);
  return found;
};

describe('console bundle', () => {
  it('loads at most 300 KB of compressed JavaScript before the first page shows', () => {
    const scripts = consoleBuild.firstLoadScripts.map((name) => file(name).body);
    const raw = scripts.reduce((total, body) => total + body.length, 0);
    const gzip = scripts.reduce((total, body) => total + gzipSync(body, { level: 9 }).length, 0);
    console.info(`Console first-load JS: ${raw} bytes raw, ${gzip} bytes gzip (${scripts.length} files)`);
    expect(gzip).toBeLessThanOrEqual(FIRST_LOAD_GZIP_BUDGET_BYTES);
    // The chart library is not part of it: it comes with the usage page.
    const firstLoad = consoleBuild.firstLoadScripts
      .map((name) => Buffer.from(file(name).body).toString('utf8'))
      .join('');
    expect(firstLoad).not.toContain('uplot');
  });

  it('has a page with no inline script or style, under a CSP that forbids them', () => {
    const html = Buffer.from(file('index.html').body).toString('utf8');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|style=/);
    for (const name of consoleBuild.firstLoadScripts) expect(html).toContain(`/console/${name}`);
    expect(consoleBuild.contentSecurityPolicy).toContain("script-src 'self';");
    expect(consoleBuild.contentSecurityPolicy).not.toContain('unsafe');
    expect(consoleBuild.contentSecurityPolicy).toContain('https://media.example.com');
  });

  it('names every script and stylesheet by its content', () => {
    for (const built of consoleBuild.files.filter((candidate) => candidate.path !== 'index.html')) {
      expect(built.path).toMatch(/-[A-Z0-9]{8}\.(js|css)$/);
      expect(built.immutable).toBe(true);
    }
  });

  it('typechecks (its own tsconfig: DOM and JSX)', async () => {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const project = path.resolve(import.meta.dirname, '../../../console/tsconfig.json');
    await expect(promisify(execFile)(process.execPath, [tsc, '-p', project])).resolves.toBeDefined();
  }, 120_000);
});

describe('captions', () => {
  it('turns the SRT the API gives into WebVTT', () => {
    expect(srtToVtt('1\r\n00:00:00,000 --> 00:00:01,500\r\nHello there.\r\n')).toBe(
      'WEBVTT\n\n1\n00:00:00.000 --> 00:00:01.500\nHello there.\n',
    );
  });
});
