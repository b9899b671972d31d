/**
 * The web console in a real browser (headless Chromium), against the local stack that serves it:
 * sign-in with an API key (the warning shown once), the videos grid, creating a video and watching
 * it complete with its player and captions, a direct upload, a webhook redelivery, the usage chart.
 * Each page is checked for unlabelled controls and written as a screenshot (docs/images).
 */
import { mkdir } from 'node:fs/promises';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectPageProblems, launchBrowser, unlabelledControls } from '../support/browser.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

const SCREENSHOTS = new URL('../../docs/images/', import.meta.url);

let api: TestStack;
let browser: Browser;
let page: Page;
let problems: string[];

async function screenshot(name: string) {
  await page.screenshot({ path: new URL(`console-${name}.png`, SCREENSHOTS).pathname as `${string}.png` });
}

async function expectAccessible() {
  expect(await unlabelledControls(page)).toEqual([]);
}

beforeAll(async () => {
  [api, browser] = await Promise.all([
    startTestStack({
      stepFunctionsTimeScale: 0.001,
      environment: { CONSOLE_POLL_INTERVAL_MS: '250', ALLOW_LOOPBACK_URLS: 'true' },
    }),
    launchBrowser(),
  ]);
  await mkdir(SCREENSHOTS, { recursive: true });
  page = await browser.newPage();
  problems = collectPageProblems(page);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await api?.stop();
});

describe('console', () => {
  it('signs in with a pasted key after the warning about keys in browsers, shown once', async () => {
    await page.goto(`${api.baseUrl}/console/`);
    await page.waitForSelector('[role="alertdialog"]');
    expect(await page.$eval('#key-warning-title', (node) => node.textContent)).toContain(
      'API keys belong on servers',
    );
    await screenshot('sign-in');
    await expectAccessible();
    await page.click('[role="alertdialog"] button');
    await page.type('#api-key', api.apiKey);
    await page.click('button[type="submit"]');
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
});
