/**
 * The JSON responses of the video routes (their request schemas are in videos/video-requests.ts,
 * which the render pipeline shares).
 */
import { z } from 'zod';
import { BULK_STATUS } from '../../batches/bulk-status.js';
import { RESOLUTIONS } from '../../billing/plans.js';
import { ASPECT_RATIOS } from '../../videos/video-requests.js';
import { VIDEO_CONTENT_TYPES, VIDEO_STATUS } from '../../videos/videos.js';
import { batchStatusResponse, batchViewBody, bulkStatusListBody } from '../batch-responses.js';
import {
  dataEnvelope,
  dataWithNullErrorEnvelope,
  listEnvelope,
  unixSeconds,
} from '../pipeline/response-envelopes.js';

type OutputFormat = keyof typeof VIDEO_CONTENT_TYPES;
const OUTPUT_FORMATS = Object.keys(VIDEO_CONTENT_TYPES) as [OutputFormat, ...OutputFormat[]];

const presignedUrl = (what: string) =>
  z
    .string()
    .nullable()
    .meta({
      description: `Pre-signed download URL of ${what}; it expires (read the video again). Null until made.`,
    });

/** A video as its get and list answer it (`videoView` of videos/video-views.ts). */
export const videoResponse = z.object({
  id: z.string(),
  status: z.enum(Object.values(VIDEO_STATUS)),
  title: z.string().nullable(),
  created_at: unixSeconds,
  completed_at: unixSeconds.nullable().meta({ description: 'Null until the video completed or failed.' }),
  duration: z.number().nonnegative().nullable().meta({ description: 'Seconds; null until rendered.' }),
  folder_id: z.string().nullable(),
  video_url: presignedUrl('the video'),
  captioned_video_url: presignedUrl('the video with captions burned in (when captions were asked for)'),
  subtitle_url: presignedUrl('the SRT subtitles (when captions were asked for)'),
  thumbnail_url: presignedUrl('the thumbnail (JPEG)'),
  gif_url: presignedUrl('the animated GIF preview'),
  video_page_url: z.null().meta({ description: 'Always null: this service has no web app pages.' }),
  failure_code: z.string().nullable().meta({ description: 'Why the video failed; null unless `failed`.' }),
  failure_message: z.string().nullable(),
  progress: z
    .number()
    .min(0)
    .max(100)
    .optional()
    .meta({ description: 'While `processing` only: how far the render is, 0 to 100.' }),
});
export const videoBody = dataEnvelope(videoResponse);
export const videoListBody = listEnvelope(videoResponse);

export const videoCreatedBody = dataEnvelope(
  z.object({
    video_id: z.string(),
    status: z.enum(Object.values(VIDEO_STATUS)),
    output_format: z.enum(OUTPUT_FORMATS),
  }),
);

export const videoDeletedBody = dataEnvelope(z.object({ id: z.string(), deleted: z.literal(true) }));

/** The statuses of a batch's items (an item always has its video). */
const ITEM_STATUSES = [
  BULK_STATUS.queued,
  BULK_STATUS.processing,
  BULK_STATUS.completed,
  BULK_STATUS.failed,
] as const;

export const videoBatchCreatedBody = dataEnvelope(
  z.object({
    batch_id: z.string(),
    status: batchStatusResponse,
    total_items: z.number().int().positive(),
    items: z.array(
      z.object({
        item_index: z.number().int().nonnegative(),
        video_id: z.string().meta({ description: 'Made when the batch is accepted: poll it at once.' }),
        status: z.literal(BULK_STATUS.queued),
      }),
    ),
  }),
);

export const videoBatchBody = batchViewBody(ITEM_STATUSES, "The item's video");

/** One entry per id asked for, then every item of each batch asked for (`BulkStatusEntry`). */
export const videoStatusListBody = bulkStatusListBody(ITEM_STATUSES, 'The video id');

// The scenes document (`scenesDocument` of videos/video-views.ts).

const sceneBackground = z.union([
  z.object({ type: z.literal('color'), color: z.string() }),
  z.object({ type: z.enum(['image', 'video']) }),
]);

const sceneElement = z.union([
  z.object({
    id: z.string(),
    type: z.literal('avatar'),
    avatar_id: z.string(),
    engine: z.string(),
    expressiveness: z.string().optional(),
    motion_prompt: z.string().optional(),
  }),
  z.object({ id: z.string(), type: z.literal('image') }),
]);

const sceneScript = z.union([
  z.object({
    id: z.string(),
    type: z.literal('text'),
    text: z.string(),
    voice_id: z.string().optional().meta({ description: 'The voice the script is spoken with.' }),
    trim_to_speech: z.literal(true),
    voice_settings: z.object({
      speed: z.number(),
      pitch: z.number(),
      volume: z.number(),
      locale: z.string().optional(),
      engine_settings: z
        .object({ engine_type: z.string() })
        .catchall(z.unknown())
        .optional()
        .meta({ description: "As the request gave them, for the voice's engine." }),
    }),
  }),
  z.object({ id: z.string(), type: z.literal('audio') }),
]);

export const videoScenesBody = dataWithNullErrorEnvelope(
  z.object({
    video_id: z.string(),
    edit_version: z.literal('1'),
    video: z.object({
      title: z.string().nullable(),
      aspect_ratio: z.enum(ASPECT_RATIOS),
      resolution: z.enum(RESOLUTIONS),
      caption: z.object({ enabled: z.literal(true) }).nullable(),
      brand_glossary_id: z.string().nullable(),
    }),
    scenes: z.array(
      z.object({
        id: z.string(),
        background: sceneBackground,
        elements: z.array(sceneElement),
        script: z.array(sceneScript),
      }),
    ),
  }),
);
