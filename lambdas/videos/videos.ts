/**
 * Videos: the record of a video job and its data access. A video is created `pending` with its
 * credits reserved (one transaction, `lambdas/billing/credits.ts`), moved to `processing` by the
 * render workflow's first step, and ends `completed` (credits settled) or `failed` (refunded) with a
 * `failure_code` and a `failure_message` that says what went wrong. Every move is a conditional
 * write on the current status, so a repeated step is harmless and a terminal video never changes.
 */

import { batchItemSortKey, batchItemsPartition } from '../batches/batches.js';
import { BILLING_STATE, type JobBilling } from '../billing/credits.js';
import type { Resolution } from '../billing/plans.js';
import { NotFoundError } from '../core/errors.js';
import { ID_PATTERN, nowSeconds } from '../core/ids.js';
import { getItem, queryPage, queryWorkspaceResources, updateExistingItem } from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import type { RenderSpec } from './render-spec.js';
import type { AspectRatio, VideoType } from './video-requests.js';

export const VIDEO_STATUS = {
  pending: 'pending',
  processing: 'processing',
  completed: 'completed',
  failed: 'failed',
} as const;
export type VideoStatus = (typeof VIDEO_STATUS)[keyof typeof VIDEO_STATUS];

/** `failure_code`s of videos (speech and composition engines add their own, e.g. `invalid_media`). */
export const VIDEO_FAILURE = {
  avatarNotFound: 'avatar_not_found',
  voiceNotFound: 'voice_not_found',
  voiceNotUsable: 'voice_not_usable',
  engineUnavailable: 'engine_unavailable',
  invalidMedia: 'invalid_media',
  renderTimeout: 'render_timeout',
  internalError: 'internal_error',
} as const;

/** Media types of the output formats. */
export const VIDEO_CONTENT_TYPES = { mp4: 'video/mp4', webm: 'video/webm' } as const;

/** Where a finished video's files are in the media bucket. */
/** A spoken word of a video, on its timeline, with the script's punctuation (`Hello,`). */
export interface TranscriptWord {
  word: string;
  startMs: number;
  endMs: number;
}

export interface VideoOutputs {
  video_key: string;
  /** Absent when the video has no captions (speech from a recording: no word timings). */
  captioned_video_key: string | null;
  subtitle_key: string | null;
  /**
   * The spoken words on the video's timeline (`TranscriptWord[]` JSON), for translating the video
   * without hearing it again. Absent on videos rendered before it was kept, and null without speech.
   */
  transcript_key?: string | null;
  thumbnail_key: string;
  gif_key: string;
}

export interface VideoRecord extends JobBilling {
  video_id: string;
  workspace_id: string;
  type: VideoType;
  status: VideoStatus;
  title: string | null;
  folder_id: string | null;
  callback_url: string | null;
  callback_id: string | null;
  output_format: 'mp4' | 'webm';
  resolution: Resolution;
  aspect_ratio: AspectRatio;
  /** What the render workflow makes: scenes with resolved media, voices, captions. */
  render: RenderSpec;
  /** 0 to 100 while processing. */
  progress: number;
  /** Whether the scenes document can be read (set once the workflow has resolved avatars and voices). */
  scenes_ready: boolean;
  outputs: VideoOutputs | null;
  duration: number | null;
  failure_code: string | null;
  failure_message: string | null;
  batch_id: string | null;
  item_index: number | null;
  /** The speech and composition engines that made it (recorded on the job, docs/architecture.md, "Media engines"). */
  engines: {
    speech: string | null;
    composition: string | null;
    /**
     * How the presenters were animated: `stock_sprites` (a stock look's drawn mouths and blinks),
     * `photo_landmarks` (a photo's mouth and eyes warped from its face landmarks), `still` (a picture
     * without a usable face: it moves, its lips do not), with the reason in parentheses, e.g.
     * `still (no_face)`; `person_cut_out` when a photo's person was cut out of its backdrop.
     */
    presenter?: string | null;
    /** The model that generated a `cinematic_avatar` video's footage, e.g. `bedrock (amazon.nova-reel-v1:1)`. */
    generation?: string | null;
  };
  /** Scenes whose speech was copied from an earlier video (`SceneSpeech.reuse`) instead of spoken again. */
  reused_speech?: string[];
  created_at: number;
  completed_at: number | null;
}

/** A video before its credits are reserved (the reservation adds the `JobBilling` fields). */
export type UnbilledVideo = Omit<VideoRecord, keyof JobBilling>;

/** A video just accepted: pending, nothing rendered yet. */
export function pendingVideo(
  fields: Pick<
    VideoRecord,
    | 'video_id'
    | 'workspace_id'
    | 'type'
    | 'title'
    | 'folder_id'
    | 'callback_url'
    | 'callback_id'
    | 'output_format'
    | 'resolution'
    | 'aspect_ratio'
    | 'render'
    | 'batch_id'
    | 'item_index'
  >,
): UnbilledVideo {
  return {
    ...fields,
    status: VIDEO_STATUS.pending,
    progress: 0,
    scenes_ready: false,
    outputs: null,
    duration: null,
    failure_code: null,
    failure_message: null,
    engines: { speech: null, composition: null },
    created_at: nowSeconds(),
    completed_at: null,
  };
}

/** Keys of a video's files: `work/` holds what render steps hand each other and is removed at the end. */
export const videoMediaKeys = {
  prefix: (ref: VideoIds) => `workspaces/${ref.workspace_id}/videos/${ref.video_id}/`,
  work: (ref: VideoIds, name: string) => `workspaces/${ref.workspace_id}/videos/${ref.video_id}/work/${name}`,
  /** Speech kept for reuse (`RenderSpec.keep_speech`): `<scene>.wav`, `.words.json`, `.visemes.json`, `.json`. */
  speech: (ref: VideoIds, name: string) =>
    `workspaces/${ref.workspace_id}/videos/${ref.video_id}/speech/${name}`,
  output: (ref: VideoIds, name: string) => `workspaces/${ref.workspace_id}/videos/${ref.video_id}/${name}`,
};

type VideoIds = Pick<VideoRecord, 'workspace_id' | 'video_id'>;

export type VideoItem = VideoRecord & { pk: string; sk: string; gsi1pk?: string; gsi1sk?: string };

export const videoKey = (workspaceId: string, videoId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.video, videoId);

/** The spec's answer for a missing video (GET /v3/videos/{video_id}: 404 `not_found`, "Video not found."). */
export const videoNotFound = () => new NotFoundError('Video not found.', 'not_found', 'video_id');

/** The item for a new video (batch members are also indexed under their batch, in item order). */
export function videoItem(record: UnbilledVideo): Record<string, unknown> & { pk: string; sk: string } {
  return {
    ...videoKey(record.workspace_id, record.video_id),
    ...(record.batch_id !== null && record.item_index !== null
      ? {
          gsi1pk: batchItemsPartition(record.workspace_id, record.batch_id),
          gsi1sk: batchItemSortKey(record.item_index),
        }
      : {}),
    ...record,
  };
}

export function toVideoRecord(item: VideoItem): VideoRecord {
  const { pk: _pk, sk: _sk, gsi1pk: _gsi1pk, gsi1sk: _gsi1sk, ...record } = item;
  return record;
}

export async function getVideo(
  workspaceId: string,
  videoId: string,
  consistent = false,
): Promise<VideoRecord | undefined> {
  if (!ID_PATTERN.test(videoId)) return undefined;
  const item = await getItem<VideoItem>(videoKey(workspaceId, videoId), consistent);
  return item ? toVideoRecord(item) : undefined;
}

export async function requireVideo(workspaceId: string, videoId: string): Promise<VideoRecord> {
  const video = await getVideo(workspaceId, videoId);
  if (!video) throw videoNotFound();
  return video;
}

export interface VideoListFilter {
  folderId?: string | undefined;
  /** Case-insensitive substring of the title. */
  title?: string | undefined;
}

export async function listVideos(
  workspaceId: string,
  filter: VideoListFilter,
  limit: number,
  token?: string,
) {
  const title = filter.title?.toLowerCase();
  const filtered = filter.folderId !== undefined || title !== undefined;
  const page = filtered
    ? await queryPage<VideoItem>({
        partition: keys.workspacePartition(workspaceId),
        sortKeyPrefix: `${RESOURCE_TYPES.video}#`,
        limit,
        token,
        binding: `${workspaceId}:VideoList:${filter.folderId ?? ''}:${title ?? ''}`,
        keep: (item) =>
          (filter.folderId === undefined || item.folder_id === filter.folderId) &&
          (title === undefined ||
            String(item.title ?? '')
              .toLowerCase()
              .includes(title)),
      })
    : await queryWorkspaceResources<VideoItem>(workspaceId, RESOURCE_TYPES.video, 'VideoList', limit, token);
  return { items: page.items.map(toVideoRecord), nextToken: page.nextToken };
}

/** `pending` → `processing`; also true when it already is processing (a repeated or restarted step). */
export async function markProcessing(video: VideoRecord): Promise<VideoRecord | undefined> {
  if (video.status === VIDEO_STATUS.processing) return video;
  const item = await updateExistingItem<VideoItem>(
    videoKey(video.workspace_id, video.video_id),
    { status: VIDEO_STATUS.processing, progress: 5 },
    [],
    { status: VIDEO_STATUS.pending },
  );
  return item ? toVideoRecord(item) : undefined;
}

/** Records progress (and other working fields) of a processing video; false once it is not processing. */
export async function updateProcessing(video: VideoRecord, changes: Partial<VideoRecord>): Promise<boolean> {
  const item = await updateExistingItem<VideoItem>(
    videoKey(video.workspace_id, video.video_id),
    changes,
    [],
    {
      status: VIDEO_STATUS.processing,
    },
  );
  return item !== undefined;
}

/** `processing` → `completed`; undefined when the video was not processing (already terminal, or deleted). */
export async function markCompleted(
  video: VideoRecord,
  outputs: VideoOutputs,
  duration: number,
): Promise<VideoRecord | undefined> {
  const item = await updateExistingItem<VideoItem>(
    videoKey(video.workspace_id, video.video_id),
    { status: VIDEO_STATUS.completed, outputs, duration, progress: 100, completed_at: nowSeconds() },
    [],
    { status: VIDEO_STATUS.processing },
  );
  return item ? toVideoRecord(item) : undefined;
}

/** `pending`/`processing` → `failed`; undefined when the video is already terminal or gone. */
export async function markFailed(
  video: VideoRecord,
  failureCode: string,
  failureMessage: string,
): Promise<VideoRecord | undefined> {
  const fields = {
    status: VIDEO_STATUS.failed,
    failure_code: failureCode,
    failure_message: failureMessage,
    completed_at: nowSeconds(),
  };
  for (const from of [VIDEO_STATUS.processing, VIDEO_STATUS.pending]) {
    const item = await updateExistingItem<VideoItem>(
      videoKey(video.workspace_id, video.video_id),
      fields,
      [],
      {
        status: from,
      },
    );
    if (item) return toVideoRecord(item);
  }
  return undefined;
}

export function isTerminal(video: VideoRecord): boolean {
  return video.status === VIDEO_STATUS.completed || video.status === VIDEO_STATUS.failed;
}

export function hasReservation(video: VideoRecord): boolean {
  return video.billing_state === BILLING_STATE.reserved;
}
