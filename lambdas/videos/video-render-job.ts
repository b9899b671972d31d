/**
 * The video render job (docs/architecture.md, "Jobs"): `state-machines/video-render.asl.json` runs
 * Prepare → SynthesizeSpeech → Compose → (a Map of ComposeChunk) → JoinChunks → Finalize
 * (`render-steps.ts`), and the framework's failure step from any Catch. A video is created `pending` with its credits reserved, ends `completed`
 * (settled to its real duration, `avatar_video.success`) or `failed` (refunded, `avatar_video.fail`),
 * and counts in its batch.
 */
import { z } from 'zod';
import { videoCredits } from '../billing/plans.js';
import { SPRITES } from '../catalog/sprite-art.js';
import { GRANTS } from '../core/grants.js';
import { defineJob, outcomeByStatus } from '../jobs/job-definition.js';
import { TASK_PACKAGING } from '../jobs/task-deployment.js';
import { deleteMediaPrefix, presignMediaDownload } from '../media/media-store.js';
import {
  getVideo,
  markFailed,
  VIDEO_CONTENT_TYPES,
  VIDEO_FAILURE,
  VIDEO_STATUS,
  type VideoRecord,
  videoKey,
  videoMediaKeys,
} from './videos.js';

export const videoRef = z.object({ workspace_id: z.string().min(1), video_id: z.string().min(1) });
export type VideoRef = z.infer<typeof videoRef>;

const pixelBox = z.object({
  x: z.number().int(),
  y: z.number().int(),
  width: z.number().int(),
  height: z.number().int(),
});

/** What Prepare resolved per scene: the presenter's portrait and the engine voice. */
export const preparedScene = z.object({
  scene_id: z.string(),
  portrait_key: z.string().nullable(),
  /** A look's mouth and blink sprites (stock: catalog-media.ts `lookSpriteSheet`; own: avatar-records.ts): its presenter talks. */
  presenter_sprite_sheet: z
    .object({
      key: z.string(),
      sprites: z.array(z.object({ sprite: z.enum(SPRITES), box: pixelBox, sheet_top: z.number().int() })),
    })
    .optional(),
  /** A digital twin's loop (MP4), shown instead of `portrait_key` (its first frame). */
  presenter_footage_key: z.string().optional(),
  /** The footage's head track (the sprites follow it): offsets per loop frame. */
  presenter_footage_track: z
    .object({ fps: z.number(), offsets: z.array(z.object({ x: z.number().int(), y: z.number().int() })) })
    .optional(),
  /** The person alone, cut out of a photo or drawn look: shown over the scene's image or video background. */
  presenter_cut_out_key: z.string().optional(),
  /** An own photo look's face: a video of another shape than the photo is framed around it. */
  presenter_face_box: pixelBox.optional(),
  voice_id: z.string().nullable(),
  engine_voice_id: z.string().nullable(),
  /** The voice's own speed and pitch (designed and cloned voices); the scene's settings apply on top. */
  voice_speed: z.number().optional(),
  voice_pitch: z.number().optional(),
});
export type PreparedScene = z.infer<typeof preparedScene>;

export const prepareResult = z.object({
  /** False when the video is gone or already ended: the workflow stops without doing anything. */
  proceed: z.boolean(),
  scenes: z.array(preparedScene),
});
export type PrepareResult = z.infer<typeof prepareResult>;

/** Each scene's speech, as work files of the video (`work/<scene>.wav`, `.words.json`, `.visemes.json`). */
export const speechResult = z.object({
  scenes: z.array(
    z.object({
      scene_id: z.string(),
      audio_key: z.string().nullable(),
      timings_key: z.string().nullable(),
      /** The speech's mouth shapes (visemes.ts), `work/<scene>.visemes.json`. */
      visemes_key: z.string().nullable().optional(),
      duration_ms: z.number().nullable(),
    }),
  ),
});
export type SpeechResult = z.infer<typeof speechResult>;

/** The stored outputs; null when the video was deleted or ended while it was composed. */
export const composeResult = z
  .object({
    outputs: z.object({
      video_key: z.string(),
      captioned_video_key: z.string().nullable(),
      subtitle_key: z.string().nullable(),
      transcript_key: z.string().nullable(),
      thumbnail_key: z.string(),
      gif_key: z.string(),
    }),
    duration: z.number(),
  })
  .nullable();
export type ComposeResult = z.infer<typeof composeResult>;

/** One chunk of a chunked render: the frames `[start_frame, end_frame)` of the joined video. */
export const renderChunk = z.object({
  index: z.number().int().min(0),
  start_frame: z.number().int().min(0),
  end_frame: z.number().int().min(1),
});
export type RenderChunk = z.infer<typeof renderChunk>;

/**
 * What Compose decided. A video of one chunk is rendered there in one pass (`composed`, null when the
 * video ended meanwhile) and `chunks` is empty; a longer one is cut into `chunks` that the Map state
 * renders, `max_concurrency` at once, and JoinChunks joins as `chunked` says.
 */
export const composePlan = z.object({
  composed: composeResult.optional(),
  chunks: z.array(renderChunk),
  max_concurrency: z.number().int().min(1),
  chunked: z
    .object({
      /** The composition request, its files as work keys (`work/compose/request.json`). */
      composition_key: z.string(),
      /** The whole timeline's sound, rendered once (`work/compose/sound.m4a`). */
      sound_key: z.string(),
      /** Whether every chunk also has a captioned picture (captions not burned into the main video). */
      captioned: z.boolean(),
      width: z.number().int(),
      height: z.number().int(),
      fps: z.number().int(),
      /** The SRT and transcript as Compose kept them (work files; null where there are no words). */
      subtitle_key: z.string().nullable(),
      transcript_key: z.string().nullable(),
    })
    .nullable(),
});
export type ComposePlan = z.infer<typeof composePlan>;

const VIDEO_ITEMS = [GRANTS.jobItems, GRANTS.jobMedia] as const;
/** What rendering a video's pictures takes: ffmpeg in the media image, and time. */
const MEDIA_RENDER = {
  packaging: TASK_PACKAGING.mediaImage,
  memorySize: 3008,
  timeoutSeconds: 900,
} as const;

export const videoRenderJob = defineJob({
  name: 'video-render',
  taskPrefix: 'Video',
  ref: videoRef,
  executionName: (ref) => ref.video_id,
  refOf: (video: VideoRecord) => ({ workspace_id: video.workspace_id, video_id: video.video_id }),
  stepsModule: 'videos/render-steps',
  steps: {
    Prepare: {
      description: 'Video render: start processing, resolve avatars and voices',
      input: videoRef,
      output: prepareResult,
      deployment: { access: [GRANTS.jobItems, GRANTS.jobMedia, GRANTS.publishEvents] },
    },
    SynthesizeSpeech: {
      description: "Video render: synthesize each scene's speech with word timings",
      input: videoRef.extend({ prepared: z.array(preparedScene) }),
      output: speechResult,
      deployment: {
        access: [...VIDEO_ITEMS, GRANTS.synthesizeSpeech],
        memorySize: 1024,
        timeoutSeconds: 600,
      },
    },
    Compose: {
      description:
        'Video render: compose scenes, narration and captions with ffmpeg in one pass, or plan the chunks and render the sound',
      input: videoRef.extend({ prepared: z.array(preparedScene), speech: speechResult }),
      output: composePlan,
      deployment: { access: [...VIDEO_ITEMS, GRANTS.generateMedia], ...MEDIA_RENDER },
    },
    ComposeChunk: {
      description: "Video render: render one chunk of the video's pictures with ffmpeg",
      input: videoRef.extend({ composition_key: z.string(), chunk: renderChunk }),
      output: z.null(),
      deployment: { access: [...VIDEO_ITEMS], ...MEDIA_RENDER },
    },
    JoinChunks: {
      description: 'Video render: join the chunks and the sound without re-encoding; store the outputs',
      input: videoRef.extend({ plan: composePlan }),
      output: composeResult,
      deployment: { access: [...VIDEO_ITEMS], ...MEDIA_RENDER, memorySize: 1024 },
    },
    Finalize: {
      description: 'Video render: complete, settle credits, publish avatar_video.success',
      input: videoRef.extend({ composed: composeResult }),
      output: z.null(),
      deployment: { access: [...VIDEO_ITEMS, GRANTS.publishEvents] },
    },
  },
  record: {
    get: (ref) => getVideo(ref.workspace_id, ref.video_id, true),
    outcome: outcomeByStatus({ succeeded: VIDEO_STATUS.completed, failed: VIDEO_STATUS.failed }),
    fail: (video, failure) => markFailed(video, failure.code, failure.message),
  },
  wording: {
    timeout: (step) => ({
      code: VIDEO_FAILURE.renderTimeout,
      message: `The ${step} step took longer than allowed and was stopped.`,
    }),
    fault: (step, error) => ({
      code: VIDEO_FAILURE.internalError,
      message: `The ${step} step failed unexpectedly (${error}); nothing was charged. Try again; if it keeps failing, report the video id.`,
    }),
    notStarted: {
      code: VIDEO_FAILURE.internalError,
      message: 'The render could not be started; nothing was charged. Create the video again.',
    },
  },
  events: {
    entityId: (video) => video.video_id,
    callback: (video) =>
      video.callback_url ? { url: video.callback_url, id: video.callback_id } : undefined,
    success: {
      type: 'avatar_video.success',
      data: async (video) => ({
        video_id: video.video_id,
        url: video.outputs
          ? await presignMediaDownload(video.outputs.video_key, {
              contentType: VIDEO_CONTENT_TYPES[video.output_format],
            })
          : null,
        gif_download_url: video.outputs
          ? await presignMediaDownload(video.outputs.gif_key, { contentType: 'image/gif' })
          : null,
        video_page_url: null,
        video_share_page_url: null,
        folder_id: video.folder_id,
        callback_id: video.callback_id,
      }),
    },
    failure: {
      type: 'avatar_video.fail',
      data: (video) => ({
        video_id: video.video_id,
        failure_code: video.failure_code,
        failure_message: video.failure_message,
        msg: video.failure_message,
        folder_id: video.folder_id,
        callback_id: video.callback_id,
      }),
    },
  },
  billing: {
    key: (video) => videoKey(video.workspace_id, video.video_id),
    // A batch item refused at admission never held a reservation.
    reservation: (video) => (video.billing_state === undefined ? undefined : video),
    charge: (video) => videoCredits(video.duration ?? 0, video.resolution),
  },
  batchItem: (video) => (video.batch_id ? { batchId: video.batch_id, itemId: video.video_id } : undefined),
  // The work files steps handed each other (speech, word timings) are not kept once the video ended.
  release: (video) => deleteMediaPrefix(videoMediaKeys.work(video, '')),
  // Deleted while it rendered: nothing the run wrote after the delete may stay.
  cleanUpGone: (ref) => deleteMediaPrefix(videoMediaKeys.prefix(ref)),
  failureAccess: [GRANTS.jobMedia],
  concurrencyLimited: true,
});
