import { describe, expect, it } from 'vitest';
import { type Bound, bindScene } from '../../../lambdas/templates/template-generate.js';
import {
  checkVariables,
  fillPlaceholders,
  partsOf,
  type TemplateVariable,
  textVariablesOf,
  withPlaceholders,
} from '../../../lambdas/templates/template-variables.js';
import type { RenderScene, RenderSpec } from '../../../lambdas/videos/render-spec.js';

const settings = { speed: 1, pitch: 0, volume: 1 };

/** A studio video: an avatar on an image, a clip with a recording, a picture presenter on a colour. */
const spec: RenderSpec = {
  scenes: [
    {
      id: 'scene_1',
      source: 'avatar_video',
      background: { type: 'image', key: 'bg-1', fit: 'cover' },
      presenter: {
        kind: 'avatar',
        avatar_id: 'look-a',
        engine: 'avatar_iv',
        expressiveness: null,
        motion_prompt: null,
        fit: 'contain',
      },
      speech: { kind: 'script', text: 'Hi Alice. Alice, meet Acme.', voice_id: 'voice-a', settings },
      duration_ms: null,
    },
    {
      id: 'scene_2',
      source: 'video_scene',
      background: { type: 'video', key: 'clip-2', mode: 'loop', volume: 0.5 },
      presenter: null,
      speech: { kind: 'audio', key: 'audio-2' },
      duration_ms: null,
    },
    {
      id: 'scene_3',
      source: 'image_scene',
      background: { type: 'color', color: '#ffffff' },
      presenter: { kind: 'image', key: 'face-3', fit: 'contain' },
      speech: { kind: 'script', text: 'Alice ships on Monday.', voice_id: null, settings },
      duration_ms: null,
    },
  ],
  burn_captions: false,
  captions_requested: false,
  watermark: null,
  cinematic: null,
  brand_glossary_id: null,
};

const variable = (
  fields: Partial<TemplateVariable> & Pick<TemplateVariable, 'name' | 'type'>,
): TemplateVariable => ({
  element_id: null,
  match: null,
  required: false,
  default: null,
  ...fields,
});

describe('the parts of a template', () => {
  it('gives every scene its parts, with the ids of the scenes document and what they can be bound as', () => {
    expect(partsOf(spec, new Map()).map((part) => [part.id, part.element_type, part.bindable_as])).toEqual([
      ['scene_1_avatar', 'avatar', ['character']],
      ['scene_1_background', 'background_image', ['image']],
      ['scene_1_script', 'tts', ['text', 'voice']],
      ['scene_2_background', 'background_video', ['video']],
      ['scene_2_audio', 'audio', ['audio']],
      ['scene_3_image', 'image', ['image']],
      ['scene_3_script', 'tts', ['text', 'voice']],
    ]);
  });
});

describe('text variables', () => {
  const name = variable({ name: 'name', type: 'text', match: 'Alice' });
  const day = variable({ name: 'day', type: 'text', match: 'Monday', element_id: 'scene_3_script' });

  it('replace every occurrence of the phrase, in every script or in the one named', () => {
    const scripts = withPlaceholders(spec, [name, day]);
    expect(scripts.get('scene_1')).toBe('Hi {{name}}. {{name}}, meet Acme.');
    expect(scripts.get('scene_3')).toBe('{{name}} ships on {{day}}.');
    expect(textVariablesOf([name, day], scripts).get('scene_3_script')).toEqual(['name', 'day']);
    expect(textVariablesOf([name, day], scripts).get('scene_1_script')).toEqual(['name']);
  });

  it('are filled in one pass: a value holding a placeholder is not filled again', () => {
    const values = new Map([
      ['name', '{{day}}'],
      ['day', 'Friday'],
    ]);
    expect(fillPlaceholders('{{name}} ships on {{day}}; {{other}} stays.', values)).toBe(
      '{{day}} ships on Friday; {{other}} stays.',
    );
  });

  it('are checked against the scripts in order, naming the field to fix', async () => {
    await expect(
      checkVariables('ws', spec, [
        { name: 'a', type: 'text', match: 'Alice' },
        { name: 'b', type: 'text', match: 'Alice ships' },
      ]),
    ).rejects.toMatchObject({ status: 400, param: 'variables[1].match' });
    await expect(
      checkVariables('ws', spec, [{ name: 'a', type: 'text', match: 'Acme', element_id: 'scene_3_script' }]),
    ).rejects.toMatchObject({
      param: 'variables[0].match',
      message: expect.stringContaining('scene_3_script'),
    });
    const checked = await checkVariables('ws', spec, [{ name: 'a', type: 'text', match: 'Acme' }]);
    expect(checked).toEqual([variable({ name: 'a', type: 'text', match: 'Acme', default: 'Acme' })]);
  });

  it('refuse a binding kind the part does not take, and two variables binding one part', async () => {
    await expect(
      checkVariables('ws', spec, [{ name: 'v', type: 'video', element_id: 'scene_1_background' }]),
    ).rejects.toMatchObject({ param: 'variables[0].type' });
    await expect(
      checkVariables('ws', spec, [
        { name: 'a', type: 'audio', element_id: 'scene_2_audio' },
        { name: 'b', type: 'audio', element_id: 'scene_2_audio' },
      ]),
    ).rejects.toMatchObject({ param: 'variables[1].element_id' });
    await expect(
      checkVariables('ws', spec, [{ name: 'a', type: 'audio', element_id: 'scene_2_audio', default: 'x' }]),
    ).rejects.toMatchObject({ param: 'variables[0].default' });
  });
});

describe('binding a scene', () => {
  const scene = (index: number) => spec.scenes[index] as RenderScene;

  it('puts each value in the part it binds, and leaves the parts of other scenes alone', () => {
    const variables = [
      variable({ name: 'face', type: 'character', element_id: 'scene_1_avatar' }),
      variable({ name: 'backdrop', type: 'image', element_id: 'scene_1_background' }),
      variable({ name: 'narrator', type: 'voice', element_id: 'scene_1_script' }),
      variable({ name: 'clip', type: 'video', element_id: 'scene_2_background' }),
      variable({ name: 'recording', type: 'audio', element_id: 'scene_2_audio' }),
      variable({ name: 'photo', type: 'image', element_id: 'scene_3_image' }),
      variable({ name: 'name', type: 'text', match: 'Alice', default: 'Alice' }),
    ];
    const bound = new Map<string, Bound>([
      ['face', { type: 'character', value: 'look-b' }],
      ['backdrop', { type: 'image', key: 'bg-new', sizeBytes: 1 }],
      ['narrator', { type: 'voice', value: 'voice-b' }],
      ['clip', { type: 'video', key: 'clip-new', sizeBytes: 1 }],
      ['recording', { type: 'audio', key: 'audio-new', sizeBytes: 1 }],
      ['photo', { type: 'keep' }],
      ['name', { type: 'text', value: 'Zoë' }],
    ]);
    const scripts = withPlaceholders(spec, variables);
    const first = bindScene(scene(0), scripts.get('scene_1'), variables, bound);
    expect(first.presenter).toMatchObject({ kind: 'avatar', avatar_id: 'look-b' });
    expect(first.background).toMatchObject({ type: 'image', key: 'bg-new' });
    expect(first.speech).toMatchObject({
      kind: 'script',
      text: 'Hi Zoë. Zoë, meet Acme.',
      voice_id: 'voice-b',
    });
    const second = bindScene(scene(1), scripts.get('scene_2'), variables, bound);
    expect(second.background).toMatchObject({ type: 'video', key: 'clip-new', mode: 'loop', volume: 0.5 });
    expect(second.speech).toEqual({ kind: 'audio', key: 'audio-new' });
    const third = bindScene(scene(2), scripts.get('scene_3'), variables, bound);
    expect(third.presenter).toMatchObject({ kind: 'image', key: 'face-3' });
    expect(third.speech).toMatchObject({ text: 'Zoë ships on Monday.', voice_id: null });
  });

  it('refuses values that leave a script empty', () => {
    const variables = [variable({ name: 'all', type: 'text', match: 'Alice ships on Monday.' })];
    const scripts = withPlaceholders(spec, variables);
    expect(() =>
      bindScene(
        scene(2),
        scripts.get('scene_3'),
        variables,
        new Map([['all', { type: 'text', value: ' ' }]]),
      ),
    ).toThrow(/would be empty/);
  });
});
