/**
 * The floors of `lambdas/` (docs/architecture.md, "Floors"): every import runs to the same floor or a
 * lower one, and no file reaches itself through its imports. Read from the source text, as a reviewer
 * would: a new upward import or circle fails here with the files that make it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const LAMBDAS = path.resolve(import.meta.dirname, '../../lambdas');

/** Floor of each top-level folder of `lambdas/`, ground first. */
const FLOORS: Readonly<Record<string, number>> = {
  core: 0,
  engines: 1,
  accounts: 2,
  folders: 2,
  events: 2,
  encryption: 2,
  billing: 2,
  batches: 2,
  media: 2,
  // Uploaded files: media inputs name them (`asset_id`), so they stand beside media.
  assets: 2,
  webhooks: 2,
  jobs: 3,
  // Brand glossaries and kits: what videos, templates and translations are made with.
  brand: 3,
  catalog: 4,
  audio: 4,
  avatars: 4,
  voices: 4,
  videos: 4,
  // Templates make videos (videos/create-video.ts admitVideo) and hold voices (voices/voice-references.ts).
  templates: 4,
  'model-audio': 4,
  // Translations read the videos this service made (their words) and speak with its voices.
  translations: 4,
  // Filler-word removal reads the videos this service made (their words), as translations do.
  'filler-removals': 4,
  // Background removals: a job over the segmentation engine.
  'background-removals': 4,
  // Realtime avatar streams: looks and voices speaking live.
  realtime: 4,
  // Lipsyncs read the videos this service made (their words), as translations do.
  lipsyncs: 4,
  // Model videos and images: jobs over the generation engine.
  'model-videos': 4,
  'model-images': 4,
  // AI clipping reads the videos this service made (their words), like translations.
  clipping: 4,
  // HyperFrames renders: a job over the HyperFrames engine, its projects stored as media inputs.
  hyperframes: 4,
  // The video agent plans videos and makes them (videos/), with the catalog's sounds; the catalog
  // publishes its styles' thumbnails, so the two stand on one floor.
  'video-agents': 4,
  api: 5,
  workflows: 5,
  workers: 5,
};

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/** `lambdas/`-relative paths of the files `file` imports (types included: they tie the designs too). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)]
    .map((match) => match[1] ?? match[2] ?? '')
    .filter((specifier) => specifier.endsWith('.js'))
    .map((specifier) =>
      path.relative(LAMBDAS, path.resolve(path.dirname(file), specifier)).replace(/\.js$/, '.ts'),
    );
}

const floorOf = (file: string) => FLOORS[file.split(path.sep)[0] ?? ''];

const graph = new Map(sourceFiles(LAMBDAS).map((file) => [path.relative(LAMBDAS, file), importsOf(file)]));

describe('the floors of lambdas/', () => {
  it('gives every folder a floor', () => {
    const folders = new Set([...graph.keys()].map((file) => file.split(path.sep)[0]));
    expect([...folders].filter((folder) => folder === undefined || !(folder in FLOORS))).toEqual([]);
  });

  it('imports only from the same floor or lower ones', () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((imported) => (floorOf(imported) ?? 0) > (floorOf(file) ?? 0))
        .map((imported) => `${file} → ${imported}`),
    );
    expect(upward).toEqual([]);
  });

  it('has no import circles', () => {
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const trail: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      trail.push(file);
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === 'open') circles.push([...trail.slice(trail.indexOf(next)), next].join(' → '));
        else if (!state.has(next) && graph.has(next)) visit(next);
      }
      trail.pop();
      state.set(file, 'done');
    };
    for (const file of graph.keys()) if (!state.has(file)) visit(file);
    expect(circles).toEqual([]);
  });
});
