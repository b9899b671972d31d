/**
 * The web console in a real browser (headless Chromium), against the local stack that serves it:
 * sign-in with an API key (the warning shown once), the videos grid, creating a video and watching
 * it complete with its player and captions, a direct upload, a webhook redelivery, the usage chart.
 * Each page is checked for unlabelled controls. With `CONSOLE_SCREENSHOTS=1` the run uses the real
 * engines (real thumbnails, previews and video) and writes each page as the README's screenshot
 * (docs/images/console-*.png); otherwise it writes nothing, so a test run leaves the checkout as it was.
 */
import { mkdir } from 'node:fs/promises';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { collectPageProblems, launchBrowser, unlabelledControls, VIEWPORT } from '../support/browser.js';
import { png } from '../support/sample-media.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const SCREENSHOTS = new URL('../../docs/images/', import.meta.url);
const WRITE_SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS === '1';

let api: TestStack;
let browser: Browser;
let page: Page;
let problems: string[];
let receiver: WebhookReceiver;

async function screenshot(name: string) {
  if (!WRITE_SCREENSHOTS) return;
  await page.screenshot({ path: new URL(`console-${name}.png`, SCREENSHOTS).pathname as `${string}.png` });
}

async function expectAccessible() {
  expect(await unlabelledControls(page)).toEqual([]);
}

/** Opens a page of the console by its hash and waits for its heading. */
async function open(hash: string, heading: string) {
  await page.goto(`${api.baseUrl}/console/#/${hash}`);
  await page.waitForSelector(heading);
}

const textOf = (selector: string) => page.$eval(selector, (node) => node.textContent ?? '');
const attributeOf = (selector: string, name: string) =>
  page.$eval(
    selector,
    (node, attribute) =>
      attribute === 'src' ? (node as unknown as { src: string }).src : (node.getAttribute(attribute) ?? ''),
    name,
  );
const inputValue = (selector: string) =>
  page.$eval(selector, (node) => (node as unknown as { value: string }).value);

beforeAll(async () => {
  [api, browser] = await Promise.all([
    startTestStack({
      engines: WRITE_SCREENSHOTS ? 'reference' : 'doubles',
      stepFunctionsTimeScale: 0.001,
      // The webhook receiver listens on loopback.
      allowLoopbackUrls: true,
      environment: { CONSOLE_POLL_INTERVAL_MS: '250', WEBHOOK_TIMEOUT_MS: '2000' },
    }),
    launchBrowser(),
  ]);
  receiver = await startReceiver();
  if (WRITE_SCREENSHOTS) await mkdir(SCREENSHOTS, { recursive: true });
  page = await browser.newPage();
  problems = collectPageProblems(page);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.stop();
  await api?.stop();
});

// A failed step says what the page showed.
beforeEach(() => {
  onTestFailed(async () => {
    const shown = await page
      .$eval('body', (body) => (body as unknown as { innerText: string }).innerText)
      .catch(String);
    console.error(`The page showed:\n${shown}\nProblems: ${problems.join('\n')}`);
  });
});

describe('console', () => {
  it('serves its files without credentials, under its Content-Security-Policy', async () => {
    const page = await fetch(`${api.baseUrl}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await page.text()).toMatch(
      /<script type="module" src="\/console\/main-[A-Z0-9]{8}\.js"><\/script>/,
    );
    const bare = await fetch(`${api.baseUrl}/console`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([301, '/console/']);
    expect((await fetch(`${api.baseUrl}/console/missing.js`)).status).toBe(404);
    expect((await fetch(`${api.baseUrl}/console/`, { method: 'POST' })).status).toBe(405);
    // The API beside it still asks for credentials.
    expect((await fetch(`${api.baseUrl}/v3/videos`)).status).toBe(401);
  });

  it('signs in with a pasted key after the warning about keys in browsers, shown once', async () => {
    await page.goto(`${api.baseUrl}/console/`);
    await page.waitForSelector('[role="alertdialog"]');
    expect(await page.$eval('#key-warning-title', (node) => node.textContent)).toContain(
      'API keys belong on servers',
    );
    await screenshot('sign-in');
    await expectAccessible();
    // By keyboard alone: Tab reaches the warning's button, with a visible focus ring; Enter accepts it
    // and submits the key.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('I understand');
    expect(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#api-key');
    await page.focus('#api-key');
    await page.keyboard.type(api.apiKey);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#videos-title');
    expect(await page.evaluate('sessionStorage.length')).toBeGreaterThan(0);
    expect(await page.evaluate('localStorage.length')).toBe(0);

    // Signed out and back in within the tab: the warning is not shown again.
    await page.click('.top-bar button');
    await page.waitForSelector('#api-key');
    expect(await page.$('[role="alertdialog"]')).toBeNull();
    await page.type('#api-key', api.apiKey);
    await page.click('button[type="submit"]');
    await page.waitForSelector('#videos-title');
    expect(problems).toEqual([]);
  });

  it('adds a webhook endpoint and reveals its secret once', async () => {
    await open('webhooks', '#webhooks-title');
    await page.type('#endpoint-url', receiver.url);
    await page.click('form button[type="submit"]');
    await page.waitForSelector('[data-secret]');
    const secret = await textOf('[data-secret]');
    expect(secret).toMatch(/^whsec_/);
    const endpoints = await api.call<{ data: { url: string; secret: string | null }[] }>(
      'GET',
      '/v3/webhooks/endpoints',
    );
    expect(endpoints.body.data).toEqual([expect.objectContaining({ url: receiver.url, secret: null })]);

    // Rotation reveals a new secret, once.
    await page.click('[data-secret] ~ .row button:last-child');
    await page.waitForFunction("!document.querySelector('[data-secret]')");
    const rotate = await page.waitForSelector('::-p-text(Rotate secret)');
    await rotate?.click();
    await page.waitForSelector('[data-secret]');
    expect(await textOf('[data-secret]')).not.toBe(secret);
    await expectAccessible();
  });

  it('creates a video and shows its progress, then the finished video with thumbnail, player and captions', async () => {
    await open('videos/new', '#create-title');
    await page.waitForSelector('.look input[type="radio"]');
    await screenshot('create-video');
    await expectAccessible();
    const looks = await page.$$('.look');
    await looks[1]?.click();
    const lookId = await inputValue('.look input:checked');
    const voiceId = await inputValue('#voice option:nth-child(2)');
    await page.select('#voice', voiceId);
    await page.type('#title', 'Console launch');
    await page.type('#script', 'Welcome to the console. Every video starts here.');
    await page.click('form button[type="submit"]');

    // The grid shows it at once, running, with its progress bar; then completed with its thumbnail.
    await page.waitForSelector('.card .job-progress');
    const card = await page.waitForSelector('.card[data-status="completed"] img.thumbnail', {
      timeout: 30_000,
    });
    await page.waitForFunction(
      (image) => (image as unknown as { naturalWidth: number }).naturalWidth > 0,
      {},
      card,
    );
    expect(await textOf('.card .card-title')).toBe('Console launch');
    await screenshot('videos');
    await expectAccessible();

    const videoId = await attributeOf('.card', 'data-video-id');
    const stored = await api.call<{ data: { status: string; title: string; subtitle_url: string | null } }>(
      'GET',
      `/v3/videos/${videoId}`,
    );
    expect(stored.body.data).toMatchObject({ status: 'completed', title: 'Console launch' });
    expect(stored.body.data.subtitle_url).not.toBeNull();
    const scenes = await api.call<{
      data: { scenes: { character?: { avatar_id?: string }; script?: { voice_id?: string } }[] };
    }>('GET', `/v3/videos/${videoId}/scenes`);
    expect(JSON.stringify(scenes.body)).toContain(lookId);
    expect(JSON.stringify(scenes.body)).toContain(voiceId);

    // The player, with the captions track built from the SRT and its cues loaded.
    await page.click('.card-link');
    await page.waitForSelector('video track[kind="captions"]');
    await page.waitForFunction("(document.querySelector('video')?.textTracks[0]?.cues?.length ?? 0) > 0");
    expect(await attributeOf('video track', 'src')).toMatch(/^blob:/);
    await screenshot('video-player');
    await expectAccessible();
  });

  it('lists the delivery with its attempt, and redelivers it as a new attempt', async () => {
    await receiver.waitFor(1, 30_000);
    await open('webhooks', '#webhooks-title');
    await page.waitForSelector('[data-event-id] button');
    await page.click('[data-event-id] button');
    await page.waitForSelector('[data-delivery-id] [data-attempt]');
    expect(await textOf('[data-delivery-id] [data-attempt] td:nth-child(3)')).toBe('200');
    const redeliver = await page.waitForSelector('::-p-text(Redeliver to endpoint)');
    await redeliver?.click();
    await page.waitForFunction("document.querySelectorAll('[data-delivery-id] [data-attempt]').length === 2");
    await receiver.waitFor(2, 30_000);
    const eventId = await attributeOf('[data-event-id]', 'data-event-id');
    const event = await api.call<{ data: { deliveries: { trigger: string; attempts: unknown[] }[] } }>(
      'GET',
      `/v3/webhooks/events/${eventId}`,
    );
    expect(event.body.data.deliveries).toHaveLength(2);
    await screenshot('webhooks');
    await expectAccessible();
  });

  it('uploads assets through the file input and by dropping a file, with progress', async () => {
    await open('assets', '#assets-title');
    const input = await page.waitForSelector('#asset-file');
    // The upload's progress bar may show for a moment only (small files, loopback): record it when it does.
    await page.evaluate(`(() => {
      window.uploadProgressSeen = 0;
      new MutationObserver(() => {
        if (document.querySelector('progress.upload-progress')) window.uploadProgressSeen += 1;
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    })()`);
    const file = new URL('console-upload.png', SCREENSHOTS).pathname;
    await (await import('node:fs/promises')).writeFile(file, png(64, 64, [20, 120, 200]));
    try {
      await (input as unknown as { uploadFile(path: string): Promise<void> }).uploadFile(file);
      await page.waitForSelector('::-p-text(console-upload.png is uploaded.)');
    } finally {
      await (await import('node:fs/promises')).rm(file, { force: true });
    }
    // A drop of a file the page builds (what a drag from the desktop delivers).
    const pngBytes = [...png(32, 32, [200, 120, 20])];
    await page.evaluate(`(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(${JSON.stringify(pngBytes)})], 'dropped.png', { type: 'image/png' }));
      document
        .querySelector('[data-drop-zone]')
        .dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    })()`);
    await page.waitForSelector('::-p-text(dropped.png is uploaded.)');
    await page.waitForFunction("document.querySelectorAll('[data-asset-id]').length === 2");
    expect(await page.evaluate('window.uploadProgressSeen')).toBeGreaterThan(0);
    const assets = await api.call<{ data: { name: string; status: string }[] }>('GET', '/v3/assets');
    expect(
      assets.body.data
        .map(({ name, status }) => ({ name, status }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    ).toEqual([
      { name: 'console-upload.png', status: 'ready' },
      { name: 'dropped.png', status: 'ready' },
    ]);
    await screenshot('assets');
    await expectAccessible();
  });

  it('charts usage per day and job type, with the numbers GET /v3/usage gives', async () => {
    await open('usage', '#usage-title');
    await page.waitForSelector('.chart canvas');
    const usage = await api.call<{
      data: {
        credits: { remaining: number };
        usage: { totals: { credits_charged: number } };
        rate_limits: { rate_class: string }[];
        jobs: { job_type: string; running: number; queued: number; concurrency_limit: number }[];
      };
    }>('GET', '/v3/usage');
    expect(Number(await textOf('[data-total-credits]'))).toBe(usage.body.data.usage.totals.credits_charged);
    expect(Number(await textOf('[data-credits-remaining]'))).toBe(usage.body.data.credits.remaining);
    expect(
      await page.$$eval('[data-rate-class]', (rows) =>
        rows.map((row) => row.getAttribute('data-rate-class')),
      ),
    ).toEqual(usage.body.data.rate_limits.map((limit) => limit.rate_class));
    // Jobs in flight: a row per job type with its running, queued and limit; burst is off on this plan.
    const rows = await page.$$eval('table[aria-label="Jobs in flight"] tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)),
    );
    expect(rows).toEqual(
      usage.body.data.jobs.map((job) => [
        String(job.running),
        String(job.queued),
        String(job.concurrency_limit),
        'off',
      ]),
    );
    await screenshot('usage');
    await expectAccessible();
  });

  it('fits a phone screen: one column, nothing wider than the screen', async () => {
    await page.setViewport({ width: 390, height: 800 });
    try {
      await open('videos', '#videos-title');
      await page.waitForSelector('.card');
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await screenshot('mobile');
    } finally {
      await page.setViewport(VIEWPORT);
    }
  });

  it.each([
    ['jobs/translations', '#jobs-title', 'jobs'],
    ['templates', '#templates-title', 'templates'],
    ['avatars', '#avatars-voices-title', 'avatars-voices'],
  ])('shows %s with every control labelled', async (hash, heading, name) => {
    await open(hash, heading);
    await page.waitForFunction(`!document.querySelector('main [aria-live="polite"].muted')`);
    await screenshot(name);
    await expectAccessible();
    expect(problems).toEqual([]);
  });
});
