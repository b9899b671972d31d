/**
 * A real headless Chromium for browser tests: the one `@sparticuz/chromium` ships (unpacked by
 * chromium-runtime.ts, as the HyperFrames engine does), driven with puppeteer-core. Its libraries and
 * fonts come in through the environment. Web security stays on (the package's own Lambda flags turn
 * it off): a test must see what a user's browser enforces (CORS, the Content-Security-Policy).
 */
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { chromiumInstall } from '../../lambdas/engines/hyperframes/chromium-runtime.js';

export const VIEWPORT = { width: 1280, height: 800 } as const;

export async function launchBrowser(): Promise<Browser> {
  const chromium = await chromiumInstall();
  return puppeteer.launch({
    executablePath: chromium.executable,
    headless: 'shell',
    defaultViewport: VIEWPORT,
    env: {
      ...process.env,
      LD_LIBRARY_PATH: [chromium.libraryPath, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'),
      FONTCONFIG_PATH: chromium.fontConfigPath,
      // Chromium takes its locale from LANG; a bare system's `C` gives an invalid tag (`en-US@posix`).
      LANG: 'en_US.UTF-8',
    },
    args: [
      '--no-sandbox',
      '--no-zygote',
      '--disable-dev-shm-usage',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
      '--autoplay-policy=no-user-gesture-required',
      '--font-render-hinting=none',
      '--lang=en-US',
    ],
  });
}

/** Fails the test on what a user would see as a broken page: uncaught errors and CSP violations. */
export function collectPageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) =>
    problems.push(`page error: ${error instanceof Error ? error.message : String(error)}`),
  );
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/.test(message.text()))
      problems.push(`console: ${message.text()}`);
  });
  return problems;
}

/**
 * Inputs, selects, textareas and buttons without an accessible name, as the accessibility tree
 * computes it (labels, aria-label, aria-labelledby, button text).
 */
export async function unlabelledControls(page: Page): Promise<string[]> {
  const snapshot = await page.accessibility.snapshot({ interestingOnly: false });
  const roles = new Set([
    'textbox',
    'combobox',
    'checkbox',
    'radio',
    'button',
    'slider',
    'spinbutton',
    'listbox',
    'searchbox',
  ]);
  const unnamed: string[] = [];
  const visit = (node: { role?: string; name?: string; children?: unknown[] } | null) => {
    if (!node) return;
    if (node.role && roles.has(node.role) && !node.name?.trim()) unnamed.push(node.role);
    for (const child of node.children ?? []) visit(child as typeof node);
  };
  visit(snapshot as never);
  return unnamed;
}
