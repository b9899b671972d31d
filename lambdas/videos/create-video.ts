/**
 * Creating a video: check what the plan allows, store the request's media, turn the request into a
 * render spec, reserve credits and write the record in one transaction, start the render workflow.
 * Nothing is charged or left half-written when any step refuses: media inputs are stored under
 * fresh keys no record references yet (harmless), and the record and its reservation are one write.
 */
import { getWorkspace, type Workspace } from '../accounts/workspaces.js';
import { type ResolvedMedia, resolveMediaInput } from '../assets/media-inputs.js';
import { requireUsableLook } from '../avatars/look-presenters.js';
import { assertCanPay, createJobWithReservation } from '../billing/credits.js';
import {
  capResolution,
  estimatedSourceSeconds,
  PLAN_ENTITLEMENTS,
  type Resolution,
  resolutionAllowed,
  videoCredits,
} from '../billing/plans.js';
import { glossaryForGeneration } from '../brand/brand-glossaries.js';
import { brandKitForVideo } from '../brand/brand-kits.js';
import { PaymentRequiredError, ServiceError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { requireUsableFolder } from '../folders/folders.js';
import { startJob } from '../jobs/job-lifecycle.js';
import type { MediaKind } from '../media/media-types.js';
import { brandedSpec } from './brand-kit-render.js';
import type { RenderScene, RenderSpec, SceneBackground, SceneSpeech } from './render-spec.js';
import { videoRenderJob } from './video-render-job.js';
import type {
  BackgroundInput,
  CreateVideoRequest,
  StudioSceneInput,
  VoiceSettings,
  WatermarkInput,
} from './video-requests.js';
import { getVideo, pendingVideo, VIDEO_STATUS, type VideoRecord, videoItem } from './videos.js';

/** Background of avatar and image videos that name none: a soft neutral studio grey. */
export const DEFAULT_BACKGROUND_COLOR = '#e9edf2';

/** Speaking rate used to estimate a script's length for the credit reservation (deliberately slow). */
const ESTIMATE_WORDS_PER_MINUTE = 130;

const DEFAULT_VOICE_SETTINGS: VoiceSettings = { speed: 1, pitch: 0, volume: 1 };

export interface CreateVideoContext {
  workspaceId: string;
  /** Set for batch members: the batch and the item's position. */
  batch?: { batchId: string; itemIndex: number; videoId: string };
}

/** Default resolution per type (spec: 720p for avatar and image videos, 1080p for studio). */
function defaultResolution(request: CreateVideoRequest): Resolution {
  return request.type === 'studio' ? '1080p' : '720p';
}

function checkEntitlements(workspace: Workspace, request: CreateVideoRequest): Resolution {
  const plan = workspace.plan;
  if (request.resolution !== undefined && !resolutionAllowed(plan, request.resolution)) {
    throw new ServiceError(
      400,
      'resolution_not_allowed',
      `Resolution ${request.resolution} is above what the ${plan} plan allows (at most ${PLAN_ENTITLEMENTS[plan].maxResolution}).`,
      { param: 'resolution' },
    );
  }
  if ('watermark' in request && request.watermark !== undefined && !PLAN_ENTITLEMENTS[plan].watermark) {
    throw new PaymentRequiredError(
      `Custom watermarks are an Enterprise option; the ${plan} plan does not include them.`,
      'plan_upgrade_required',
      'watermark',
    );
  }
  // An omitted resolution is never refused: the type's default, capped at the plan's highest.
  return request.resolution ?? capResolution(plan, defaultResolution(request));
}

/** Stores one media input of the request (an asset, a URL download or inline bytes). */
function storeMedia(
  workspaceId: string,
  input: unknown,
  param: string,
  accept: readonly MediaKind[],
  fields?: Partial<Record<'url' | 'asset_id', string>>,
): Promise<ResolvedMedia> {
  return resolveMediaInput(workspaceId, input, { param, accept, ...(fields ? { fields } : {}) });
}

async function backgroundOf(
  workspaceId: string,
  background: BackgroundInput | undefined,
  outputFormat: 'mp4' | 'webm',
  param: string,
): Promise<SceneBackground> {
  // A webm video is the presenter on a transparent background (reference: background is then refused).
  if (!background)
    return {
      type: 'color',
      color: DEFAULT_BACKGROUND_COLOR,
      implicit: true,
      ...(outputFormat === 'webm' ? { transparent: true } : {}),
    };
  if (background.type === 'color') return { type: 'color', color: background.value as string };
  const input =
    background.url !== undefined
      ? { type: 'url', url: background.url }
      : { type: 'asset_id', asset_id: background.asset_id };
  const media = await storeMedia(workspaceId, input, param, ['image'], {
    url: `${param}.url`,
    asset_id: `${param}.asset_id`,
  });
  return { type: 'image', key: media.objectKey, fit: 'cover' };
}

interface SpeechFields {
  script?: string | undefined;
  voice_id?: string | undefined;
  voice_settings?: VoiceSettings | undefined;
  audio_url?: string | undefined;
  audio_asset_id?: string | undefined;
}

/** The speech of a scene, with the recording stored; `prefix` is the fields' path (`scenes[1].`). */
async function speechOf(
  workspaceId: string,
  fields: SpeechFields,
  prefix: string,
): Promise<{ speech: SceneSpeech | null; estimateSeconds: number }> {
  if (fields.script !== undefined) {
    const settings = fields.voice_settings ?? DEFAULT_VOICE_SETTINGS;
    return {
      speech: { kind: 'script', text: fields.script, voice_id: fields.voice_id ?? null, settings },
      estimateSeconds: scriptEstimateSeconds(fields.script, settings.speed),
    };
  }
  const source =
    fields.audio_url !== undefined
      ? { type: 'url', url: fields.audio_url }
      : fields.audio_asset_id !== undefined
        ? { type: 'asset_id', asset_id: fields.audio_asset_id }
        : undefined;
  if (!source) return { speech: null, estimateSeconds: 0 };
  const media = await storeMedia(workspaceId, source, `${prefix}audio`, ['audio'], {
    url: `${prefix}audio_url`,
    asset_id: `${prefix}audio_asset_id`,
  });
  // The length is known once the render probes it. A video never costs more than its reservation,
  // so the estimate errs long: as if the recording were 64 kbit/s (WAV and most MP3s are denser).
  return { speech: { kind: 'audio', key: media.objectKey }, estimateSeconds: media.sizeBytes / 8_000 };
}

async function watermarkOf(
  workspaceId: string,
  watermark: WatermarkInput | undefined,
): Promise<RenderSpec['watermark']> {
  if (!watermark) return null;
  const media = await storeMedia(workspaceId, watermark.image, 'watermark.image', ['image']);
  return {
    key: media.objectKey,
    opacity: watermark.opacity,
    scale: watermark.scale,
    position: watermark.placement?.position ?? 'bottom_right',
    offset_x: watermark.placement?.offset_x ?? 0,
    offset_y: watermark.placement?.offset_y ?? 0,
  };
}

async function studioSceneOf(
  workspaceId: string,
  scene: StudioSceneInput,
  index: number,
): Promise<{ scene: RenderScene; estimateSeconds: number }> {
  const prefix = `scenes[${index}].`;
  const id = `scene_${index + 1}`;
  switch (scene.type) {
    case 'avatar_video': {
      const input = scene.input;
      await requireUsableLook(workspaceId, input.avatar_id, `${prefix}input.avatar_id`, {
        unknown: 'left_to_the_render',
      });
      const { speech, estimateSeconds } = await speechOf(workspaceId, input, `${prefix}input.`);
      return {
        scene: {
          id,
          source: 'avatar_video',
          background: input.background
            ? { type: 'color', color: input.background.color }
            : { type: 'color', color: DEFAULT_BACKGROUND_COLOR, implicit: true },
          presenter: {
            kind: 'avatar',
            avatar_id: input.avatar_id,
            engine: input.engine?.type ?? 'avatar_iv',
            expressiveness: input.expressiveness ?? null,
            motion_prompt: input.motion_prompt ?? null,
            fit: 'contain',
          },
          speech,
          duration_ms: null,
        },
        estimateSeconds,
      };
    }
    case 'image': {
      const media = await storeMedia(workspaceId, scene.source, `${prefix}source`, ['image']);
      const { speech, estimateSeconds } = await speechOf(workspaceId, scene, prefix);
      return {
        scene: {
          id,
          source: 'image_scene',
          background: { type: 'image', key: media.objectKey, fit: 'cover' },
          presenter: null,
          speech,
          duration_ms: scene.duration !== undefined ? Math.round(scene.duration * 1000) : null,
        },
        estimateSeconds: scene.duration ?? estimateSeconds,
      };
    }
    case 'video': {
      const media = await storeMedia(workspaceId, scene.source, `${prefix}source`, ['video']);
      const { speech, estimateSeconds } = await speechOf(workspaceId, scene, prefix);
      const muted = scene.playback?.mute === true;
      return {
        scene: {
          id,
          source: 'video_scene',
          background: {
            type: 'video',
            key: media.objectKey,
            mode: scene.playback?.mode ?? 'freeze',
            volume: muted ? 0 : (scene.playback?.volume ?? 1),
          },
          presenter: null,
          speech,
          duration_ms: null,
        },
        // A clip's length is known once it is probed; reserve for its estimate (errs long).
        estimateSeconds: Math.max(estimateSeconds, estimatedSourceSeconds(media.sizeBytes)),
      };
    }
  }
}

/**
 * The glossary a video is spoken with, as it is now: its pronunciations go into the render spec, so
 * editing or deleting the glossary later leaves the video as it was admitted.
 */
async function glossaryOf(
  workspaceId: string,
  glossaryId: string | null | undefined,
): Promise<Pick<RenderSpec, 'brand_glossary_id' | 'pronunciations'>> {
  if (!glossaryId) return { brand_glossary_id: null, pronunciations: [] };
  const glossary = await glossaryForGeneration(workspaceId, glossaryId, 'brand_glossary_id');
  return {
    brand_glossary_id: glossaryId,
    pronunciations: glossary.terms.map(({ term, pronunciation }) => ({ term, pronunciation })),
  };
}

/** The render spec of a request, with its media stored, and the seconds of video to reserve for. */
async function renderSpecOf(
  workspaceId: string,
  request: CreateVideoRequest,
): Promise<{ spec: RenderSpec; estimateSeconds: number }> {
  const base = {
    burn_captions: false,
    captions_requested: false,
    watermark: null,
    cinematic: null,
    brand_glossary_id: null,
    pronunciations: [],
  };
  switch (request.type) {
    case 'cinematic_avatar': {
      const referenceKeys: string[] = [];
      for (const [index, reference] of (request.references ?? []).entries()) {
        referenceKeys.push(
          (await storeMedia(workspaceId, reference, `references[${index}]`, ['image', 'video', 'audio']))
            .objectKey,
        );
      }
      const duration = request.duration ?? 10;
      return {
        spec: {
          ...base,
          scenes: [],
          cinematic: {
            prompt: request.prompt,
            avatar_ids: request.avatar_id,
            duration_seconds: duration,
            reference_keys: referenceKeys,
          },
        },
        estimateSeconds: duration,
      };
    }
    case 'studio': {
      const scenes: RenderScene[] = [];
      let estimateSeconds = 0;
      for (const [index, scene] of request.scenes.entries()) {
        const made = await studioSceneOf(workspaceId, scene, index);
        scenes.push(made.scene);
        estimateSeconds += made.estimateSeconds;
      }
      return {
        spec: {
          ...base,
          scenes,
          burn_captions: request.caption?.style !== undefined,
          captions_requested: request.caption !== undefined,
          watermark: await watermarkOf(workspaceId, request.watermark),
          ...(await glossaryOf(workspaceId, request.brand_glossary_id)),
        },
        estimateSeconds,
      };
    }
    case 'avatar':
    case 'image': {
      if (request.type === 'avatar')
        await requireUsableLook(workspaceId, request.avatar_id, 'avatar_id', {
          unknown: 'left_to_the_render',
        });
      const fit = request.fit ?? 'contain';
      const background = await backgroundOf(
        workspaceId,
        request.background,
        request.output_format,
        'background',
      );
      const presenter: RenderScene['presenter'] =
        request.type === 'avatar'
          ? {
              kind: 'avatar',
              avatar_id: request.avatar_id,
              engine: request.engine?.type ?? 'avatar_iv',
              expressiveness: request.expressiveness ?? null,
              motion_prompt: request.motion_prompt ?? null,
              fit,
            }
          : {
              kind: 'image',
              key: (await storeMedia(workspaceId, request.image, 'image', ['image'])).objectKey,
              fit,
            };
      const { speech, estimateSeconds } = await speechOf(workspaceId, request, '');
      return {
        spec: {
          ...base,
          scenes: [{ id: 'scene_1', source: request.type, background, presenter, speech, duration_ms: null }],
          burn_captions: request.caption?.style !== undefined,
          captions_requested: request.caption !== undefined,
          watermark: await watermarkOf(workspaceId, request.watermark),
          ...(await glossaryOf(workspaceId, request.brand_glossary_id)),
        },
        estimateSeconds,
      };
    }
  }
}

/**
 * Creates a video (or, for a batch member, fills in its placeholder) and starts its render.
 * @throws ServiceError 400/402/404 for what the request or the workspace's plan refuses
 */
export async function createVideo(
  context: CreateVideoContext,
  request: CreateVideoRequest,
): Promise<VideoRecord> {
  const workspace = await getWorkspace(context.workspaceId, true);
  if (!workspace) throw new Error(`Workspace ${context.workspaceId} vanished`);
  const resolution = checkEntitlements(workspace, request);
  assertCanPay(workspace, videoCredits(0, resolution));
  if (request.folder_id !== undefined) {
    await requireUsableFolder(context.workspaceId, request.folder_id, 'folder_id', 'video');
  }
  // Cinematic videos are generated whole: there is nothing of theirs a kit dresses.
  const kit =
    request.type === 'cinematic_avatar' ? undefined : await brandKitForVideo(workspace, request.brand_kit_id);
  const { spec, estimateSeconds } = await renderSpecOf(context.workspaceId, request);
  return admitVideo(workspace, context, {
    type: request.type,
    title: request.title ?? null,
    folder_id: request.folder_id ?? null,
    callback_url: request.callback_url ?? null,
    callback_id: request.callback_id ?? null,
    output_format: 'output_format' in request ? request.output_format : 'mp4',
    resolution,
    aspect_ratio: request.aspect_ratio,
    render: await brandedSpec(context.workspaceId, spec, kit),
    estimateSeconds,
  });
}

/** A video whose render spec is already made (its media stored), ready to be admitted. */
export type PreparedVideo = Pick<
  VideoRecord,
  | 'type'
  | 'title'
  | 'folder_id'
  | 'callback_url'
  | 'callback_id'
  | 'output_format'
  | 'resolution'
  | 'aspect_ratio'
  | 'render'
> & { estimateSeconds: number };

/**
 * Reserves the credits of a prepared video, writes its record and starts its render: the part of a
 * create every way of making a video shares (`POST /v3/videos`, batches, templates). The caller has
 * checked the plan's entitlements and the folder.
 */
export async function admitVideo(
  workspace: Workspace,
  context: CreateVideoContext,
  prepared: PreparedVideo,
): Promise<VideoRecord> {
  const video = await admitVideoRecord(workspace, context, prepared);
  await startJob(videoRenderJob, videoRenderJob.refOf(video));
  return video;
}

/**
 * `admitVideo` without starting the render, for a workflow step (a video agent's draft): task
 * functions cannot start workflows (the state machines depend on them), so the step queues the start
 * for the batch worker (`video.render`, `startAdmittedVideo`).
 */
export async function admitVideoRecord(
  workspace: Workspace,
  context: CreateVideoContext,
  prepared: PreparedVideo,
): Promise<VideoRecord> {
  const { estimateSeconds, ...fields } = prepared;
  const record = pendingVideo({
    ...fields,
    video_id: context.batch?.videoId ?? newId(),
    workspace_id: context.workspaceId,
    batch_id: context.batch?.batchId ?? null,
    item_index: context.batch?.itemIndex ?? null,
  });
  const credits = videoCredits(estimateSeconds, prepared.resolution);
  const billing = await createJobWithReservation(workspace, videoItem(record), credits, {
    replacesPlaceholder: context.batch !== undefined,
    // Recognition hears the speech of uploaded audio (captions) when the request gives no script.
    engines: ['speech', 'speechRecognition'],
  });
  return { ...record, ...billing };
}

/**
 * Starts the render of a video admitted with its start queued (the batch worker, `video.render`):
 * idempotent, since the execution is named after the video; a video gone or ended meanwhile is left.
 */
export async function startAdmittedVideo(workspaceId: string, videoId: string): Promise<void> {
  const video = await getVideo(workspaceId, videoId, true);
  if (!video || video.status !== VIDEO_STATUS.pending) return;
  await startJob(videoRenderJob, videoRenderJob.refOf(video));
}

/** Seconds of speech a script is reserved for (deliberately slow, so the estimate errs long). */
export function scriptEstimateSeconds(script: string, speed: number): number {
  const words = script.trim().split(/\s+/).length;
  return ((words / ESTIMATE_WORDS_PER_MINUTE) * 60) / speed + 1;
}
