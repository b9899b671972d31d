/**
 * The HyperFrames capability: renders an unpacked composition project (HTML, scripts, media) to a
 * video. The reference engine is HyperFrames' own producer driving Chromium (producer-engine.ts); the
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

export interface HyperframesEngine {
  readonly name: string;
  render(request: HyperframesRenderRequest): Promise<HyperframesRenderResult>;
}
