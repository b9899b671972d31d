/**
 * `POST /v3/templates/{template_id}`: a video from a template. The template's render spec, with the
 * request's variable values applied (placeholders filled, parts bound), becomes the render spec of
 * an ordinary video: the same admission as `POST /v3/videos` (plan, credits reserved, record, render
 * workflow), so it is read, listed, billed, deleted and announced (webhooks) like any other video.
 *
 * Values by variable type: text → a string; character (an avatar look) → `{avatar_id}` or the id; voice → `{voice_id}`
 * or the id; image, video, audio → a media input (`{type: 'url' | 'asset_id' | 'base64', ...}`).
 */
import { getWorkspace } from '../accounts/workspaces.js';
import { resolveMediaInput } from '../assets/media-inputs.js';
import { requireUsableLook } from '../avatars/look-presenters.js';
import { assertCanPay } from '../billing/credits.js';
import {
  capResolution,
  estimatedSourceSeconds,
  PLAN_ENTITLEMENTS,
  type Resolution,
  resolutionAllowed,
  videoCredits,
} from '../billing/plans.js';
import { brandKitForVideo } from '../brand/brand-kits.js';
import { InvalidParameterError, ServiceError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { requireUsableFolder } from '../folders/folders.js';
import { mediaKeys } from '../media/media-keys.js';
import { copyMediaObject, headMediaObject } from '../media/media-store.js';
import type { MediaKind } from '../media/media-types.js';
import { brandedSpec, movedBrandKit } from '../videos/brand-kit-render.js';
import { admitVideo, scriptEstimateSeconds } from '../videos/create-video.js';
import { frameSize, type RenderScene, type RenderSpec } from '../videos/render-spec.js';
import { MAX_SCRIPT_LENGTH } from '../videos/video-requests.js';
import type { VideoRecord } from '../videos/videos.js';
import {
  fillPlaceholders,
  requireVoice,
  type TemplateVariable,
  withPlaceholders,
} from './template-variables.js';
import { type TemplateRecord, templateMediaPrefix } from './templates.js';

/** The body of a generate request (lambdas/api/templates/schemas.ts). */
export interface GenerateRequest {
  variables: Record<string, unknown>;
  title?: string | undefined;
  folder_id?: string | undefined;
  callback_url?: string | undefined;
  callback_id?: string | undefined;
  caption?: boolean | undefined;
  dimension?: { width: number; height: number } | undefined;
  scene_ids?: string[] | undefined;
  brand_glossary_id?: string | undefined;
  /** Legacy name of `brand_glossary_id`. */
  brand_voice_id?: string | undefined;
  brand_kit_id?: string | undefined;
  /** Implies burned captions; the style fields are accepted and not applied. */
  subtitles?: Record<string, unknown> | undefined;
}

/** Names of template character variables removed on 2026-10-31 (spec, "Versioning" item 4). */
const REMOVED_CHARACTER_FIELDS = ['avatar_look_id', 'character_id', 'character_type'] as const;

/** A variable's value, ready to apply: text, an id, a stored media object, or the template's own part. */
export type Bound =
  | { type: 'text'; value: string }
  | { type: 'character' | 'voice'; value: string }
  | { type: 'image' | 'video' | 'audio'; key: string; sizeBytes: number }
  | { type: 'keep' };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The id of an avatar or voice value: the id itself, or `{avatar_id}` / `{voice_id}`. */
function idValue(variable: TemplateVariable, value: unknown, param: string): string {
  const field = variable.type === 'character' ? 'avatar_id' : 'voice_id';
  if (isObject(value)) {
    for (const removed of REMOVED_CHARACTER_FIELDS)
      if (removed in value)
        throw new InvalidParameterError(
          `\`${removed}\` was removed on 2026-10-31: give the look as {"avatar_id": "..."}.`,
          `${param}.${removed}`,
        );
    const extra = Object.keys(value).find((key) => key !== field);
    if (extra !== undefined && field in value)
      throw new InvalidParameterError(
        `\`${param}.${extra}\` is not a recognised field.`,
        `${param}.${extra}`,
      );
    value = value[field];
  }
  if (typeof value !== 'string' || value.length === 0 || value.length > 128) {
    throw new InvalidParameterError(
      `\`${param}\` is a ${variable.type} variable: give {"${field}": "..."} or the ${field.slice(0, -3)} id as a string.`,
      param,
    );
  }
  return value;
}

async function bindValue(workspaceId: string, variable: TemplateVariable, value: unknown): Promise<Bound> {
  const param = `variables.${variable.name}`;
  switch (variable.type) {
    case 'text':
      if (typeof value !== 'string')
        throw new InvalidParameterError(`\`${param}\` is a text variable: give a string.`, param);
      if (value.length > MAX_SCRIPT_LENGTH)
        throw new InvalidParameterError(
          `\`${param}\` must be at most ${MAX_SCRIPT_LENGTH} characters.`,
          param,
        );
      return { type: 'text', value };
    case 'character':
    case 'voice': {
      const id = idValue(variable, value, param);
      if (variable.type === 'character') await requireUsableLook(workspaceId, id, param);
      else await requireVoice(workspaceId, id, param);
      return { type: variable.type, value: id };
    }
    case 'image':
    case 'video':
    case 'audio': {
      if (!isObject(value) || typeof value.type !== 'string') {
        throw new InvalidParameterError(
          `\`${param}\` is ${variable.type === 'image' ? 'an image' : `a ${variable.type}`} variable: give a media input such as {"type": "url", "url": "https://..."} or {"type": "asset_id", "asset_id": "..."}.`,
          param,
        );
      }
      const media = await resolveMediaInput(workspaceId, value, {
        param,
        accept: [variable.type as MediaKind],
      });
      return { type: variable.type, key: media.objectKey, sizeBytes: media.sizeBytes };
    }
  }
}

/**
 * The value of each variable: the request's, else its default, else the template's own part.
 * Checks everything but media first, so a refused request stores no media.
 */
async function bindAll(
  workspaceId: string,
  template: TemplateRecord,
  given: Record<string, unknown>,
): Promise<Map<string, Bound>> {
  const known = new Map(template.variables.map((variable) => [variable.name, variable]));
  for (const name of Object.keys(given)) {
    if (!known.has(name)) {
      const names = [...known.keys()];
      throw new InvalidParameterError(
        `This template has no variable ${name}; its variables are: ${names.length > 0 ? names.join(', ') : 'none'}.`,
        `variables.${name}`,
      );
    }
  }
  const ordered = [...template.variables].sort(
    (a, b) =>
      Number(['image', 'video', 'audio'].includes(a.type)) -
      Number(['image', 'video', 'audio'].includes(b.type)),
  );
  const bound = new Map<string, Bound>();
  for (const variable of ordered) {
    const value = Object.hasOwn(given, variable.name) ? given[variable.name] : undefined;
    if (value === undefined || value === null) {
      if (variable.required)
        throw new InvalidParameterError(
          `Variable ${variable.name} is required by this template.`,
          `variables.${variable.name}`,
        );
      bound.set(
        variable.name,
        variable.default === null
          ? { type: 'keep' }
          : variable.type === 'text'
            ? { type: 'text', value: variable.default }
            : { type: variable.type as 'character' | 'voice', value: variable.default },
      );
      continue;
    }
    bound.set(variable.name, await bindValue(workspaceId, variable, value));
  }
  return bound;
}

/** The part a variable binds within a scene, by part id suffix. */
const partOf = (scene: RenderScene, suffix: string) => `${scene.id}_${suffix}`;

/** One scene of the template with the variables' values applied; `script` has the placeholders. */
export function bindScene(
  scene: RenderScene,
  script: string | undefined,
  variables: readonly TemplateVariable[],
  bound: ReadonlyMap<string, Bound>,
): RenderScene {
  let next: RenderScene = { ...scene };
  if (next.speech?.kind === 'script' && script !== undefined) {
    const texts = new Map<string, string>();
    for (const variable of variables) {
      const value = bound.get(variable.name);
      if (variable.type !== 'text') continue;
      texts.set(variable.name, value?.type === 'text' ? value.value : (variable.match ?? ''));
    }
    const text = fillPlaceholders(script, texts);
    if (text.length > MAX_SCRIPT_LENGTH || text.trim().length === 0) {
      throw new InvalidParameterError(
        `With these variables the script of ${scene.id} would be ${text.trim().length === 0 ? 'empty' : `longer than ${MAX_SCRIPT_LENGTH} characters`}.`,
        'variables',
      );
    }
    next = { ...next, speech: { ...next.speech, text } };
  }
  for (const variable of variables) {
    const value = bound.get(variable.name);
    if (!value || value.type === 'keep' || value.type === 'text' || !variable.element_id) continue;
    const id = variable.element_id;
    if (value.type === 'character' && id === partOf(scene, 'avatar') && next.presenter?.kind === 'avatar') {
      next = { ...next, presenter: { ...next.presenter, avatar_id: value.value } };
    } else if (value.type === 'voice' && id === partOf(scene, 'script') && next.speech?.kind === 'script') {
      next = { ...next, speech: { ...next.speech, voice_id: value.value } };
    } else if (value.type === 'image' && id === partOf(scene, 'image') && next.presenter?.kind === 'image') {
      next = { ...next, presenter: { ...next.presenter, key: value.key } };
    } else if (
      value.type === 'image' &&
      id === partOf(scene, 'background') &&
      next.background.type === 'image'
    ) {
      next = { ...next, background: { ...next.background, key: value.key } };
    } else if (
      value.type === 'video' &&
      id === partOf(scene, 'background') &&
      next.background.type === 'video'
    ) {
      next = { ...next, background: { ...next.background, key: value.key } };
    } else if (value.type === 'audio' && id === partOf(scene, 'audio') && next.speech?.kind === 'audio') {
      next = { ...next, speech: { kind: 'audio', key: value.key } };
    }
  }
  return next;
}

/** Seconds of video to reserve credits for (errs long, as `POST /v3/videos` does). */
async function estimateSeconds(spec: RenderSpec): Promise<number> {
  let total = 0;
  for (const scene of spec.scenes) {
    let seconds = 0;
    if (scene.speech?.kind === 'script')
      seconds = scriptEstimateSeconds(scene.speech.text, scene.speech.settings.speed);
    else if (scene.speech?.kind === 'audio')
      seconds = ((await headMediaObject(scene.speech.key))?.size ?? 0) / 8_000;
    if (scene.background.type === 'video')
      seconds = Math.max(
        seconds,
        estimatedSourceSeconds((await headMediaObject(scene.background.key))?.size ?? 0),
      );
    if (scene.duration_ms !== null && !scene.speech) seconds = scene.duration_ms / 1000;
    total += seconds;
  }
  return total;
}

/**
 * Copies the template's media the video uses to inputs of the video's own, so that the video never
 * depends on the template: deleting the template while the video renders, or deleting the video,
 * leaves the other whole (a video's inputs are deleted with it).
 */
async function detachMedia(
  workspaceId: string,
  template: TemplateRecord,
  spec: RenderSpec,
): Promise<RenderSpec> {
  const prefix = templateMediaPrefix(workspaceId, template.template_id);
  const copies = new Map<string, Promise<string>>();
  const own = (key: string): Promise<string> => {
    if (!key.startsWith(prefix)) return Promise.resolve(key);
    let copy = copies.get(key);
    if (!copy) {
      copy = (async () => {
        const head = await headMediaObject(key);
        const to = mediaKeys.input(workspaceId, newId());
        await copyMediaObject(workspaceId, key, to, head?.contentType ?? 'application/octet-stream');
        return to;
      })();
      copies.set(key, copy);
    }
    return copy;
  };
  const scenes = await Promise.all(
    spec.scenes.map(async (scene): Promise<RenderScene> => {
      const background =
        scene.background.type === 'color'
          ? scene.background
          : { ...scene.background, key: await own(scene.background.key) };
      const presenter =
        scene.presenter?.kind === 'image'
          ? { ...scene.presenter, key: await own(scene.presenter.key) }
          : scene.presenter;
      const speech =
        scene.speech?.kind === 'audio'
          ? { kind: 'audio' as const, key: await own(scene.speech.key) }
          : scene.speech;
      return { ...scene, background, presenter, speech };
    }),
  );
  const watermark = spec.watermark ? { ...spec.watermark, key: await own(spec.watermark.key) } : null;
  return { ...spec, scenes, watermark, brand_kit: await movedBrandKit(spec.brand_kit, own) };
}

const TIER_OF_SHORT_EDGE: readonly [number, Resolution][] = [
  [720, '720p'],
  [1080, '1080p'],
  [2160, '4k'],
];

/** `dimension` → its resolution tier; it must have the template's aspect ratio (reference). */
function resolutionOf(dimension: { width: number; height: number }, template: TemplateRecord): Resolution {
  const { width, height } = dimension;
  const ratio = width / height;
  const frame = frameSize(template.resolution, template.aspect_ratio);
  if (Math.abs(ratio - frame.width / frame.height) > 0.01) {
    throw new InvalidParameterError(
      `A ${width}x${height} frame does not have the template's aspect ratio (${template.aspect_ratio}, e.g. ${frame.width}x${frame.height}).`,
      'dimension',
    );
  }
  const short = Math.min(width, height);
  return TIER_OF_SHORT_EDGE.find(([edge]) => short <= edge)?.[1] ?? '4k';
}

export async function generateFromTemplate(
  workspaceId: string,
  template: TemplateRecord,
  request: GenerateRequest,
): Promise<VideoRecord> {
  const workspace = await getWorkspace(workspaceId, true);
  if (!workspace) throw new Error(`Workspace ${workspaceId} vanished`);
  const requested = request.dimension ? resolutionOf(request.dimension, template) : undefined;
  if (requested && !resolutionAllowed(workspace.plan, requested)) {
    throw new ServiceError(
      400,
      'resolution_not_allowed',
      `A ${request.dimension?.width}x${request.dimension?.height} frame is ${requested}, above what the ${workspace.plan} plan allows (at most ${PLAN_ENTITLEMENTS[workspace.plan].maxResolution}).`,
      { param: 'dimension' },
    );
  }
  const resolution = requested ?? capResolution(workspace.plan, template.resolution);
  assertCanPay(workspace, videoCredits(0, resolution));
  if (request.folder_id !== undefined)
    await requireUsableFolder(workspaceId, request.folder_id, 'folder_id', 'video');
  const kit = await brandKitForVideo(workspace, request.brand_kit_id);

  let scenes = template.render.scenes;
  if (request.scene_ids !== undefined) {
    // Select, reorder and repeat (a repeat gets its own id: scene ids name a render's work files).
    const byId = new Map(scenes.map((scene) => [scene.id, scene]));
    const seen = new Map<string, number>();
    scenes = request.scene_ids.map((id, index) => {
      const scene = byId.get(id);
      if (!scene)
        throw new InvalidParameterError(
          `Scene ${id} is not a scene of this template; its scenes are: ${[...byId.keys()].join(', ')}.`,
          `scene_ids[${index}]`,
        );
      const repeat = (seen.get(id) ?? 0) + 1;
      seen.set(id, repeat);
      return repeat === 1 ? scene : { ...scene, id: `${id}_repeat_${repeat}` };
    });
  }
  const glossary = request.brand_glossary_id ?? request.brand_voice_id;
  const bound = await bindAll(workspaceId, template, request.variables);
  const scripts = withPlaceholders(template.render, template.variables);
  const render: RenderSpec = {
    ...template.render,
    scenes: scenes.map((scene) => {
      // A repeated scene is bound as the scene it repeats (its parts' ids are the original's).
      const original = scene.id.replace(/_repeat_\d+$/, '');
      return {
        ...bindScene({ ...scene, id: original }, scripts.get(original), template.variables, bound),
        id: scene.id,
      };
    }),
    // `caption` burns captions in (reference); `subtitles` implies them.
    ...(request.caption !== undefined || request.subtitles !== undefined
      ? {
          captions_requested: request.caption === true || request.subtitles !== undefined,
          burn_captions: request.caption === true || request.subtitles !== undefined,
        }
      : {}),
    ...(glossary !== undefined ? { brand_glossary_id: glossary } : {}),
  };
  return admitVideo(
    workspace,
    { workspaceId },
    {
      type: template.video_type,
      title: request.title ?? template.name,
      folder_id: request.folder_id ?? null,
      callback_url: request.callback_url ?? null,
      callback_id: request.callback_id ?? null,
      output_format: template.output_format,
      resolution,
      aspect_ratio: template.aspect_ratio,
      // The kit first: a kit of the request's replaces the template's, whose files are then not copied.
      render: await detachMedia(workspaceId, template, await brandedSpec(workspaceId, render, kit)),
      estimateSeconds: await estimateSeconds(render),
    },
  );
}
