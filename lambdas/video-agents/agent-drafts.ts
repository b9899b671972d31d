/**
 * Drafts: the videos an agent makes, through the normal video pipeline (`admitVideo`, the same path
 * as `POST /v3/videos` with studio scenes): each is a video of the workspace, with its own credits,
 * render job, scenes document, captions and `avatar_video.*` events. A plan becomes a draft's render
 * spec here: per scene a card (scene-cards.ts) or an uploaded clip as the background, the presenter
 * on presenter scenes, the narration in the session's voice; captions on, the style deciding whether
 * they are burned in and how scenes give way to each other (its transition); speech kept, so that an edit plan's draft reuses every scene it does not edit.
 */
import { getWorkspace, type Workspace } from '../accounts/workspaces.js';
import { musicFor } from '../audio/sound-search.js';
import { resolveLookPresenter } from '../avatars/look-presenters.js';
import { enqueueBatchItems } from '../batches/batch-queue.js';
import { capResolution, type Resolution } from '../billing/plans.js';
import { brandKitForVideo } from '../brand/brand-kits.js';
import { soundKey } from '../catalog/sound-catalog.js';
import { JobFailure, ServiceError } from '../core/errors.js';
import { failJob } from '../jobs/job-lifecycle.js';
import { putMediaObject, readMediaObject } from '../media/media-store.js';
import { brandedSpec } from '../videos/brand-kit-render.js';
import { admitVideo, admitVideoRecord } from '../videos/create-video.js';
import { frameSize, type RenderScene, type RenderSpec } from '../videos/render-spec.js';
import { videoRenderJob } from '../videos/video-render-job.js';
import type { AspectRatio } from '../videos/video-requests.js';
import type { VideoRecord } from '../videos/videos.js';
import { type AgentPlan, planSeconds, SCENE_VISUALS } from './agent-plan.js';
import type { AgentSession } from './agent-sessions.js';
import { sessionMediaKeys } from './agent-sessions.js';
import { styleOf } from './agent-styles.js';
import { renderSceneCard } from './scene-cards.js';

/** Drafts render at 720p (quick to make and to review); the plan may cap lower. */
export const DRAFT_RESOLUTION: Resolution = '720p';
/** The voice of a session that names none and whose presenter has no default voice. */
export const FALLBACK_VOICE_ID = 'en-us-olivia';

const DEFAULT_SETTINGS = { speed: 1, pitch: 0, volume: 1 };

export const aspectRatioOf = (orientation: AgentSession['options']['orientation']): AspectRatio =>
  orientation === 'portrait' ? '9:16' : '16:9';

/** The presenter look of a session: the request's, else its style's. */
export const presenterLookOf = (session: Pick<AgentSession, 'options'>) =>
  session.options.avatar_id ?? styleOf(session.options.style_id).presenter_look;

/** The voice: the request's, else the presenter's default, else the fallback. */
async function voiceOf(session: AgentSession): Promise<string> {
  if (session.options.voice_id) return session.options.voice_id;
  const look = await resolveLookPresenter(session.workspace_id, presenterLookOf(session));
  return (look.usable ? look.media.defaultVoiceId : null) ?? FALLBACK_VOICE_ID;
}

/** A refusal of the video pipeline (credits, plan, brand policy) as the run's failure, with its code. */
async function refusalAsFailure<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ServiceError && !(error instanceof JobFailure) && error.status < 500)
      throw new JobFailure(error.code, error.message, { cause: error });
    throw error;
  }
}

async function workspaceOf(workspaceId: string): Promise<Workspace> {
  const workspace = await getWorkspace(workspaceId, true);
  if (!workspace) throw new Error(`Workspace ${workspaceId} vanished`);
  return workspace;
}

/** The scenes of a plan, their cards drawn and stored (under the run, so drafts never share a changing file). */
async function scenesOf(session: AgentSession, plan: AgentPlan, size: { width: number; height: number }) {
  const style = styleOf(session.options.style_id);
  const voiceId = await voiceOf(session);
  const look = presenterLookOf(session);
  const media = session.files.filter((file) => file.kind === 'image' || file.kind === 'video');
  const scenes: RenderScene[] = [];
  for (const scene of plan.scenes) {
    const presenter = scene.visual === SCENE_VISUALS.presenter;
    const file = scene.media_file !== null ? media[scene.media_file] : undefined;
    let background: RenderScene['background'];
    if (file?.kind === 'video') {
      // An uploaded clip plays full frame under the narration (muted, looped to the narration's length).
      background = { type: 'video', key: file.key, mode: 'loop', volume: 0 };
    } else {
      const card = await renderSceneCard({
        style,
        ...size,
        text: scene.on_screen_text,
        presenter,
        variant: scenes.length,
        ...(file ? { image: await readMediaObject(file.key) } : {}),
      });
      const key = sessionMediaKeys.file(session, `runs/${session.run_id}/${scene.id}.png`);
      await putMediaObject(session.workspace_id, key, card, 'image/png');
      background = { type: 'image', key, fit: 'cover' };
    }
    scenes.push({
      id: scene.id,
      source: presenter ? 'avatar_video' : 'image_scene',
      background,
      presenter: presenter
        ? {
            kind: 'avatar',
            avatar_id: look,
            engine: 'avatar_iv',
            expressiveness: null,
            motion_prompt: null,
            fit: 'contain',
          }
        : null,
      speech: { kind: 'script', text: scene.narration, voice_id: voiceId, settings: DEFAULT_SETTINGS },
      duration_ms: null,
    });
  }
  return scenes;
}

/** Gain of the music bed under the narration (speech stays clearly on top). */
export const MUSIC_VOLUME = 0.12;

/** Renders the session's plan as a new draft: admitted to the video pipeline, its render started. */
export async function admitPlanDraft(session: AgentSession, plan: AgentPlan): Promise<VideoRecord> {
  const workspace = await workspaceOf(session.workspace_id);
  const resolution = capResolution(workspace.plan, DRAFT_RESOLUTION);
  const aspectRatio = aspectRatioOf(session.options.orientation);
  const style = styleOf(session.options.style_id);
  const brandKit = await refusalAsFailure(() =>
    brandKitForVideo(workspace, session.options.brand_kit_id ?? undefined),
  );
  const music = musicFor(plan.music_mood);
  const spec: RenderSpec = {
    scenes: await scenesOf(session, plan, frameSize(resolution, aspectRatio)),
    burn_captions: style.burn_captions,
    captions_requested: true,
    watermark: null,
    cinematic: null,
    brand_glossary_id: null,
    pronunciations: [],
    keep_speech: true,
    music: music ? { key: soundKey(music.sound.id), volume: MUSIC_VOLUME, sound_id: music.sound.id } : null,
    transition: style.transition,
  };
  const render = await brandedSpec(session.workspace_id, spec, brandKit);
  const draft = await refusalAsFailure(() =>
    admitVideoRecord(
      workspace,
      { workspaceId: session.workspace_id },
      {
        type: 'studio',
        title: plan.title,
        folder_id: null,
        callback_url: null,
        callback_id: null,
        output_format: 'mp4',
        resolution,
        aspect_ratio: aspectRatio,
        render,
        estimateSeconds: planSeconds(plan),
      },
    ),
  );
  // This runs in a workflow step, which cannot start workflows: the batch worker starts the render.
  try {
    await enqueueBatchItems([
      { kind: 'video.render', workspace_id: draft.workspace_id, video_id: draft.video_id },
    ]);
  } catch (error) {
    // Nothing would ever start it: the draft fails now and its credits come back.
    await failJob(videoRenderJob, videoRenderJob.refOf(draft), videoRenderJob.wording.notStarted);
    throw error;
  }
  return draft;
}

/**
 * A draft made from another with some scenes changed (an edit plan): the snapshot's spec with the
 * new scenes, and the session's presenter and voice when a follow-up changed them.
 */
export async function admitEditedDraft(
  session: AgentSession,
  snapshot: VideoRecord,
  scenes: RenderScene[],
): Promise<VideoRecord> {
  const workspace = await workspaceOf(session.workspace_id);
  const look = presenterLookOf(session);
  const voiceId = session.options.voice_id;
  const adjusted = scenes.map(
    (scene): RenderScene => ({
      ...scene,
      presenter:
        scene.presenter?.kind === 'avatar' ? { ...scene.presenter, avatar_id: look } : scene.presenter,
      // A new voice speaks every scene again: the kept speech no longer matches, so it is not reused.
      speech:
        voiceId && scene.speech?.kind === 'script' ? { ...scene.speech, voice_id: voiceId } : scene.speech,
    }),
  );
  const { brand_kit: _kit, ...unbranded } = snapshot.render;
  const brandKit =
    session.options.brand_kit_id !== null
      ? await brandKitForVideo(workspace, session.options.brand_kit_id)
      : undefined;
  const render = brandKit
    ? await brandedSpec(session.workspace_id, { ...unbranded, scenes: adjusted }, brandKit)
    : { ...snapshot.render, scenes: adjusted };
  return admitVideo(
    workspace,
    { workspaceId: session.workspace_id },
    {
      type: snapshot.type,
      title: snapshot.title,
      folder_id: snapshot.folder_id,
      callback_url: null,
      callback_id: null,
      output_format: snapshot.output_format,
      resolution: snapshot.resolution,
      aspect_ratio: snapshot.aspect_ratio,
      render: { ...render, keep_speech: true },
      estimateSeconds: snapshot.duration ?? 60,
    },
  );
}
