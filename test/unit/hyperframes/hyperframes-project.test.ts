/**
 * What a HyperFrames render checks before it renders, and what it serves instead of the network: the
 * project zip's checks (hyperframes-project.ts) over seeded random zips, the composition root's size,
 * the frame rules (render-size.ts), and which CDN URLs of GSAP are answered from the `gsap` package.
 */
import '../../support/property-seed.js';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { authoredComposition } from '../../../lambdas/engines/hyperframes/composition-root.js';
import { vendoredScript } from '../../../lambdas/engines/hyperframes/offline-network.js';
import { renderFailure } from '../../../lambdas/engines/hyperframes/producer-engine.js';
import {
  checkProjectZip,
  readProjectEntry,
  unpackProject,
} from '../../../lambdas/hyperframes/hyperframes-project.js';
import { renderSize } from '../../../lambdas/hyperframes/render-size.js';

const LIMITS = { maxZipBytes: 1024 * 1024, maxUnpackedBytes: 4 * 1024 * 1024, maxFiles: 50 };
const bytes = (text: string) => new TextEncoder().encode(text);
const segment = fc.stringMatching(/^[a-z0-9_-]{1,8}$/);

describe('the project zip checks', () => {
  it('accept any zip of plain relative files, and unpack exactly them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(
          fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => `${parts.join('/')}.txt`),
          {
            minLength: 1,
            maxLength: 8,
          },
        ),
        async (names) => {
          const files = Object.fromEntries([
            ['index.html', bytes('<div></div>')],
            ...names.map((name) => [name, bytes(name)]),
          ]);
          const zip = zipSync(files);
          expect(
            checkProjectZip(zip, 'index.html', LIMITS).filter((entry) => !entry.isDirectory),
          ).toHaveLength(Object.keys(files).length);
          const directory = await mkdtemp(path.join(tmpdir(), 'hf-unpack-'));
          try {
            await unpackProject(zip, 'index.html', directory, LIMITS);
            for (const name of names) expect(await readFile(path.join(directory, name), 'utf8')).toBe(name);
            expect((await readdir(directory)).every((entry) => !entry.startsWith('..'))).toBe(true);
          } finally {
            await rm(directory, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('refuse any entry that leaves the project, naming it', () => {
    fc.assert(
      fc.property(
        fc.array(segment, { maxLength: 2 }),
        fc.constantFrom('../', '/', 'C:/', '..\\', 'a/../../'),
        (parts, leavingPrefix) => {
          const name = `${leavingPrefix}${[...parts, 'x.txt'].join('/')}`;
          const zip = zipSync({ 'index.html': bytes('<div></div>'), [name]: bytes('x') });
          expect(() => checkProjectZip(zip, 'index.html', LIMITS)).toThrow(name);
        },
      ),
    );
  });

  it('refuse a declared unpacked size over the limit before inflating anything', () => {
    const zip = zipSync({
      'index.html': bytes('<div></div>'),
      'big.txt': new Uint8Array(LIMITS.maxUnpackedBytes + 1),
    });
    expect(zip.length).toBeLessThan(LIMITS.maxZipBytes);
    expect(() => checkProjectZip(zip, 'index.html', LIMITS)).toThrow(/unpacks to 4\.0 MiB/);
  });

  it('find the composition under a folder, and read it', () => {
    const zip = zipSync({ 'scenes/main.html': bytes('<b>hi</b>') });
    expect(new TextDecoder().decode(readProjectEntry(zip, 'scenes/main.html'))).toBe('<b>hi</b>');
    expect(() => checkProjectZip(zip, 'index.html', LIMITS)).toThrow(/index\.html is not in the project zip/);
  });
});

describe('the composition root and the frame', () => {
  it('reads the root as HyperFrames does, its defaults included', () => {
    expect(
      authoredComposition(
        `<html><div id=x data-composition-id='main' data-width="960" data-height=540 data-duration="2.5"><div data-width="10"></div>`,
      ),
    ).toEqual({ width: 960, height: 540, durationSeconds: 2.5 });
    expect(authoredComposition('<p>no root</p>')).toEqual({
      width: 1080,
      height: 1920,
      durationSeconds: null,
    });
  });

  it('scales up by whole factors only, and names the field that does not fit', () => {
    expect(renderSize({ width: 960, height: 540, durationSeconds: 1 }, '4k', '16:9', 'index.html')).toEqual({
      width: 3840,
      height: 2160,
      outputPreset: 'landscape-4k',
    });
    expect(
      renderSize({ width: 1080, height: 1920, durationSeconds: 1 }, '1080p', '9:16', 'index.html'),
    ).toEqual({
      width: 1080,
      height: 1920,
      outputPreset: null,
    });
    expect(() =>
      renderSize({ width: 3840, height: 2160, durationSeconds: 1 }, '1080p', '16:9', 'i.html'),
    ).toThrow(/whole factor/);
    expect(() =>
      renderSize({ width: 1000, height: 1000, durationSeconds: 1 }, '1080p', '16:9', 'i.html'),
    ).toThrow(/authored at 1000×1000 \(1:1\)/);
  });
});

describe('the GSAP served for CDN URLs', () => {
  it('answers jsDelivr, cdnjs and unpkg URLs of GSAP 3 from the package, and nothing else', async () => {
    const gsap = await readFile(
      vendoredScript('https://cdn.jsdelivr.net/npm/gsap@3.12.5/dist/gsap.min.js') as string,
      'utf8',
    );
    expect(gsap).toContain('GSAP 3.15.0');
    expect(vendoredScript('https://cdnjs.cloudflare.com/ajax/libs/gsap/3.11.0/ScrollTrigger.min.js')).toMatch(
      /gsap\/dist\/ScrollTrigger\.min\.js$/,
    );
    expect(vendoredScript('https://unpkg.com/gsap@3/dist/gsap.min.js?v=1')).toMatch(/gsap\.min\.js$/);
    expect(vendoredScript('https://unpkg.com/gsap/dist/gsap.js')).toMatch(/gsap\.js$/);
    for (const url of [
      'https://cdn.jsdelivr.net/npm/gsap@2.1.3/dist/gsap.min.js',
      'https://cdn.jsdelivr.net/npm/gsap@3/dist/../package.json',
      'https://cdn.jsdelivr.net/npm/gsap@3/dist/NoSuchPlugin.min.js',
      'https://evil.example/npm/gsap@3/dist/gsap.min.js',
      'https://cdn.jsdelivr.net/npm/lottie-web@5/build/player/lottie.min.js',
    ])
      expect(vendoredScript(url), url).toBeUndefined();
  });
});

describe('why a render failed', () => {
  const quiet = { record: { blocked: [], served: [] }, timedOut: false, timeoutMs: 840_000 };

  it('says Chromium could not start, with the reason puppeteer gave (the messages the producer passes on)', () => {
    for (const message of [
      'Failed to launch the browser process:  Code: 1\n\nstderr:\n',
      'Browser was not found at the configured executablePath (/tmp/chromium)',
      'Failed to launch the browser process! /tmp/chromium: error while loading shared libraries: libnss3.so',
    ]) {
      const failure = renderFailure(new Error(message), quiet);
      expect(failure.failureCode).toBe('engine_unavailable');
      expect(failure.message).toContain(message.split('\n')[0]?.trim());
    }
  });

  it('names the blocked URLs whatever the producer threw after the abort, then the deadline, then the composition', () => {
    const blocked = renderFailure(new Error('Render cancelled'), {
      ...quiet,
      record: { blocked: ['https://example.com/x.png', 'https://fonts.example'], served: [] },
    });
    expect(blocked.failureCode).toBe('composition_network_blocked');
    expect(blocked.message).toContain('https://example.com/x.png, https://fonts.example');
    expect(renderFailure(new Error('Render cancelled'), { ...quiet, timedOut: true }).failureCode).toBe(
      'hyperframes_render_timeout',
    );
    const script = renderFailure(
      new Error('[FrameCapture] composition script error: main ReferenceError: gsap'),
      quiet,
    );
    expect(script.failureCode).toBe('composition_render_failed');
    expect(script.message).toContain('ReferenceError: gsap');
  });
});
