/**
 * What a HyperFrames composition's root element says about it, read as HyperFrames reads it: the first
 * element with `data-composition-id`, its `data-width`/`data-height` (HyperFrames' defaults 1080×1920
 * when absent) and `data-duration`. Light (no engine), for admission checks and the test double.
 */
/** The root's size and length. */
export interface AuthoredComposition {
  width: number;
  height: number;
  /** Seconds; null when the root does not say (the timeline decides). */
  durationSeconds: number | null;
}

/** HyperFrames' size of a root without `data-width`/`data-height`. */
const HYPERFRAMES_DEFAULT_SIZE = { width: 1080, height: 1920 } as const;

/** The root composition element's attributes (`data-composition-id`), as HyperFrames reads them. */
export function authoredComposition(html: string): AuthoredComposition {
  const root = /<[a-zA-Z][^>]*\bdata-composition-id\s*=[^>]*>/.exec(html)?.[0] ?? '';
  const attribute = (name: string) => {
    const match = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`).exec(root);
    return match ? (match[1] ?? match[2] ?? match[3] ?? '') : undefined;
  };
  const whole = (value: string | undefined, fallback: number) => {
    const parsed = Number.parseInt(value ?? '', 10);
    return Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
  };
  const duration = Number.parseFloat(attribute('data-duration') ?? '');
  return {
    width: whole(attribute('data-width'), HYPERFRAMES_DEFAULT_SIZE.width),
    height: whole(attribute('data-height'), HYPERFRAMES_DEFAULT_SIZE.height),
    durationSeconds: Number.isFinite(duration) && duration > 0 ? duration : null,
  };
}
