/**
 * No network at render time. HyperFrames reaches the network in two places, and both are closed here:
 *
 * 1. The producer's compiler, in Node, downloads what the composition names by URL before the page
 *    loads: it inlines `<script src="https://…">` (GSAP from a CDN, typically), and localises remote
 *    `<video>`, `<audio>`, `<img>`, CSS background images and `@font-face` files, all with the global
 *    `fetch`. The producer bundles its own puppeteer and offers no request hook, so `fetch` is what we
 *    can intercept: `withOfflineNetwork` runs a render with a `fetch` that, inside that render's async
 *    context only (AsyncLocalStorage; other work of the process is untouched), answers the known CDN
 *    URLs of GSAP from the `gsap` package and refuses everything else that is not local.
 * 2. The page itself, in Chromium, for requests its scripts make while it runs (`fetch()`, an image
 *    made in script). Chromium is started with `--proxy-server` pointing at a loopback proxy of the
 *    render (`startBlockingProxy`), which answers every request 403 and records it; loopback (the
 *    producer's file server) bypasses proxies. An HTTPS request shows the proxy only its host.
 *
 * Either way the render is stopped and fails `composition_network_blocked` naming what was asked.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:net';
import path from 'node:path';

/** The GSAP the renders serve (the `gsap` package; its major version must match the one asked for). */
const require = createRequire(import.meta.url);
function gsapDist(): { directory: string; major: string } {
  const main = require.resolve('gsap');
  const directory = path.dirname(main);
  const manifest = JSON.parse(readFileSync(path.join(directory, '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return { directory, major: manifest.version.split('.')[0] ?? '' };
}

/**
 * The CDN addresses of GSAP that compositions use: jsDelivr (`/npm/gsap@3.12.5/dist/gsap.min.js`),
 * cdnjs (`/ajax/libs/gsap/3.12.5/gsap.min.js`) and unpkg (`/gsap@3/dist/ScrollTrigger.min.js`).
 * Captures the version (optional) and the file under `dist/`.
 */
const GSAP_CDN_URLS = [
  /^https?:\/\/cdn\.jsdelivr\.net\/npm\/gsap(?:@([^/]+))?\/dist\/([A-Za-z0-9_.-]+\.js)$/,
  /^https?:\/\/cdnjs\.cloudflare\.com\/ajax\/libs\/gsap\/([^/]+)\/([A-Za-z0-9_.-]+\.js)$/,
  /^https?:\/\/unpkg\.com\/gsap(?:@([^/]+))?\/dist\/([A-Za-z0-9_.-]+\.js)$/,
];

/** The vendored file a CDN URL of GSAP names, if it is one we serve. */
export function vendoredScript(url: string): string | undefined {
  const bare = url.split(/[?#]/)[0] ?? url;
  for (const pattern of GSAP_CDN_URLS) {
    const match = pattern.exec(bare);
    if (!match) continue;
    const [, version, file = ''] = match;
    const gsap = gsapDist();
    if (version && version.replace(/^\^|^~/, '').split('.')[0] !== gsap.major) return undefined;
    const candidate = path.join(gsap.directory, file);
    return path.dirname(candidate) === gsap.directory && existsSync(candidate) ? candidate : undefined;
  }
  return undefined;
}

/** Requests the render may make: its own files and the producer's loopback server. */
function isLocal(url: string): boolean {
  if (/^(file|data|blob):/i.test(url)) return true;
  try {
    const { hostname } = new URL(url);
    return hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';
  } catch {
    return true; // not a URL fetch can reach either
  }
}

/** One render's record of what it asked of the network. */
export interface NetworkRecord {
  /** URLs refused (HTTPS requests of the page: `https://host`), in order, once each. */
  blocked: string[];
  /** CDN URLs answered from the vendored packages. */
  served: string[];
}

interface GuardContext {
  record: NetworkRecord;
  onBlocked(url: string): void;
}

const context = new AsyncLocalStorage<GuardContext>();
let installed = false;

function installGuardedFetch(): void {
  if (installed) return;
  installed = true;
  const original = globalThis.fetch;
  globalThis.fetch = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const guard = context.getStore();
    if (!guard) return original(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (isLocal(url)) return original(input, init);
    const vendored = vendoredScript(url);
    if (vendored) {
      guard.record.served.push(url);
      return new Response(await readFile(vendored), {
        status: 200,
        headers: { 'content-type': 'text/javascript; charset=utf-8' },
      });
    }
    block(guard, url);
    throw new TypeError(`fetch failed: ${url} is blocked (renders have no network access)`);
  };
}

function block(guard: GuardContext, url: string): void {
  if (!guard.record.blocked.includes(url)) guard.record.blocked.push(url);
  guard.onBlocked(url);
}

/** Runs `render` with the guarded `fetch` (see the module comment); `onBlocked` hears each refusal. */
export function withOfflineNetwork<T>(
  record: NetworkRecord,
  onBlocked: (url: string) => void,
  render: () => Promise<T>,
): Promise<T> {
  installGuardedFetch();
  return context.run({ record, onBlocked }, render);
}

/** A loopback proxy that refuses every request and records it (the page's side; see the module comment). */
export interface BlockingProxy {
  port: number;
  close(): Promise<void>;
  /** Lets the process exit while the proxy listens (a proxy kept for the process's lifetime). */
  unref(): void;
}

/** The URL a proxied request names: the full URL of plain HTTP, `https://host` of a CONNECT. */
function requestedUrl(head: string): string | undefined {
  const [method, target] = head.split(' ');
  if (!method || !target) return undefined;
  if (method === 'CONNECT') return `https://${target.replace(/:443$/, '')}`;
  return target;
}

export async function startBlockingProxy(
  record: NetworkRecord,
  onBlocked: (url: string) => void,
): Promise<BlockingProxy> {
  const server: Server = createServer((socket) => {
    let head = '';
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1');
      const line = head.split('\r\n')[0];
      if (line === undefined || !head.includes('\r\n')) return;
      const url = requestedUrl(line);
      if (url) block({ record, onBlocked }, url);
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    });
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the blocking proxy has no port');
  return {
    port: address.port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
    unref: () => server.unref(),
  };
}
