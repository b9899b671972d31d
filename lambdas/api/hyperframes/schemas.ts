import { z } from 'zod';
import { mediaInputSchema } from '../../assets/media-inputs.js';
import { limitParam, outboundUrlParam, tokenParam, userText } from '../../core/validation.js';
import { HYPERFRAMES_FORMATS, HYPERFRAMES_QUALITIES } from '../../engines/hyperframes/hyperframes-engine.js';
import { HYPERFRAMES_DEFAULTS } from '../../hyperframes/create-hyperframes-render.js';
import { HYPERFRAMES_RENDER_STATUS } from '../../hyperframes/hyperframes-records.js';
import {
  HYPERFRAMES_ASPECT_RATIOS,
  HYPERFRAMES_RESOLUTIONS,
  LEGACY_RESOLUTION_PRESETS,
} from '../../hyperframes/render-size.js';
import { dataEnvelope, listEnvelope, unixSeconds } from '../pipeline/response-envelopes.js';

export const renderIdPath = z.strictObject({ render_id: z.string().min(1) });
export const listRendersQuery = z.strictObject({ limit: limitParam(100, 10), token: tokenParam });

const shortText = (max: number) => z.string().max(max, { error: `must be at most ${max} characters` });

/** `POST /v3/hyperframes/renders`: the fields of the open-source HyperFrames client. */
export const createRenderBody = z.strictObject({
  project: mediaInputSchema.meta({
    description:
      'The project: a zip (`application/zip`) holding the composition and everything it uses, by URL, as an asset (`asset_id`, e.g. uploaded with `POST /v3/assets/direct-uploads`) or inline (`base64`). Checked before rendering: size, entry count, no absolute or `..` paths, no symbolic links, the composition present.',
  }),
  composition: z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(1024, { error: 'must be at most 1024 characters' })
    .optional()
    .meta({
      description: `The entry HTML file inside the zip. Default \`${HYPERFRAMES_DEFAULTS.composition}\`.`,
    }),
  fps: z
    .number({ error: 'must be a number of frames per second' })
    .int({ error: 'must be a whole number of frames per second' })
    .min(1, { error: 'must be at least 1' })
    .max(240, { error: 'must be at most 240' })
    .optional()
    .meta({ description: `Frames per second, 1 to 240. Default ${HYPERFRAMES_DEFAULTS.fps}.` }),
  quality: z
    .enum(HYPERFRAMES_QUALITIES)
    .optional()
    .meta({ description: `Encoder quality. Default \`${HYPERFRAMES_DEFAULTS.quality}\`.` }),
  format: z
    .enum(HYPERFRAMES_FORMATS)
    .optional()
    .meta({ description: `Container. Default \`${HYPERFRAMES_DEFAULTS.format}\`.` }),
  resolution: z
    .enum([...HYPERFRAMES_RESOLUTIONS, ...LEGACY_RESOLUTION_PRESETS], {
      error: `must be one of: ${HYPERFRAMES_RESOLUTIONS.join(', ')}`,
    })
    .optional()
    .meta({
      description: `\`1080p\` (default) or \`4k\` (mp4 only). The legacy presets (${LEGACY_RESOLUTION_PRESETS.map((preset) => `\`${preset}\``).join(', ')}) are refused with 422 \`validation_error\`: send \`resolution\` with \`aspect_ratio\`. \`null\` is refused.`,
    }),
  aspect_ratio: z.enum(HYPERFRAMES_ASPECT_RATIOS).optional().meta({
    description:
      '`16:9` (default), `9:16` or `1:1`; must be the shape of the composition as authored (its root `data-width`/`data-height`), else 400.',
  }),
  variables: z.record(z.string(), z.unknown(), { error: 'must be an object' }).optional().meta({
    description:
      "Values for the composition's variables: the page reads them as `window.__hfVariables` (HyperFrames' `getVariables()`).",
  }),
  title: userText(shortText(500)).nullable().optional(),
  callback_url: outboundUrlParam.nullable().optional(),
  callback_id: shortText(255).nullable().optional(),
});

/** A render as every read answers it (`hyperframesRenderView`). */
export const renderResponse = z.object({
  render_id: z.string(),
  status: z.enum(Object.values(HYPERFRAMES_RENDER_STATUS)),
  format: z.enum(HYPERFRAMES_FORMATS),
  title: z.string().nullable(),
  callback_id: z.string().nullable(),
  video_url: z.string().nullable().meta({ description: 'The video, presigned (re-fetch for a fresh link).' }),
  thumbnail_url: z.string().nullable(),
  duration: z.number().nullable().meta({ description: 'Seconds; set once completed.' }),
  fps: z.number(),
  quality: z.enum(HYPERFRAMES_QUALITIES),
  resolution: z.enum(HYPERFRAMES_RESOLUTIONS),
  aspect_ratio: z.enum(HYPERFRAMES_ASPECT_RATIOS),
  composition: z.string(),
  progress: z.number().int().min(0).max(100),
  frames_rendered: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'Frames captured so far, once rendering. This service’s extension.' }),
  total_frames: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'Frames the render makes, once known. This service’s extension.' }),
  created_at: unixSeconds,
  completed_at: unixSeconds.nullable(),
  failure_code: z.string().nullable(),
  failure_message: z.string().nullable(),
  failure_reason: z.string().nullable().meta({ description: 'The same text as failure_message.' }),
});

export const renderBody = dataEnvelope(renderResponse);
export const renderListBody = listEnvelope(renderResponse);
export const renderCreatedBody = dataEnvelope(
  z.object({ render_id: z.string(), status: z.literal(HYPERFRAMES_RENDER_STATUS.queued) }),
);
export const renderDeletedBody = dataEnvelope(z.object({ render_id: z.string(), deleted: z.literal(true) }));
