/**
 * Templates: a video's scenes kept to make more videos like it. A template is made from a video of
 * the workspace whose scenes are ready; it keeps that video's render spec (scripts, avatars, voices,
 * media: the media copied under the template's own keys, so deleting the video, or a video made from
 * the template, leaves the template whole) and a list of variables (template-variables.ts) that say
 * which parts a generate request may change. `edit_version` counts the variable lists; a PUT names
 * the version it read, so two editors never overwrite each other unseen.
 *
 * A template of another workspace is never found (its key is in the workspace's partition).
 */

import type { Resolution } from '../billing/plans.js';
import { ConflictError, InvalidParameterError, NotFoundError } from '../core/errors.js';
import { ID_PATTERN, newId, nowSeconds } from '../core/ids.js';
import {
  deleteExistingItem,
  getItem,
  putNewItem,
  queryWorkspaceResources,
  updateExistingItem,
} from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import {
  copyMediaObject,
  deleteMediaPrefix,
  headMediaObject,
  presignMediaDownload,
} from '../media/media-store.js';
import { movedBrandKit } from '../videos/brand-kit-render.js';
import type { RenderScene, RenderSpec } from '../videos/render-spec.js';
import type { AspectRatio, VideoType } from '../videos/video-requests.js';
import { scenesDocument } from '../videos/video-views.js';
import { getVideo } from '../videos/videos.js';
import { syncTemplateVoiceReferences } from '../voices/voice-references.js';
import {
  type BindKind,
  partsOf,
  type TemplatePart,
  type TemplateVariable,
  textVariablesOf,
  withPlaceholders,
} from './template-variables.js';

export interface TemplateRecord {
  template_id: string;
  workspace_id: string;
  name: string;
  source_video_id: string;
  video_type: VideoType;
  aspect_ratio: AspectRatio;
  resolution: Resolution;
  output_format: 'mp4' | 'webm';
  /** The source video's render spec (voices resolved), its media under the template's keys. */
  render: RenderSpec;
  thumbnail_key: string | null;
  variables: TemplateVariable[];
  /** Bumped by each variables PUT. */
  edit_version: number;
  /** The reference's write counter of the template's variable set (renames do not count); equals edit_version here. */
  revision: number;
  created_at: number;
  updated_at: number;
}

type TemplateItem = TemplateRecord & { pk: string; sk: string };

const templateKey = (workspaceId: string, templateId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.template, templateId);

/** Where a template keeps its media. */
export const templateMediaPrefix = (workspaceId: string, templateId: string) =>
  `workspaces/${workspaceId}/templates/${templateId}/`;

export const templateNotFound = () =>
  new NotFoundError('Template not found.', 'template_not_found', 'template_id');

function toTemplate(item: TemplateItem): TemplateRecord {
  const { pk: _pk, sk: _sk, ...record } = item;
  return record;
}

export async function getTemplate(
  workspaceId: string,
  templateId: string,
  consistent = false,
): Promise<TemplateRecord | undefined> {
  if (!ID_PATTERN.test(templateId)) return undefined;
  const item = await getItem<TemplateItem>(templateKey(workspaceId, templateId), consistent);
  return item ? toTemplate(item) : undefined;
}

export async function requireTemplate(workspaceId: string, templateId: string): Promise<TemplateRecord> {
  const template = await getTemplate(workspaceId, templateId, true);
  if (!template) throw templateNotFound();
  return template;
}

/** Copies every media object of the spec under the template's prefix; returns the spec with the new keys. */
async function copyMedia(workspaceId: string, templateId: string, spec: RenderSpec): Promise<RenderSpec> {
  const prefix = templateMediaPrefix(workspaceId, templateId);
  const copy = async (key: string, name: string): Promise<string> => {
    const head = await headMediaObject(key);
    if (!head) {
      throw new InvalidParameterError(
        `A media file of this video is gone (${name}); a template cannot be made from it.`,
        'video_id',
      );
    }
    const to = `${prefix}${name}`;
    await copyMediaObject(workspaceId, key, to, head.contentType ?? 'application/octet-stream');
    return to;
  };
  const scenes: RenderScene[] = [];
  for (const scene of spec.scenes) {
    const background =
      scene.background.type === 'color'
        ? scene.background
        : { ...scene.background, key: await copy(scene.background.key, `${scene.id}-background`) };
    const presenter =
      scene.presenter?.kind === 'image'
        ? { ...scene.presenter, key: await copy(scene.presenter.key, `${scene.id}-image`) }
        : scene.presenter;
    const speech =
      scene.speech?.kind === 'audio'
        ? { ...scene.speech, key: await copy(scene.speech.key, `${scene.id}-audio`) }
        : scene.speech;
    scenes.push({ ...scene, background, presenter, speech });
  }
  const watermark = spec.watermark
    ? { ...spec.watermark, key: await copy(spec.watermark.key, 'watermark') }
    : null;
  return { ...spec, scenes, watermark, brand_kit: await movedBrandKit(spec.brand_kit, copy) };
}

/** Voices the template speaks with: its scripts' voices and its voice variables' defaults. */
export function voicesOf(template: Pick<TemplateRecord, 'render' | 'variables'>): Set<string> {
  const voices = new Set<string>();
  for (const scene of template.render.scenes)
    if (scene.speech?.kind === 'script' && scene.speech.voice_id) voices.add(scene.speech.voice_id);
  for (const variable of template.variables)
    if (variable.type === 'voice' && variable.default) voices.add(variable.default);
  return voices;
}

/**
 * `POST /v3/templates`: a private template from a video of the workspace.
 * @throws 404 `video_not_found`, 409 `resource_not_ready` while the video's scenes are being prepared
 */
export async function createTemplate(
  workspaceId: string,
  input: { video_id: string; name?: string | undefined },
): Promise<TemplateRecord> {
  const video = await getVideo(workspaceId, input.video_id, true);
  if (!video) throw new NotFoundError('Video not found.', 'video_not_found', 'video_id');
  // The same readiness rule as GET /v3/videos/{video_id}/scenes (409 resource_not_ready).
  scenesDocument(video);
  if (video.render.cinematic || video.render.scenes.length === 0) {
    throw new InvalidParameterError(
      'This video has no scenes to make a template of (cinematic_avatar videos are generated whole).',
      'video_id',
    );
  }
  const templateId = newId();
  const render = await copyMedia(workspaceId, templateId, video.render);
  let thumbnailKey: string | null = null;
  if (video.outputs?.thumbnail_key) {
    thumbnailKey = `${templateMediaPrefix(workspaceId, templateId)}thumbnail.jpg`;
    await copyMediaObject(workspaceId, video.outputs.thumbnail_key, thumbnailKey, 'image/jpeg');
  }
  const now = nowSeconds();
  const template: TemplateRecord = {
    template_id: templateId,
    workspace_id: workspaceId,
    // A title may be longer than a template name (500 characters against 256).
    name: input.name ?? [...(video.title ?? `Template of video ${video.video_id}`)].slice(0, 256).join(''),
    source_video_id: video.video_id,
    video_type: video.type,
    aspect_ratio: video.aspect_ratio,
    resolution: video.resolution,
    output_format: video.output_format,
    render,
    thumbnail_key: thumbnailKey,
    variables: [],
    edit_version: 1,
    revision: 1,
    created_at: now,
    updated_at: now,
  };
  // References first: a voice deleted between the two writes would leave a template that cannot speak.
  await syncTemplateVoiceReferences(workspaceId, templateId, new Set(), voicesOf(template));
  if (!(await putNewItem({ ...templateKey(workspaceId, templateId), ...template }))) {
    throw new Error(`Template id collision: ${templateId}`);
  }
  return template;
}

export async function listTemplates(workspaceId: string, limit: number, token?: string) {
  const page = await queryWorkspaceResources<TemplateItem>(
    workspaceId,
    RESOURCE_TYPES.template,
    'TemplateList',
    limit,
    token,
  );
  return { items: page.items.map(toTemplate), nextToken: page.nextToken };
}

/** `PATCH`: renames; answers the template after the change. */
export async function renameTemplate(
  workspaceId: string,
  templateId: string,
  name: string,
): Promise<TemplateRecord> {
  // Renaming does not count as an edit: `revision` and `edit_version` stay (reference).
  const item = await updateExistingItem<TemplateItem>(templateKey(workspaceId, templateId), {
    name,
    updated_at: nowSeconds(),
  });
  if (!item) throw templateNotFound();
  return toTemplate(item);
}

/**
 * `PUT /v3/templates/{id}/variables`: replaces the variable list (already checked by
 * `checkVariables`) when `expectedEditVersion` is the current one.
 * @throws 409 `stale_edit_version` otherwise
 */
export async function replaceVariables(
  template: TemplateRecord,
  expectedEditVersion: number,
  variables: TemplateVariable[],
): Promise<TemplateRecord> {
  const stale = () =>
    new ConflictError(
      `edit_version is ${template.edit_version}, not ${expectedEditVersion}: the template changed since it was read. Read it again and retry with its edit_version.`,
      'stale_edit_version',
      { param: 'expected_edit_version' },
    );
  if (expectedEditVersion !== template.edit_version) throw stale();
  const before = voicesOf(template);
  const after = voicesOf({ ...template, variables });
  // Added references first (a voice must not be deleted while the new list names it) ...
  await syncTemplateVoiceReferences(
    template.workspace_id,
    template.template_id,
    before,
    new Set([...before, ...after]),
  );
  const item = await updateExistingItem<TemplateItem>(
    templateKey(template.workspace_id, template.template_id),
    {
      variables,
      edit_version: template.edit_version + 1,
      revision: template.revision + 1,
      updated_at: nowSeconds(),
    },
    [],
    { edit_version: template.edit_version },
  );
  if (!item) {
    // ... and the ones the refused list added go again, unless the template still uses them.
    const current = await getTemplate(template.workspace_id, template.template_id, true);
    const kept = current ? voicesOf(current) : new Set<string>();
    await syncTemplateVoiceReferences(
      template.workspace_id,
      template.template_id,
      new Set([...before, ...after]),
      kept,
    );
    if (!current) throw templateNotFound();
    throw stale();
  }
  // ... removed ones after the write.
  await syncTemplateVoiceReferences(
    template.workspace_id,
    template.template_id,
    new Set([...before, ...after]),
    after,
  );
  return toTemplate(item);
}

/** @returns false when there is no such template */
export async function deleteTemplate(workspaceId: string, templateId: string): Promise<boolean> {
  const template = await getTemplate(workspaceId, templateId, true);
  if (!template) return false;
  if (!(await deleteExistingItem(templateKey(workspaceId, templateId)))) return false;
  await syncTemplateVoiceReferences(workspaceId, templateId, voicesOf(template), new Set());
  await deleteMediaPrefix(templateMediaPrefix(workspaceId, templateId));
  return true;
}

// ---------------------------------------------------------------------------------------------
// Views

const thumbnailUrl = (template: TemplateRecord) =>
  template.thumbnail_key
    ? presignMediaDownload(template.thumbnail_key, {
        fileName: `${template.template_id}.jpg`,
        contentType: 'image/jpeg',
      })
    : Promise.resolve(null);

export async function templateSummaryView(template: TemplateRecord): Promise<Record<string, unknown>> {
  return {
    id: template.template_id,
    name: template.name,
    aspect_ratio: template.aspect_ratio,
    created_at: template.created_at,
    updated_at: template.updated_at,
    thumbnail_url: await thumbnailUrl(template),
  };
}

function partView(part: TemplatePart): Record<string, unknown> {
  return { id: part.id, type: part.element_type, bindable_as: part.bindable_as, current: part.current };
}

/** The template as GET answers it: the reference's fields, `composition` and `edit_version`. */
export async function templateView(template: TemplateRecord): Promise<Record<string, unknown>> {
  const scripts = withPlaceholders(template.render, template.variables);
  const parts = partsOf(template.render, scripts);
  const bound = new Map<string, string>();
  for (const variable of template.variables)
    if (variable.type !== 'text' && variable.element_id)
      bound.set(`${variable.element_id}:${variable.type}`, variable.name);
  const textVariables = textVariablesOf(template.variables, scripts);
  const boundName = (part: TemplatePart) =>
    part.bindable_as
      .filter((kind: BindKind) => kind !== 'text')
      .map((kind) => bound.get(`${part.id}:${kind}`))
      .find((name) => name !== undefined) ?? null;
  return {
    ...(await templateSummaryView(template)),
    source_video_id: template.source_video_id,
    revision: template.revision,
    edit_version: String(template.edit_version),
    scene_ids: template.render.scenes.map((scene) => scene.id),
    elements: parts.map((part) => ({
      element_id: part.id,
      element_type: part.element_type,
      scene_id: part.scene_id,
      bindable_as: part.bindable_as,
      current: part.current,
      variable: boundName(part),
      text_variables: textVariables.get(part.id) ?? [],
    })),
    variables: Object.fromEntries(
      template.variables.map((variable) => [
        variable.name,
        {
          name: variable.name,
          type: variable.type,
          element_id: variable.element_id,
          match: variable.match,
          required: variable.required,
          default: variable.default,
        },
      ]),
    ),
    composition: {
      scenes: template.render.scenes.map((scene) => ({
        id: scene.id,
        script: scripts.get(scene.id) ?? null,
        parts: parts.filter((part) => part.scene_id === scene.id).map(partView),
      })),
    },
  };
}
