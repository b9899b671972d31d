/**
 * Templates over HTTP: made from a finished video, read, listed, renamed, deleted; variables replaced
 * under `expected_edit_version`; videos generated with different values, which are ordinary videos
 * (their scenes document speaks the substituted script, they complete, they cost credits); tenant
 * isolation, scopes, removed field names, and the voice a template uses cannot be deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWorkspace } from '../../lambdas/accounts/workspaces.js';
import { putItem } from '../../lambdas/core/repository.js';
import { pendingVideo, videoItem } from '../../lambdas/videos/videos.js';
import { eventCapture } from '../support/event-capture.js';
import { png } from '../support/sample-media.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

const capture = eventCapture();
let api: TestStack;
let lookId: string;
let voiceId: string;
let otherVoiceId: string;
let sourceVideoId: string;

const SCRIPT = 'Hello Alice, welcome to Acme. Your order ships on Monday.';

interface Part {
  id: string;
  type: string;
  bindable_as: string[];
  current: Record<string, unknown>;
}
interface Template {
  id: string;
  name: string;
  aspect_ratio: string;
  created_at: number;
  updated_at: number;
  thumbnail_url: string | null;
  source_video_id: string;
  revision: number;
  edit_version: string;
  scene_ids: string[];
  elements: {
    element_id: string;
    element_type: string;
    scene_id: string;
    bindable_as: string[];
    current: Record<string, unknown>;
    variable: string | null;
    text_variables: string[];
  }[];
  variables: Record<string, { name: string; type: string; default: string | null; required: boolean }>;
  composition: { scenes: { id: string; script: string | null; parts: Part[] }[] };
}
interface VideoView {
  id: string;
  status: string;
  title: string | null;
  failure_code: string | null;
  failure_message: string | null;
}

async function waitForVideo(videoId: string, key?: string): Promise<VideoView> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const result = await api.call<{ data: VideoView }>('GET', `/v3/videos/${videoId}`, key ? { key } : {});
    expect(result.status).toBe(200);
    if (result.body.data.status === 'completed' || result.body.data.status === 'failed')
      return result.body.data;
    if (Date.now() > deadline) throw new Error(`Video ${videoId} still ${result.body.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The bus event about `videoId` (events arrive shortly after the video's status changes). */
async function eventOf(videoId: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const event = capture.events.find(
      (candidate) => (candidate.detail as { entity_id?: string } | undefined)?.entity_id === videoId,
    );
    if (event || Date.now() > deadline) return event;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function makeVideo(key?: string): Promise<string> {
  const created = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
    body: { type: 'avatar', avatar_id: lookId, voice_id: voiceId, script: SCRIPT, title: 'Welcome video' },
    ...(key ? { key } : {}),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.data.video_id;
}

async function makeTemplate(body: Record<string, unknown> = {}, key?: string): Promise<Template> {
  const created = await api.call<{ data: Template }>('POST', '/v3/templates', {
    body: { video_id: sourceVideoId, ...body },
    ...(key ? { key } : {}),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data;
}

function putVariables(templateId: string, editVersion: string | number, variables: unknown[], key?: string) {
  return api.call<{ data: Template }>('PUT', `/v3/templates/${templateId}/variables`, {
    body: { expected_edit_version: editVersion, variables },
    ...(key ? { key } : {}),
  });
}

function generate(templateId: string, body: Record<string, unknown>, key?: string) {
  return api.call<{ data: VideoView }>('POST', `/v3/templates/${templateId}`, {
    body,
    ...(key ? { key } : {}),
  });
}

async function scriptOf(videoId: string): Promise<{ text: string; voice_id?: string }> {
  const scenes = await api.call<{ data: { scenes: { script: { text: string; voice_id?: string }[] }[] } }>(
    'GET',
    `/v3/videos/${videoId}/scenes`,
  );
  expect(scenes.status).toBe(200);
  return scenes.body.data.scenes[0]?.script[0] as { text: string; voice_id?: string };
}

beforeAll(async () => {
  api = await startTestStack({ stepFunctionsTimeScale: 0.001, ...capture.stackOptions });
  await capture.subscribe(api);
  const looks = await api.call<{ data: { id: string; default_voice_id: string }[] }>(
    'GET',
    '/v3/avatars/looks?limit=1',
  );
  lookId = looks.body.data[0]?.id as string;
  voiceId = looks.body.data[0]?.default_voice_id as string;
  const voices = await api.call<{ data: { voice_id: string; type: string }[] }>('GET', '/v3/voices?limit=20');
  otherVoiceId = voices.body.data.find((voice) => voice.voice_id !== voiceId && voice.type === 'public')
    ?.voice_id as string;
  sourceVideoId = await makeVideo();
  expect((await waitForVideo(sourceVideoId)).status).toBe('completed');
}, 90_000);
afterAll(() => api.stop());

describe('making and reading templates', () => {
  it('makes a template of a finished video: its composition, parts, elements and edit_version', async () => {
    const template = await makeTemplate({ name: 'Onboarding' });
    expect(template).toMatchObject({
      name: 'Onboarding',
      aspect_ratio: '16:9',
      source_video_id: sourceVideoId,
      edit_version: '1',
      revision: 1,
      scene_ids: ['scene_1'],
      variables: {},
    });
    expect(template.id).toMatch(/^[0-9a-f]{32}$/);
    expect(template.thumbnail_url).toMatch(/^http/);
    const [scene] = template.composition.scenes;
    expect(scene?.script).toBe(SCRIPT);
    expect(scene?.parts).toEqual([
      { id: 'scene_1_avatar', type: 'avatar', bindable_as: ['character'], current: { avatar_id: lookId } },
      {
        id: 'scene_1_script',
        type: 'tts',
        bindable_as: ['text', 'voice'],
        current: { text: SCRIPT, voice_id: voiceId },
      },
    ]);
    expect(
      template.elements.map((element) => [element.element_id, element.element_type, element.scene_id]),
    ).toEqual([
      ['scene_1_avatar', 'avatar', 'scene_1'],
      ['scene_1_script', 'tts', 'scene_1'],
    ]);
    const read = await api.call<{ data: Template }>('GET', `/v3/templates/${template.id}`);
    expect(read.status).toBe(200);
    expect({ ...read.body.data, thumbnail_url: null }).toEqual({ ...template, thumbnail_url: null });
  });

  it("names a template after the video's title when no name is given", async () => {
    expect((await makeTemplate()).name).toBe('Welcome video');
  });

  it('answers 404 video_not_found for an unknown video, and 409 resource_not_ready while scenes are prepared', async () => {
    const missing = await api.call('POST', '/v3/templates', { body: { video_id: 'f'.repeat(32) } });
    expect(missing.status).toBe(404);
    expect(errorOf(missing)).toMatchObject({ code: 'video_not_found', param: 'video_id' });
    // A video whose render has not resolved its avatars and voices yet (its record as a create writes it).
    const { workspaceId, apiKey } = await api.newWorkspace();
    const preparing = pendingVideo({
      video_id: 'c0ffee00000000000000000000000002',
      workspace_id: workspaceId,
      type: 'avatar',
      title: null,
      folder_id: null,
      callback_url: null,
      callback_id: null,
      output_format: 'mp4',
      resolution: '720p',
      aspect_ratio: '16:9',
      render: {
        scenes: [],
        burn_captions: false,
        captions_requested: false,
        watermark: null,
        cinematic: null,
        brand_glossary_id: null,
      },
      batch_id: null,
      item_index: null,
    });
    await putItem(videoItem(preparing));
    const early = await api.call('POST', '/v3/templates', {
      body: { video_id: preparing.video_id },
      key: apiKey,
    });
    expect(early.status).toBe(409);
    expect(errorOf(early)).toMatchObject({ code: 'resource_not_ready', param: 'video_id' });
    expect(errorOf(early).message).toContain('retry');
  });

  it('refuses the removed `scenes` field, naming composition.scenes', async () => {
    const created = await api.call('POST', '/v3/templates', {
      body: { video_id: sourceVideoId, scenes: [] },
    });
    expect(created.status).toBe(400);
    expect(errorOf(created).param).toBe('scenes');
    expect(errorOf(created).message).toContain('composition.scenes');
    const template = await makeTemplate();
    const updated = await api.call('PATCH', `/v3/templates/${template.id}`, {
      body: { name: 'x', scenes: [] },
    });
    expect(updated.status).toBe(400);
    expect(errorOf(updated).message).toContain('composition.scenes');
    const put = await api.call('PUT', `/v3/templates/${template.id}/variables`, {
      body: { expected_edit_version: '1', variables: [], scenes: [] },
    });
    expect(errorOf(put)).toMatchObject({ code: 'invalid_parameter', param: 'scenes' });
    expect(errorOf(put).message).toContain('composition.scenes');
  });

  it('lists templates newest first, 10 by default, paging with token', async () => {
    const { workspaceId, apiKey } = await api.newWorkspace();
    const video = await makeVideo(apiKey);
    await waitForVideo(video, apiKey);
    const ids: string[] = [];
    for (let index = 0; index < 12; index++) {
      const created = await api.call<{ data: Template }>('POST', '/v3/templates', {
        body: { video_id: video, name: `T${index}` },
        key: apiKey,
      });
      ids.push(created.body.data.id);
    }
    expect(workspaceId).toBeTruthy();
    const first = await api.call<{ data: Template[]; has_more: boolean; next_token: string | null }>(
      'GET',
      '/v3/templates',
      { key: apiKey },
    );
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(10);
    expect(first.body.has_more).toBe(true);
    expect(Object.keys(first.body.data[0] ?? {}).sort()).toEqual(
      ['aspect_ratio', 'created_at', 'id', 'name', 'thumbnail_url', 'updated_at'].sort(),
    );
    const second = await api.call<{ data: Template[]; has_more: boolean }>(
      'GET',
      `/v3/templates?limit=10&token=${encodeURIComponent(first.body.next_token as string)}`,
      { key: apiKey },
    );
    expect(second.body.data).toHaveLength(2);
    expect(second.body.has_more).toBe(false);
    expect(new Set([...first.body.data, ...second.body.data].map((template) => template.id))).toEqual(
      new Set(ids),
    );
    expect(first.body.data[0]?.id).toBe(ids[11]);
    for (const limit of ['0', '101', 'x']) {
      const bad = await api.call('GET', `/v3/templates?limit=${limit}`, { key: apiKey });
      expect(bad.status).toBe(400);
      expect(errorOf(bad).param).toBe('limit');
    }
  });

  it('renames (PATCH) and deletes; a deleted template is 404 template_not_found', async () => {
    const template = await makeTemplate();
    const renamed = await api.call<{ data: Template }>('PATCH', `/v3/templates/${template.id}`, {
      body: { name: 'Renamed' },
    });
    expect(renamed.status).toBe(200);
    // A rename is not an edit: revision and edit_version stay (reference).
    expect(renamed.body.data).toMatchObject({ name: 'Renamed', revision: 1, edit_version: '1' });
    expect((await api.call<{ data: Template }>('GET', `/v3/templates/${template.id}`)).body.data.name).toBe(
      'Renamed',
    );
    const blank = await api.call('PATCH', `/v3/templates/${template.id}`, { body: { name: ' ' } });
    expect(errorOf(blank)).toMatchObject({ code: 'invalid_parameter', param: 'name' });
    const deleted = await api.call('DELETE', `/v3/templates/${template.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ data: { id: template.id, deleted: true } });
    for (const [method, path, body] of [
      ['GET', `/v3/templates/${template.id}`, undefined],
      ['DELETE', `/v3/templates/${template.id}`, undefined],
      ['PATCH', `/v3/templates/${template.id}`, { name: 'again' }],
      ['POST', `/v3/templates/${template.id}`, { variables: {} }],
      ['PUT', `/v3/templates/${template.id}/variables`, { expected_edit_version: '1', variables: [] }],
    ] as const) {
      const result = await api.call(method, path, body ? { body } : {});
      expect(result.status, `${method} ${path}`).toBe(404);
      expect(errorOf(result)).toMatchObject({ code: 'template_not_found', param: 'template_id' });
    }
  });
});

describe('variables', () => {
  it('turns phrases into placeholders and binds parts; each PUT bumps edit_version; a stale one is 409', async () => {
    const template = await makeTemplate();
    const put = await putVariables(template.id, template.edit_version, [
      { name: 'first_name', type: 'text', match: 'Alice', required: true },
      { name: 'day', type: 'text', match: 'Monday', element_id: 'scene_1_script' },
      { name: 'presenter', type: 'avatar', element_id: 'scene_1_avatar' },
      { name: 'narrator', type: 'voice', element_id: 'scene_1_script', default: voiceId },
    ]);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const updated = put.body.data;
    expect(updated.edit_version).toBe('2');
    expect(updated.composition.scenes[0]?.script).toBe(
      'Hello {{first_name}}, welcome to Acme. Your order ships on {{day}}.',
    );
    expect(updated.variables.day).toMatchObject({ type: 'text', default: 'Monday', required: false });
    expect(updated.variables.first_name).toMatchObject({ required: true, default: 'Alice' });
    const script = updated.elements.find((element) => element.element_id === 'scene_1_script');
    expect(script).toMatchObject({ variable: 'narrator', text_variables: ['first_name', 'day'] });
    expect(updated.elements.find((element) => element.element_id === 'scene_1_avatar')?.variable).toBe(
      'presenter',
    );

    const stale = await putVariables(template.id, template.edit_version, []);
    expect(stale.status).toBe(409);
    expect(errorOf(stale)).toMatchObject({ code: 'stale_edit_version', param: 'expected_edit_version' });
    // Nothing changed by the refused PUT; the current version replaces the whole list.
    const again = await putVariables(template.id, 2, [{ name: 'greeting', type: 'text', match: 'Hello' }]);
    expect(again.body.data.edit_version).toBe('3');
    expect(Object.keys(again.body.data.variables)).toEqual(['greeting']);
    expect(again.body.data.composition.scenes[0]?.script).toBe(
      '{{greeting}} Alice, welcome to Acme. Your order ships on Monday.',
    );
  });

  it.each([
    [[{ name: 'x', type: 'text', match: 'Bob' }], 'variables[0].match', /"Bob" is not in any script/],
    [
      [
        { name: 'a', type: 'text', match: 'Alice' },
        { name: 'b', type: 'text', match: 'Tuesday', element_id: 'scene_1_script' },
      ],
      'variables[1].match',
      /"Tuesday" is not in the script of scene_1_script/,
    ],
    [[{ name: 'x', type: 'text', match: 'alice' }], 'variables[0].match', /case included/],
    [
      [{ name: 'x', type: 'avatar', element_id: 'scene_9_avatar' }],
      'variables[0].element_id',
      /scene_1_avatar/,
    ],
    [
      [{ name: 'x', type: 'image', element_id: 'scene_1_avatar' }],
      'variables[0].type',
      /as character, not image/,
    ],
    [[{ name: 'x', type: 'avatar' }], 'variables[0].element_id', /needs element_id/],
    [[{ name: 'x', type: 'text' }], 'variables[0].match', /needs `match`/],
    [
      [
        { name: 'x', type: 'text', match: 'Alice' },
        { name: 'x', type: 'text', match: 'Acme' },
      ],
      'variables[1].name',
      /named twice/,
    ],
    [[{ name: '1x', type: 'text', match: 'Acme' }], 'variables[0].name', /letter/],
    [
      [{ name: 'x', type: 'avatar', element_id: 'scene_1_avatar', default: 'nope' }],
      'variables[0].default',
      /nope/,
    ],
    [
      [{ name: 'x', type: 'avatar', element_id: 'scene_1_avatar', avatar_look_id: 'abc' }],
      'variables[0].avatar_look_id',
      /avatar_id/,
    ],
    [
      [{ name: 'x', type: 'avatar', element_id: 'scene_1_avatar', character_type: 'avatar' }],
      'variables[0].character_type',
      /avatar_id/,
    ],
    [
      [{ name: 'x', type: 'avatar', element_id: 'scene_1_avatar', character_id: 'abc' }],
      'variables[0].character_id',
      /avatar_id/,
    ],
  ])('refuses %j naming %s', async (variables, param, message) => {
    const template = await makeTemplate();
    const result = await putVariables(template.id, template.edit_version, variables);
    expect(result.status).toBeGreaterThanOrEqual(400);
    expect(result.status).toBeLessThan(500);
    expect(errorOf(result).param).toBe(param);
    expect(errorOf(result).message).toMatch(message);
    // A refused PUT changes nothing.
    const read = await api.call<{ data: Template }>('GET', `/v3/templates/${template.id}`);
    expect(read.body.data.edit_version).toBe('1');
  });
});

describe('generating videos', () => {
  let template: Template;
  beforeAll(async () => {
    template = await makeTemplate({ name: 'Order update' });
    const put = await putVariables(template.id, '1', [
      { name: 'first_name', type: 'text', match: 'Alice', required: true },
      { name: 'day', type: 'text', match: 'Monday' },
      { name: 'presenter', type: 'avatar', element_id: 'scene_1_avatar' },
      { name: 'narrator', type: 'voice', element_id: 'scene_1_script' },
    ]);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  });

  it('makes ordinary videos that speak the substituted script and complete, each billed', async () => {
    const before = (await getWorkspace(api.workspaceId, true))?.remaining_credits as number;
    const values = [
      { first_name: 'Bob', day: 'Friday' },
      { first_name: 'Chloé', narrator: { voice_id: otherVoiceId } },
      { first_name: 'Dan', day: 'Sunday', presenter: lookId, narrator: voiceId },
    ];
    const ids: string[] = [];
    for (const [index, variables] of values.entries()) {
      const result = await generate(template.id, { variables, title: `Order ${index}` });
      expect(result.status, JSON.stringify(result.body)).toBe(202);
      expect(result.body.data).toMatchObject({ status: 'pending', title: `Order ${index}` });
      ids.push(result.body.data.id);
    }
    for (const id of ids) expect((await waitForVideo(id)).status).toBe('completed');
    expect(await scriptOf(ids[0] as string)).toMatchObject({
      text: 'Hello Bob, welcome to Acme. Your order ships on Friday.',
      voice_id: voiceId,
    });
    expect(await scriptOf(ids[1] as string)).toMatchObject({
      text: 'Hello Chloé, welcome to Acme. Your order ships on Monday.',
      voice_id: otherVoiceId,
    });
    expect((await scriptOf(ids[2] as string)).text).toBe(
      'Hello Dan, welcome to Acme. Your order ships on Sunday.',
    );
    // They are listed with the workspace's videos and cost credits as any video does.
    const listed = await api.call<{ data: VideoView[] }>('GET', '/v3/videos?limit=100');
    for (const id of ids) expect(listed.body.data.map((video) => video.id)).toContain(id);
    // Settled: each video, under a minute at 720p, costs one credit.
    expect((await getWorkspace(api.workspaceId, true))?.remaining_credits).toBe(before - 3);
    // The template is unchanged by what was generated from it.
    const read = await api.call<{ data: Template }>('GET', `/v3/templates/${template.id}`);
    expect(read.body.data.composition.scenes[0]?.script).toBe(
      'Hello {{first_name}}, welcome to Acme. Your order ships on {{day}}.',
    );
  });

  it('puts the video in a folder, takes a frame size and selects, reorders and repeats scenes', async () => {
    const folder = await api.call<{ data: { folder_id: string } }>('POST', '/v3/folders', {
      body: { name: 'Gen' },
    });
    const result = await generate(template.id, {
      variables: { first_name: 'Eve' },
      folder_id: folder.body.data.folder_id,
      dimension: { width: 1280, height: 720 },
      scene_ids: ['scene_1', 'scene_1'],
      caption: true,
      callback_id: 'order-eve',
      title: null,
    });
    expect(result.status, JSON.stringify(result.body)).toBe(202);
    expect(result.body.data).toMatchObject({ folder_id: folder.body.data.folder_id, title: 'Order update' });
    expect((await waitForVideo(result.body.data.id)).status).toBe('completed');
    const scenes = await api.call<{
      data: { video: { caption: unknown }; scenes: { id: string; script: { text: string }[] }[] };
    }>('GET', `/v3/videos/${result.body.data.id}/scenes`);
    expect(scenes.body.data.scenes.map((scene) => [scene.id, scene.script[0]?.text])).toEqual([
      ['scene_1', 'Hello Eve, welcome to Acme. Your order ships on Monday.'],
      ['scene_1_repeat_2', 'Hello Eve, welcome to Acme. Your order ships on Monday.'],
    ]);
    expect(scenes.body.data.video.caption).toEqual({ enabled: true });
    // Announced as any video is, with the callback_id of the request.
    const event = await eventOf(result.body.data.id);
    expect(event?.['detail-type']).toBe('avatar_video.success');
    expect((event?.detail as { event_data?: Record<string, unknown> } | undefined)?.event_data).toMatchObject(
      {
        video_id: result.body.data.id,
        callback_id: 'order-eve',
      },
    );
  });

  it.each([
    [{ variables: {} }, 'variables.first_name', /required/],
    [{ variables: { first_name: 42 } }, 'variables.first_name', /give a string/],
    [
      { variables: { first_name: 'A', nickname: 'B' } },
      'variables.nickname',
      /first_name, day, presenter, narrator/,
    ],
    [
      { variables: { first_name: 'A', presenter: { type: 'url', url: 'https://example.com/a.png' } } },
      'variables.presenter',
      /character variable: give \{"avatar_id"/,
    ],
    [{ variables: { first_name: 'A', presenter: 'f'.repeat(32) } }, 'variables.presenter', /does not exist/],
    [
      { variables: { first_name: 'A', presenter: { avatar_look_id: 'x' } } },
      'variables.presenter.avatar_look_id',
      /avatar_id/,
    ],
    [
      { variables: { first_name: 'A', presenter: { character_type: 'avatar' } } },
      'variables.presenter.character_type',
      /avatar_id/,
    ],
    [{ variables: { first_name: 'A', narrator: 'no-such-voice' } }, 'variables.narrator', /does not exist/],
    [{ variables: { first_name: 'A', narrator: ['x'] } }, 'variables.narrator', /voice variable/],
    [{ variables: { first_name: 'A' }, scene_ids: ['scene_7'] }, 'scene_ids[0]', /scene_1/],
    [
      { variables: { first_name: 'A' }, dimension: { width: 1000, height: 700 } },
      'dimension',
      /aspect ratio/,
    ],
    [{ variables: { first_name: 'A' }, fps: 30 }, 'fps', /25/],
    [{ variables: { first_name: 'A' }, folder_id: 'f'.repeat(32) }, 'folder_id', /does not exist/],
    [{ title: 'no variables' }, 'variables', /required/],
  ])('refuses %j naming %s', async (body, param, message) => {
    const result = await generate(template.id, body);
    expect([400, 404]).toContain(result.status);
    expect(errorOf(result).param).toBe(param);
    expect(errorOf(result).message).toMatch(message);
  });
});

describe('media variables', () => {
  const image = (rgb: [number, number, number]) => ({
    type: 'base64',
    media_type: 'image/png',
    data: png(64, 64, rgb).toString('base64'),
  });

  it('binds an image part; the template keeps its media after its video is deleted', async () => {
    const created = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
      body: {
        type: 'image',
        image: image([20, 120, 200]),
        voice_id: voiceId,
        script: 'A picture that talks.',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const videoId = created.body.data.video_id;
    expect((await waitForVideo(videoId)).status).toBe('completed');
    const template = await makeTemplate({ video_id: videoId, name: 'Picture' });
    expect(template.composition.scenes[0]?.parts.map((part) => [part.id, part.bindable_as])).toEqual([
      ['scene_1_image', ['image']],
      ['scene_1_script', ['text', 'voice']],
    ]);
    const put = await putVariables(template.id, '1', [
      { name: 'picture', type: 'image', element_id: 'scene_1_image' },
    ]);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.data.elements[0]).toMatchObject({ element_id: 'scene_1_image', variable: 'picture' });
    // The source video goes; the template still makes videos, with its own picture or a new one.
    expect((await api.call('DELETE', `/v3/videos/${videoId}`)).status).toBe(200);
    const own = await generate(template.id, { variables: {} });
    const replaced = await generate(template.id, { variables: { picture: image([240, 200, 10]) } });
    for (const result of [own, replaced]) {
      expect(result.status, JSON.stringify(result.body)).toBe(202);
      const done = await waitForVideo(result.body.data.id);
      expect(done.status, done.failure_message ?? '').toBe('completed');
    }
    const wrongKind = await generate(template.id, {
      variables: { picture: { type: 'base64', media_type: 'audio/wav', data: 'UklGRg==' } },
    });
    expect(wrongKind.status).toBe(400);
    expect(errorOf(wrongKind).param).toMatch(/^variables\.picture/);
    const notMedia = await generate(template.id, { variables: { picture: 'https://example.com/a.png' } });
    expect(errorOf(notMedia)).toMatchObject({ code: 'invalid_parameter', param: 'variables.picture' });
    expect(errorOf(notMedia).message).toContain('media input');
    // Videos and template do not share media: deleting a generated video leaves the template whole,
    // and deleting the template leaves a video still rendering whole.
    expect((await api.call('DELETE', `/v3/videos/${own.body.data.id}`)).status).toBe(200);
    const late = await generate(template.id, { variables: {} });
    expect(late.status).toBe(202);
    expect((await api.call('DELETE', `/v3/templates/${template.id}`)).status).toBe(200);
    const lateDone = await waitForVideo(late.body.data.id);
    expect(lateDone.status, lateDone.failure_message ?? '').toBe('completed');
  });

  it('answers a repeated generate with the same Idempotency-Key with the same video', async () => {
    const template = await makeTemplate();
    const headers = { 'Idempotency-Key': `template-${template.id}` };
    const first = await api.call<{ data: VideoView }>('POST', `/v3/templates/${template.id}`, {
      body: { variables: {} },
      headers,
    });
    const second = await api.call<{ data: VideoView }>('POST', `/v3/templates/${template.id}`, {
      body: { variables: {} },
      headers,
    });
    expect(first.status).toBe(202);
    expect(second.body.data.id).toBe(first.body.data.id);
  });
});

describe('isolation and scopes', () => {
  it("does not show, change or use another workspace's template", async () => {
    const template = await makeTemplate();
    const { apiKey } = await api.newWorkspace();
    for (const [method, path, body] of [
      ['GET', `/v3/templates/${template.id}`, undefined],
      ['PATCH', `/v3/templates/${template.id}`, { name: 'mine' }],
      ['DELETE', `/v3/templates/${template.id}`, undefined],
      ['POST', `/v3/templates/${template.id}`, { variables: {} }],
      ['PUT', `/v3/templates/${template.id}/variables`, { expected_edit_version: '1', variables: [] }],
    ] as const) {
      const result = await api.call(method, path, { key: apiKey, ...(body ? { body } : {}) });
      expect(result.status, `${method} ${path}`).toBe(404);
      expect(errorOf(result).code).toBe('template_not_found');
    }
    const list = await api.call<{ data: Template[] }>('GET', '/v3/templates', { key: apiKey });
    expect(list.body.data).toEqual([]);
    // Nor can a template be made of another workspace's video.
    const stolen = await api.call('POST', '/v3/templates', {
      body: { video_id: sourceVideoId },
      key: apiKey,
    });
    expect(errorOf(stolen)).toMatchObject({ code: 'video_not_found' });
    expect((await api.call('GET', `/v3/templates/${template.id}`)).status).toBe(200);
  });

  it('needs templates:read to read, templates:write to change, and videos:write too to generate', async () => {
    const template = await makeTemplate();
    const videosOnly = await api.newKey(api.workspaceId, 'custom', ['videos:read', 'videos:write']);
    const readOnly = await api.newKey(api.workspaceId, 'custom', ['templates:read']);
    for (const result of [
      await api.call('GET', '/v3/templates', { key: videosOnly }),
      await api.call('GET', `/v3/templates/${template.id}`, { key: videosOnly }),
      await generate(template.id, { variables: {} }, videosOnly),
      await generate(template.id, { variables: {} }, readOnly),
      await api.call('PATCH', `/v3/templates/${template.id}`, { body: { name: 'x' }, key: readOnly }),
    ]) {
      expect(result.status).toBe(403);
      expect(errorOf(result).code).toBe('insufficient_api_key_scope');
    }
    expect((await api.call('GET', `/v3/templates/${template.id}`, { key: readOnly })).status).toBe(200);
  });
});

describe('voices used by templates', () => {
  it('refuses to delete a voice a template uses (403) until the template stops using it', async () => {
    const designed = await api.call<{ data: { voices: { voice_id: string }[] } }>('POST', '/v3/voices', {
      body: { prompt: 'A calm young woman for onboarding videos' },
    });
    expect(designed.status, JSON.stringify(designed.body)).toBe(200);
    const [first, second] = designed.body.data.voices.map((voice) => voice.voice_id) as [string, string];
    const template = await makeTemplate();
    const put = await putVariables(template.id, '1', [
      { name: 'narrator', type: 'voice', element_id: 'scene_1_script', default: first },
    ]);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const refused = await api.call('DELETE', `/v3/voices/${first}`);
    expect(refused.status).toBe(403);
    expect(errorOf(refused)).toMatchObject({ code: 'resource_access_denied', param: 'voice_id' });
    expect(errorOf(refused).message).toContain(template.id);
    // Rebinding the default to another voice frees the first and holds the second ...
    await putVariables(template.id, '2', [
      { name: 'narrator', type: 'voice', element_id: 'scene_1_script', voice_id: second },
    ]);
    expect((await api.call('DELETE', `/v3/voices/${first}`)).status).toBe(200);
    expect((await api.call('DELETE', `/v3/voices/${second}`)).status).toBe(403);
    // ... until the template is deleted.
    expect((await api.call('DELETE', `/v3/templates/${template.id}`)).status).toBe(200);
    expect((await api.call('DELETE', `/v3/voices/${second}`)).status).toBe(200);
  });

  it("holds the voice the source video's script is spoken with", async () => {
    const designed = await api.call<{ data: { voices: { voice_id: string }[] } }>('POST', '/v3/voices', {
      body: { prompt: 'A cheerful older man for product news' },
    });
    const own = designed.body.data.voices[0]?.voice_id as string;
    const created = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
      body: { type: 'avatar', avatar_id: lookId, voice_id: own, script: SCRIPT },
    });
    const videoId = created.body.data.video_id;
    expect((await waitForVideo(videoId)).status).toBe('completed');
    const template = await api.call<{ data: Template }>('POST', '/v3/templates', {
      body: { video_id: videoId },
    });
    expect(template.status).toBe(201);
    expect((await api.call('DELETE', `/v3/voices/${own}`)).status).toBe(403);
    await api.call('DELETE', `/v3/templates/${template.body.data.id}`);
    expect((await api.call('DELETE', `/v3/voices/${own}`)).status).toBe(200);
  });
});
