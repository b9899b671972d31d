/**
 * The size of a HyperFrames render: the request's `resolution` (`1080p`, `4k`) and `aspect_ratio`
 * (`16:9`, `9:16`, `1:1`) name a frame (1920×1080 … 2160×2160), which must have the composition's
 * authored shape. The composition renders at its authored size and HyperFrames upsamples it by a whole
 * factor to the frame (its `outputResolution` presets: `landscape`, `portrait-4k`, …); it never
 * downsamples, so a composition larger than the frame, or not a whole factor of it, is refused.
 *
 * The request's legacy presets (`landscape`, `portrait`, `square`, with `-4k`), which HyperFrames still
 * names internally, are refused with 422 since the API split them into `resolution` + `aspect_ratio`.
 */
import { InvalidParameterError, UnprocessableError } from '../core/errors.js';
import type { AuthoredComposition } from '../engines/hyperframes/composition-root.js';

export const HYPERFRAMES_RESOLUTIONS = ['1080p', '4k'] as const;
export type HyperframesResolution = (typeof HYPERFRAMES_RESOLUTIONS)[number];
export const HYPERFRAMES_ASPECT_RATIOS = ['16:9', '9:16', '1:1'] as const;
export type HyperframesAspectRatio = (typeof HYPERFRAMES_ASPECT_RATIOS)[number];
export const LEGACY_RESOLUTION_PRESETS = [
  'landscape',
  'portrait',
  'square',
  'landscape-4k',
  'portrait-4k',
  'square-4k',
] as const;
export type LegacyResolutionPreset = (typeof LEGACY_RESOLUTION_PRESETS)[number];

/** HyperFrames' own name of each frame (its `CanvasResolution`). */
const PRESETS: Record<HyperframesResolution, Record<HyperframesAspectRatio, LegacyResolutionPreset>> = {
  '1080p': { '16:9': 'landscape', '9:16': 'portrait', '1:1': 'square' },
  '4k': { '16:9': 'landscape-4k', '9:16': 'portrait-4k', '1:1': 'square-4k' },
};

const FRAMES: Record<LegacyResolutionPreset, { width: number; height: number }> = {
  landscape: { width: 1920, height: 1080 },
  portrait: { width: 1080, height: 1920 },
  square: { width: 1080, height: 1080 },
  'landscape-4k': { width: 3840, height: 2160 },
  'portrait-4k': { width: 2160, height: 3840 },
  'square-4k': { width: 2160, height: 2160 },
};

/** How much a shape may differ from the named ratio (rounding of odd authored sizes). */
const ASPECT_TOLERANCE = 0.01;

export interface RenderSize {
  width: number;
  height: number;
  /** HyperFrames' upsampling preset; null when the composition is authored at the frame's size. */
  outputPreset: LegacyResolutionPreset | null;
}

/** 422 for a legacy preset, as the spec says; the message says what to send instead. */
export function refuseLegacyPreset(resolution: string): never {
  const [shape, tier] = resolution.split('-');
  const aspect = { landscape: '16:9', portrait: '9:16', square: '1:1' }[shape ?? ''] ?? '16:9';
  throw new UnprocessableError(
    `resolution "${resolution}" is a legacy preset, no longer accepted: send resolution "${tier === '4k' ? '4k' : '1080p'}" with aspect_ratio "${aspect}".`,
    'resolution',
  );
}

function ratioName(width: number, height: number): string {
  const match = HYPERFRAMES_ASPECT_RATIOS.find((aspect) => {
    const [w = 1, h = 1] = aspect.split(':').map(Number);
    return Math.abs(width / height / (w / h) - 1) <= ASPECT_TOLERANCE;
  });
  return match ?? `${width}:${height}`;
}

/** The frame of the request, checked against the composition's authored size. */
export function renderSize(
  authored: AuthoredComposition,
  resolution: HyperframesResolution,
  aspectRatio: HyperframesAspectRatio,
  composition: string,
): RenderSize {
  const authoredRatio = ratioName(authored.width, authored.height);
  if (authoredRatio !== aspectRatio) {
    throw new InvalidParameterError(
      `aspect_ratio is ${aspectRatio} but composition ${composition} is authored at ${authored.width}×${authored.height} (${authoredRatio}); send aspect_ratio "${authoredRatio}"${(HYPERFRAMES_ASPECT_RATIOS as readonly string[]).includes(authoredRatio) ? '' : ' (not offered: author it at 16:9, 9:16 or 1:1)'}.`,
      'aspect_ratio',
    );
  }
  const preset = PRESETS[resolution][aspectRatio];
  const frame = FRAMES[preset];
  if (frame.width === authored.width && frame.height === authored.height)
    return { ...frame, outputPreset: null };
  const factor = frame.width / authored.width;
  if (factor < 1 || !Number.isInteger(factor) || frame.height / authored.height !== factor) {
    throw new InvalidParameterError(
      `resolution ${resolution} makes ${frame.width}×${frame.height} frames, which composition ${composition} (authored at ${authored.width}×${authored.height}) cannot fill: HyperFrames only scales up by a whole factor. Author it at ${frame.width}×${frame.height} or a whole fraction of it.`,
      'resolution',
    );
  }
  return { ...frame, outputPreset: preset };
}
