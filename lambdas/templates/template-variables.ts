/**
 * A template's parts and variables. Every scene of the template's render spec has parts, each with an
 * `id` (the same ids as the video's scenes document: `scene_1_avatar`, `scene_1_script`, ...) and the
 * kinds of value it can be bound to (`bindable_as`). A variable either binds a part (`character`: an
 * avatar look, `voice`, `image`, `video`, `audio`, by `element_id`) or turns every occurrence of an exact phrase
 * of a script into a `{{name}}` placeholder (`text`, by `match`, in one script or in all of them).
 *
 * The template keeps its scripts as the video had them: placeholders are applied in variable order
 * each time they are needed, so a PUT can always match the original phrases again.
 */
import { getAvatarLook } from '../avatars/avatars.js';
import { InvalidParameterError, NotFoundError } from '../core/errors.js';
import type { RenderSpec } from '../videos/render-spec.js';
import { resolveVoice, VOICE_RESOLUTION_FAILURE, VoiceResolutionError } from '../voices/voice-resolution.js';

/** As the reference names them: `character` binds an avatar look (by `avatar_id`). */
export const BIND_KINDS = ['text', 'character', 'voice', 'image', 'video', 'audio'] as const;
export type BindKind = (typeof BIND_KINDS)[number];

/** Most variables a template holds. */
export const MAX_TEMPLATE_VARIABLES = 100;
export const VARIABLE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export interface TemplateVariable {
  name: string;
  type: BindKind;
  /** The bound part; for `text`, the one script `match` is looked for in (null: every script). */
  element_id: string | null;
  /** `text` only: the exact phrase the placeholder replaces. */
  match: string | null;
  /** A generate request must give a value. */
  required: boolean;
  /** Used when a generate request gives none: text, or an avatar look or voice id. Null: the part as it is. */
  default: string | null;
}

/** A variable as a PUT body gives it (lambdas/api/templates/schemas.ts). */
export interface VariableInput {
  name: string;
  type: BindKind;
  element_id?: string | undefined;
  match?: string | undefined;
  required?: boolean | undefined;
  default?: string | undefined;
  avatar_id?: string | undefined;
  voice_id?: string | undefined;
}

export interface TemplatePart {
  id: string;
  scene_id: string;
  element_type: 'avatar' | 'image' | 'tts' | 'audio' | 'background_image' | 'background_video';
  bindable_as: BindKind[];
  current: Record<string, unknown>;
}

export const scriptPartId = (sceneId: string) => `${sceneId}_script`;

/** The parts of every scene; `scripts` are the texts shown (placeholders applied), by scene id. */
export function partsOf(render: RenderSpec, scripts: ReadonlyMap<string, string>): TemplatePart[] {
  const parts: TemplatePart[] = [];
  for (const scene of render.scenes) {
    const at = (suffix: string) => `${scene.id}_${suffix}`;
    if (scene.presenter?.kind === 'avatar') {
      parts.push({
        id: at('avatar'),
        scene_id: scene.id,
        element_type: 'avatar',
        bindable_as: ['character'],
        current: { avatar_id: scene.presenter.avatar_id },
      });
    } else if (scene.presenter?.kind === 'image') {
      parts.push({
        id: at('image'),
        scene_id: scene.id,
        element_type: 'image',
        bindable_as: ['image'],
        current: {},
      });
    }
    if (scene.background.type === 'image') {
      parts.push({
        id: at('background'),
        scene_id: scene.id,
        element_type: 'background_image',
        bindable_as: ['image'],
        current: {},
      });
    } else if (scene.background.type === 'video') {
      parts.push({
        id: at('background'),
        scene_id: scene.id,
        element_type: 'background_video',
        bindable_as: ['video'],
        current: { volume: scene.background.volume, play_style: scene.background.mode },
      });
    }
    if (scene.speech?.kind === 'script') {
      parts.push({
        id: scriptPartId(scene.id),
        scene_id: scene.id,
        element_type: 'tts',
        bindable_as: ['text', 'voice'],
        current: {
          text: scripts.get(scene.id) ?? scene.speech.text,
          ...(scene.speech.voice_id !== null ? { voice_id: scene.speech.voice_id } : {}),
        },
      });
    } else if (scene.speech?.kind === 'audio') {
      parts.push({
        id: at('audio'),
        scene_id: scene.id,
        element_type: 'audio',
        bindable_as: ['audio'],
        current: {},
      });
    }
  }
  return parts;
}

const placeholder = (name: string) => `{{${name}}}`;

/** The scene ids whose scripts a text variable applies to. */
function scriptScenes(render: RenderSpec, elementId: string | null): string[] {
  return render.scenes
    .filter(
      (scene) =>
        scene.speech?.kind === 'script' && (elementId === null || scriptPartId(scene.id) === elementId),
    )
    .map((scene) => scene.id);
}

function originalScripts(render: RenderSpec): Map<string, string> {
  const scripts = new Map<string, string>();
  for (const scene of render.scenes)
    if (scene.speech?.kind === 'script') scripts.set(scene.id, scene.speech.text);
  return scripts;
}

/**
 * Applies one text variable to `scripts` (in place).
 * @returns whether its phrase was found
 */
function applyTextVariable(
  render: RenderSpec,
  scripts: Map<string, string>,
  variable: TemplateVariable,
): boolean {
  let found = false;
  for (const sceneId of scriptScenes(render, variable.element_id)) {
    const text = scripts.get(sceneId);
    if (text === undefined || variable.match === null || !text.includes(variable.match)) continue;
    scripts.set(sceneId, text.replaceAll(variable.match, placeholder(variable.name)));
    found = true;
  }
  return found;
}

/** The scripts with every text variable's placeholder, by scene id. */
export function withPlaceholders(
  render: RenderSpec,
  variables: readonly TemplateVariable[],
): Map<string, string> {
  const scripts = originalScripts(render);
  for (const variable of variables)
    if (variable.type === 'text') applyTextVariable(render, scripts, variable);
  return scripts;
}

/** The text variables each script part holds, by part id. */
export function textVariablesOf(
  variables: readonly TemplateVariable[],
  scripts: ReadonlyMap<string, string>,
): Map<string, string[]> {
  const byPart = new Map<string, string[]>();
  for (const [sceneId, text] of scripts) {
    const names = variables
      .filter((variable) => variable.type === 'text' && text.includes(placeholder(variable.name)))
      .map((variable) => variable.name);
    byPart.set(scriptPartId(sceneId), names);
  }
  return byPart;
}

/** Fills the placeholders of `text` with `values` (by variable name) in one pass. */
export function fillPlaceholders(text: string, values: ReadonlyMap<string, string>): string {
  return text.replace(
    /\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}/g,
    (whole, name: string) => values.get(name) ?? whole,
  );
}

/** 404 naming `param` unless the avatar look exists (a stock look or one of the workspace's). */
export async function requireAvatar(workspaceId: string, avatarId: string, param: string): Promise<void> {
  if (!(await getAvatarLook(workspaceId, avatarId))) {
    throw new NotFoundError(
      `Avatar ${avatarId} does not exist; pick a look from GET /v3/avatars/looks.`,
      'avatar_not_found',
      param,
    );
  }
}

/** 404 naming `param` for an unknown voice, 400 for one that cannot speak on this deployment. */
export async function requireVoice(workspaceId: string, voiceId: string, param: string): Promise<void> {
  try {
    await resolveVoice(workspaceId, voiceId);
  } catch (error) {
    if (!(error instanceof VoiceResolutionError)) throw error;
    if (error.failureCode === VOICE_RESOLUTION_FAILURE.notFound)
      throw new NotFoundError(error.message, 'voice_not_found', param);
    throw new InvalidParameterError(error.message, param);
  }
}

/**
 * Checks a PUT's variable list against the template's parts and scripts and answers the list to
 * store. Errors name the variable's field (`variables[2].match`).
 */
export async function checkVariables(
  workspaceId: string,
  render: RenderSpec,
  inputs: readonly VariableInput[],
): Promise<TemplateVariable[]> {
  const parts = new Map(partsOf(render, new Map()).map((part) => [part.id, part]));
  const partList = [...parts.keys()].join(', ') || 'none';
  const scripts = originalScripts(render);
  const names = new Set<string>();
  const bindings = new Map<string, string>();
  const variables: TemplateVariable[] = [];
  for (const [index, input] of inputs.entries()) {
    const at = (field: string) => `variables[${index}].${field}`;
    if (names.has(input.name))
      throw new InvalidParameterError(`Variable ${input.name} is named twice.`, at('name'));
    names.add(input.name);
    const part = input.element_id !== undefined ? parts.get(input.element_id) : undefined;
    if (input.element_id !== undefined && !part) {
      throw new InvalidParameterError(
        `Element ${input.element_id} is not a part of this template; its parts are: ${partList}.`,
        at('element_id'),
      );
    }
    if (part && !part.bindable_as.includes(input.type)) {
      throw new InvalidParameterError(
        `Element ${part.id} (${part.element_type}) can be bound as ${part.bindable_as.join(' or ')}, not ${input.type}.`,
        at('type'),
      );
    }
    if (input.avatar_id !== undefined && input.type !== 'character')
      throw new InvalidParameterError('avatar_id is for character variables only.', at('avatar_id'));
    if (input.voice_id !== undefined && input.type !== 'voice')
      throw new InvalidParameterError('voice_id is for voice variables only.', at('voice_id'));
    const given = [
      ['default', input.default],
      ['avatar_id', input.avatar_id],
      ['voice_id', input.voice_id],
    ].filter(([, value]) => value !== undefined) as [string, string][];
    if (given.length > 1)
      throw new InvalidParameterError(
        `Give one of ${given.map(([field]) => field).join(' and ')}.`,
        at(given[1]?.[0] ?? 'default'),
      );
    const [defaultField, defaultValue] = given[0] ?? ['default', undefined];
    const variable: TemplateVariable = {
      name: input.name,
      type: input.type,
      element_id: input.element_id ?? null,
      match: null,
      required: input.required ?? false,
      default: defaultValue ?? null,
    };
    if (input.type === 'text') {
      if (input.match === undefined)
        throw new InvalidParameterError(
          'A text variable needs `match`: the exact phrase of a script it replaces.',
          at('match'),
        );
      variable.match = input.match;
      if (!applyTextVariable(render, scripts, variable)) {
        throw new InvalidParameterError(
          `The phrase "${input.match}" is not in ${part ? `the script of ${part.id}` : 'any script of this template'} (phrases match exactly, case included${index > 0 ? ', after the variables before it' : ''}).`,
          at('match'),
        );
      }
      variable.default ??= input.match;
    } else {
      if (input.match !== undefined)
        throw new InvalidParameterError('`match` is for text variables only.', at('match'));
      if (!part)
        throw new InvalidParameterError(
          `A ${input.type} variable needs element_id: the part it binds.`,
          at('element_id'),
        );
      const bindingKey = `${part.id}:${input.type}`;
      const other = bindings.get(bindingKey);
      if (other)
        throw new InvalidParameterError(
          `Element ${part.id} is already bound as ${input.type} by variable ${other}.`,
          at('element_id'),
        );
      bindings.set(bindingKey, input.name);
      if (defaultValue !== undefined) {
        if (input.type === 'character') await requireAvatar(workspaceId, defaultValue, at(defaultField));
        else if (input.type === 'voice') await requireVoice(workspaceId, defaultValue, at(defaultField));
        else
          throw new InvalidParameterError(
            `A ${input.type} variable has no default: the template's own ${input.type} is used when a generate request gives none.`,
            at(defaultField),
          );
      }
    }
    variables.push(variable);
  }
  return variables;
}
