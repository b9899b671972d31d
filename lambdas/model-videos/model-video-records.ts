/**
 * Model videos: one record per `POST /v3/models/videos`, each one run of the `model-video` job
 * (model-video-job.ts). A record holds what the request asked for (mode, prompt, duration, frame,
 * seed, its first frame or references, stored in the media bucket), what the job made, and how it ended.
 *
 * Statuses are the reference's: `pending` (accepted, not started), `processing`, `completed`, `failed`,
 * and `cancelled` (named by the contract; nothing cancels a model video yet, so none is written).
 */
import type { JobBilling } from '../billing/credits.js';
import { NotFoundError } from '../core/errors.js';
import { ID_PATTERN, nowSeconds } from '../core/ids.js';
import { getItem, type StoredItem, updateExistingItem } from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';

export const MODEL_VIDEO_STATUS = {
  pending: 'pending',
  processing: 'processing',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
} as const;
export type ModelVideoStatus = (typeof MODEL_VIDEO_STATUS)[keyof typeof MODEL_VIDEO_STATUS];

export const MODEL_VIDEO_MODES = ['text_to_video', 'image_to_video', 'reference_to_video'] as const;
export type ModelVideoMode = (typeof MODEL_VIDEO_MODES)[number];

/** The model names `model` takes: this service's one video model (the hosted API names its own). */
export const MODEL_VIDEO_MODELS = ['service-video-1'] as const;
export type ModelVideoModel = (typeof MODEL_VIDEO_MODELS)[number];

export const MODEL_VIDEO_RESOLUTIONS = ['480p', '768p', '1080p', '2k'] as const;
export type ModelVideoResolution = (typeof MODEL_VIDEO_RESOLUTIONS)[number];
export const DEFAULT_MODEL_VIDEO_RESOLUTION: ModelVideoResolution = '768p';

/** Fixed aspect ratios; `adaptive` (image and reference modes) takes the first image's or video's. */
export const MODEL_VIDEO_ASPECT_RATIOS = ['21:9', '16:9', '4:3', '1:1', '3:4', '9:16'] as const;
export type ModelVideoAspectRatio = (typeof MODEL_VIDEO_ASPECT_RATIOS)[number];
export const ADAPTIVE_ASPECT_RATIO = 'adaptive';

export const PROMPT_ENHANCEMENTS = ['turbo', 'quality', 'default', 'disabled'] as const;
export type PromptEnhancement = (typeof PROMPT_ENHANCEMENTS)[number];

/** Limits of the contract (spec, "Limits": model video). */
export const MODEL_VIDEO_LIMITS = {
  minDurationSeconds: 5,
  maxDurationSeconds: 15,
  defaultDurationSeconds: 5,
  maxPromptCharacters: 5000,
  maxReferenceImages: 9,
  maxReferenceVideos: 3,
  maxReferenceAudio: 3,
  maxReferences: 12,
  /** Seeds as the engines take them. */
  maxSeed: 2_147_483_646,
} as const;

/** The short side of each resolution, in pixels. */
const SHORT_SIDE: Readonly<Record<ModelVideoResolution, number>> = {
  '480p': 480,
  '768p': 768,
  '1080p': 1080,
  '2k': 1440,
};

/**
 * Long side over short side of each aspect ratio. 16:9 is 1.75, the contract's own: "16:9 at 1080p gives
 * 1890 by 1080".
 */
const LONG_OVER_SHORT: Readonly<Record<ModelVideoAspectRatio, number>> = {
  '21:9': 7 / 3,
  '16:9': 1.75,
  '4:3': 4 / 3,
  '1:1': 1,
  '3:4': 4 / 3,
  '9:16': 1.75,
};

const PORTRAIT: ReadonlySet<ModelVideoAspectRatio> = new Set(['3:4', '9:16']);

/** The frame of a resolution and aspect ratio, in pixels (even sides, as H.264 in 4:2:0 needs). */
export function modelVideoFrame(
  resolution: ModelVideoResolution,
  aspectRatio: ModelVideoAspectRatio,
): { width: number; height: number } {
  const short = SHORT_SIDE[resolution];
  const long = Math.round((short * LONG_OVER_SHORT[aspectRatio]) / 2) * 2;
  return PORTRAIT.has(aspectRatio) ? { width: short, height: long } : { width: long, height: short };
}

/** The fixed aspect ratio nearest to a picture's proportions (`adaptive`), among `allowed`. */
export function nearestAspectRatio(
  width: number,
  height: number,
  allowed: readonly ModelVideoAspectRatio[] = MODEL_VIDEO_ASPECT_RATIOS,
): ModelVideoAspectRatio {
  const ratio = Math.log(width / height);
  const of = (aspect: ModelVideoAspectRatio) =>
    Math.log(PORTRAIT.has(aspect) ? 1 / LONG_OVER_SHORT[aspect] : LONG_OVER_SHORT[aspect]);
  return allowed.reduce((best, aspect) =>
    Math.abs(of(aspect) - ratio) < Math.abs(of(best) - ratio) ? aspect : best,
  );
}

/** At 1080p and 2k, text and reference videos are 16:9 or 9:16 (the contract's rule). */
export const HIGH_RESOLUTION_ASPECT_RATIOS: readonly ModelVideoAspectRatio[] = ['16:9', '9:16'];
export const isHighResolution = (resolution: ModelVideoResolution) =>
  resolution === '1080p' || resolution === '2k';

/** A stored input of the request: where it is, and whether the request stored it (a URL or inline). */
export interface ModelVideoInput {
  key: string;
  mime_type: string;
  owned: boolean;
}

export interface ModelVideoRecord extends JobBilling {
  video_id: string;
  workspace_id: string;
  status: ModelVideoStatus;
  model: ModelVideoModel;
  mode: ModelVideoMode;
  prompt: string;
  prompt_enhancement: PromptEnhancement;
  duration: number;
  resolution: ModelVideoResolution;
  /** A fixed ratio, or `adaptive` until the job reads the first image or video. */
  aspect_ratio: ModelVideoAspectRatio | typeof ADAPTIVE_ASPECT_RATIO;
  seed: number;
  /** The first frame (image to video). */
  image: ModelVideoInput | null;
  reference_images: ModelVideoInput[];
  reference_videos: ModelVideoInput[];
  reference_audio: ModelVideoInput[];
  callback_url: string | null;
  callback_id: string | null;
  /** The video made, once completed. */
  video_key: string | null;
  width: number | null;
  height: number | null;
  /** What did the work, and how (for the curious and for support). */
  engines: Record<string, string>;
  failure_code: string | null;
  failure_message: string | null;
  created_at: number;
  completed_at: number | null;
}

type ModelVideoItem = ModelVideoRecord & { pk: string; sk: string };
type ModelVideoIds = Pick<ModelVideoRecord, 'workspace_id' | 'video_id'>;

export const modelVideoKey = (workspaceId: string, id: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.modelVideo, id);

export const modelVideoMediaKeys = {
  prefix: (record: ModelVideoIds) => `workspaces/${record.workspace_id}/models/videos/${record.video_id}/`,
  /** Where the engine writes its raw video (it adds a folder of its own). */
  engineOutput: (record: ModelVideoIds) =>
    `workspaces/${record.workspace_id}/models/videos/${record.video_id}/engine`,
  video: (record: ModelVideoIds) =>
    `workspaces/${record.workspace_id}/models/videos/${record.video_id}/video.mp4`,
};

export const modelVideoNotFound = (id: string) =>
  new NotFoundError(`Model video ${id} not found.`, 'not_found', 'video_id');

export function modelVideoItem(record: Omit<ModelVideoRecord, keyof JobBilling>): StoredItem {
  return { ...modelVideoKey(record.workspace_id, record.video_id), ...record };
}

function toRecord(item: ModelVideoItem): ModelVideoRecord {
  const { pk: _pk, sk: _sk, ...record } = item;
  return record;
}

export async function getModelVideo(
  workspaceId: string,
  id: string,
  consistent = false,
): Promise<ModelVideoRecord | undefined> {
  if (!ID_PATTERN.test(id)) return undefined;
  const item = await getItem<ModelVideoItem>(modelVideoKey(workspaceId, id), consistent);
  return item ? toRecord(item) : undefined;
}

export async function requireModelVideo(workspaceId: string, id: string): Promise<ModelVideoRecord> {
  const record = await getModelVideo(workspaceId, id);
  if (!record) throw modelVideoNotFound(id);
  return record;
}

/** Sets fields of a record that is still running; the record after, else undefined. */
export async function updateRunningModelVideo(
  record: ModelVideoIds,
  fields: Partial<ModelVideoRecord>,
): Promise<ModelVideoRecord | undefined> {
  for (const status of [MODEL_VIDEO_STATUS.processing, MODEL_VIDEO_STATUS.pending]) {
    const item = await updateExistingItem<ModelVideoItem>(
      modelVideoKey(record.workspace_id, record.video_id),
      fields,
      [],
      { status },
    );
    if (item) return toRecord(item);
  }
  return undefined;
}

export function failModelVideo(
  record: ModelVideoRecord,
  failure: { code: string; message: string },
): Promise<ModelVideoRecord | undefined> {
  return updateRunningModelVideo(record, {
    status: MODEL_VIDEO_STATUS.failed,
    failure_code: failure.code,
    failure_message: failure.message,
    completed_at: nowSeconds(),
  });
}

/** Every stored input of the request (the first frame and the references). */
export function inputsOf(record: ModelVideoRecord): ModelVideoInput[] {
  return [
    ...(record.image ? [record.image] : []),
    ...record.reference_images,
    ...record.reference_videos,
    ...record.reference_audio,
  ];
}
