/**
 * The HyperFrames capability: renders an unpacked composition project (HTML, scripts, media) to a
 * video, in one pass (`render`) or in chunks (`plan` → `renderChunk` per chunk, anywhere → `assemble`:
 * the chunks joined without re-encoding, the audio mixed once). The reference engine is HyperFrames' own producer driving Chromium (producer-engine.ts); the
 * test double (test-double-hyperframes-engine.ts) keeps the contract for tests whose subject is not
 * the pictures. An engine fails with a `JobFailure` whose code is one of `HYPERFRAMES_FAILURE`.
 */
export const HYPERFRAMES_QUALITIES = ['draft', 'standard', 'high'] as const;
export type HyperframesQuality = (typeof HYPERFRAMES_QUALITIES)[number];
export const HYPERFRAMES_FORMATS = ['mp4', 'webm', 'mov'] as const;
export type HyperframesFormat = (typeof HYPERFRAMES_FORMATS)[number];

export const HYPERFRAMES_FAILURE = {
  /** The composition asked for something on the network, which renders never reach. */
  networkBlocked: 'composition_network_blocked',
  /** The composition could not be rendered (a script error, no timeline, an unreadable asset). */
  renderFailed: 'composition_render_failed',
  /** Chromium (or ffmpeg) cannot run here. */
  engineUnavailable: 'engine_unavailable',
  /** The render took longer than `HYPERFRAMES_RENDER_TIMEOUT_MS`. */
  timeout: 'hyperframes_render_timeout',
} as const;

export interface HyperframesRenderRequest {
  /** The unpacked project. */
  projectDir: string;
  /** The composition's path inside the project (`index.html`). */
  entryFile: string;
  fps: number;
  quality: HyperframesQuality;
  format: HyperframesFormat;
  /** Handed to the page as `window.__hfVariables` (HyperFrames' `getVariables()`). */
  variables: Record<string, unknown>;
  /** HyperFrames' upsampling preset (`landscape-4k`, …); null to render at the authored size. */
  outputPreset: string | null;
  outputPath: string;
  timeoutMs: number;
  /** Frames captured so far, of how many. */
  onProgress(framesDone: number, totalFrames: number): void;
}

export interface HyperframesRenderResult {
  totalFrames: number;
  /** What rendered it, for the record's `engines`. */
  description: string;
}

/** What a chunked render is asked for: the render's settings, and how to cut it. */
export type HyperframesPlanRequest = Omit<HyperframesRenderRequest, 'outputPath' | 'onProgress'> & {
  /** Where the plan is written: a directory the steps carry to the chunks' and the assembler's machines. */
  planDir: string;
  /** The output frame, pixels (the record's). */
  width: number;
  height: number;
  /** Frames per chunk (each chunk starts with a keyframe). */
  chunkFrames: number;
  /** At most this many chunks: a longer render gets longer chunks. */
  maxChunks: number;
};

/** One chunk of a plan: frames `[startFrame, endFrame)`. */
export interface HyperframesChunk {
  startFrame: number;
  endFrame: number;
}

export interface HyperframesPlan {
  totalFrames: number;
  chunks: HyperframesChunk[];
  /** What plans and renders it, for the record's `engines`. */
  description: string;
}

/** Whose files of a plan a machine needs: one chunk's renderer, or the assembler. */
export type HyperframesPlanRole = { chunk: number } | 'assembler';

export interface HyperframesEngine {
  readonly name: string;
  /** The whole composition in one process (the reference a chunked render is held against). */
  render(request: HyperframesRenderRequest): Promise<HyperframesRenderResult>;
  /** Prepares a chunked render into `request.planDir`; the project is not needed after it. */
  plan(request: HyperframesPlanRequest): Promise<HyperframesPlan>;
  /**
   * The files under the plan directory (relative, `/`-separated) a role needs besides `plan.json`, which
   * every role reads first: a chunk's renderer fetches only these.
   */
  planFiles(planDir: string, role: HyperframesPlanRole): Promise<string[]>;
  /** Renders chunk `chunkIndex` of the plan (its files fetched) to `outputPath`; its frame count. */
  renderChunk(planDir: string, chunkIndex: number, outputPath: string, timeoutMs: number): Promise<number>;
  /** Joins the chunks, in order, to `outputPath`, without re-encoding the pictures, with the audio once. */
  assemble(planDir: string, chunkPaths: readonly string[], outputPath: string): Promise<void>;
}
