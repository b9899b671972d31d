/**
 * Builds the web console (`console/src`) with the project's esbuild: one ES module entry, code split
 * (the usage chart and its library load only on the usage page), minified, content-hashed names,
 * plus an `index.html` that loads them and a strict Content-Security-Policy that needs no inline
 * script or style. The local stack serves the result from memory; the CDK stack writes it to a
 * directory and deploys it to the site bucket.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, type BuildResult, build, buildSync, type OutputFile } from 'esbuild';

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CONSOLE_SOURCE = path.join(PROJECT_ROOT, 'console', 'src');

/** Where the console is served, on the API's own origin. */
export const CONSOLE_BASE_PATH = '/console';

export interface ConsoleBuildOptions {
  /**
   * Origins the page may load media from and PUT uploads to: where presigned S3 URLs point.
   * @default [] ('self' only)
   */
  mediaOrigins?: readonly string[];
  /** Origins the page may call for OAuth (the issuer's discovery, authorize and token endpoints). @default [] */
  oauthOrigins?: readonly string[];
}

export interface ConsoleFile {
  /** Path under the console's base, without a leading slash (`index.html`, `main-ABC123.js`). */
  path: string;
  contentType: string;
  body: Uint8Array;
  /** Content-hashed files never change under their name. */
  immutable: boolean;
}

export interface ConsoleBuild {
  files: ConsoleFile[];
  contentSecurityPolicy: string;
  /** The JS the browser loads before the first page shows (the entry and its static imports). */
  firstLoadScripts: string[];
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
};

function esbuildOptions(): BuildOptions & { write: false; metafile: true } {
  return {
    entryPoints: { main: path.join(CONSOLE_SOURCE, 'main.tsx') },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
    minify: true,
    sourcemap: false,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    outdir: path.join(PROJECT_ROOT, '.console-build'),
    tsconfig: path.join(PROJECT_ROOT, 'console', 'tsconfig.json'),
    legalComments: 'none',
    write: false,
    metafile: true,
    logLevel: 'silent',
  };
}

export function contentSecurityPolicy(options: ConsoleBuildOptions = {}): string {
  const media = options.mediaOrigins ?? [];
  const oauth = options.oauthOrigins ?? [];
  const list = (...sources: readonly string[]) => [...new Set(sources)].join(' ');
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src ${list("'self'", 'data:', 'blob:', ...media)}`,
    `media-src ${list("'self'", 'blob:', ...media)}`,
    `connect-src ${list("'self'", ...media, ...oauth)}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function indexHtml(entry: string, chunks: readonly string[], styles: readonly string[]): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light">',
    '<title>Video Creation Service console</title>',
    ...styles.map((file) => `<link rel="stylesheet" href="${CONSOLE_BASE_PATH}/${file}">`),
    // The entry's static chunks are fetched alongside it rather than after it is parsed.
    ...chunks.map((file) => `<link rel="modulepreload" href="${CONSOLE_BASE_PATH}/${file}">`),
    `<script type="module" src="${CONSOLE_BASE_PATH}/${entry}"></script>`,
    '</head>',
    '<body>',
    '<div id="app"><p class="boot">Loading the console…</p></div>',
    '<noscript>The console needs JavaScript.</noscript>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function collect(
  result: BuildResult & { outputFiles: OutputFile[] },
  options: ConsoleBuildOptions,
): ConsoleBuild {
  const outdir = esbuildOptions().outdir as string;
  const relative = (file: string) => path.relative(outdir, path.resolve(PROJECT_ROOT, file));
  const outputs = Object.entries(result.metafile?.outputs ?? {});
  const entry = outputs.find(([, output]) => output.entryPoint !== undefined);
  if (!entry) throw new Error('The console build produced no entry file');
  const [entryFile, entryOutput] = entry;
  // The entry's static imports (shared chunks) load before the first page too; dynamic ones do not.
  const firstLoad = [
    relative(entryFile),
    ...entryOutput.imports
      .filter((item) => item.kind === 'import-statement')
      .map((item) => relative(item.path)),
  ];
  // esbuild gives the CSS of lazily loaded modules files of their own, which nothing would load:
  // every stylesheet is linked from the page (they are small; the usage chart's is 1.6 KB).
  const styles = outputs.filter(([file]) => file.endsWith('.css')).map(([file]) => relative(file));
  const files: ConsoleFile[] = result.outputFiles.map((file) => {
    const name = path.relative(outdir, file.path);
    return {
      path: name,
      contentType: CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream',
      body: file.contents,
      immutable: true,
    };
  });
  files.push({
    path: 'index.html',
    contentType: CONTENT_TYPES['.html'] as string,
    body: new TextEncoder().encode(indexHtml(relative(entryFile), firstLoad.slice(1), styles)),
    immutable: false,
  });
  return { files, contentSecurityPolicy: contentSecurityPolicy(options), firstLoadScripts: firstLoad };
}

/** Builds the console in memory (the local stack, on the first request for it). */
export async function buildConsole(options: ConsoleBuildOptions = {}): Promise<ConsoleBuild> {
  return collect(await build(esbuildOptions()), options);
}

/** The same build, synchronously: CDK constructs are built synchronously at synth. */
export function buildConsoleSync(options: ConsoleBuildOptions = {}): ConsoleBuild {
  return collect(buildSync(esbuildOptions()), options);
}

/** Writes a build into `directory` (the site bucket's deployment source; synchronous, as synth is). */
export function writeConsoleBuild(consoleBuild: ConsoleBuild, directory: string): void {
  for (const file of consoleBuild.files) {
    const target = path.join(directory, file.path);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.body);
  }
}
