/**
 * The hosted API's `/v1` user-info and folder-creation routes over HTTP, as its clients call them:
 * the `/v1` shapes over the `/v3` implementation, errors naming the `/v1` field, `Deprecation` and
 * `Sunset` on every legacy answer (the `/v2` routes' too), the brand-voice routes still 410.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../lambdas/api/openapi.js';
import { LEGACY_DEPRECATED_AT, LEGACY_SUNSET_AT } from '../../lambdas/api/pipeline/deprecation.js';
import { ROUTES } from '../../lambdas/api/routes.js';
import { type ApiResult, errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;

beforeAll(async () => {
  api = await startTestStack();
}, 60_000);
afterAll(() => api.stop());

interface V1<T> {
  code: number;
  data: T;
  msg: null;
  message: null;
}
interface V1Folder {
  id: string;
  folder_id: string;
  name: string;
  parent_id: string | null;
  project_type: string;
  is_trash: boolean;
  creator_username: string;
  created_ts: number;
  updated_ts: number;
}

function expectLegacyHeaders(result: ApiResult<unknown>) {
  // RFC 9745: `@` and Unix seconds; RFC 8594: an HTTP-date.
  expect(result.headers.get('deprecation')).toBe(`@${LEGACY_DEPRECATED_AT.getTime() / 1000}`);
  expect(result.headers.get('sunset')).toBe('Sun, 31 Oct 2027 00:00:00 GMT');
  expect(Date.parse(result.headers.get('sunset') ?? '')).toBe(LEGACY_SUNSET_AT.getTime());
}

const createV1Folder = (body: Record<string, unknown>, key?: string) =>
  api.call<V1<V1Folder>>('POST', '/v1/folders/create', { body, ...(key ? { key } : {}) });

describe('GET /v1/user/me', () => {
  it('answers the owner in the /v1 envelope, the same person /v3/users/me names', async () => {
    const result = await api.call<V1<Record<string, string>>>('GET', '/v1/user/me');
    expect(result.status).toBe(200);
    const v3 = await api.call<{ data: Record<string, string> }>('GET', '/v3/users/me');
    expect(result.body).toEqual({
      code: 100,
      data: {
        username: v3.body.data.username,
        email: v3.body.data.email,
        first_name: v3.body.data.first_name,
        last_name: v3.body.data.last_name,
      },
      msg: null,
      message: null,
    });
    expectLegacyHeaders(result);
    expect(v3.headers.get('deprecation')).toBeNull();
    expect(v3.headers.get('sunset')).toBeNull();
  });

  it('each workspace sees its own owner', async () => {
    const other = await api.newWorkspace({ name: 'Other', owner: { username: 'other-owner' } });
    const result = await api.call<V1<{ username: string }>>('GET', '/v1/user/me', { key: other.apiKey });
    expect(result.body.data.username).toBe('other-owner');
  });

  it('refusals of the route carry the deprecation headers too (a 403)', async () => {
    // A 401 is API Gateway's answer (the authorizer), given before the route's function runs: it has none.
    const anonymous = await api.call('GET', '/v1/user/me', { key: null });
    expect(anonymous.status).toBe(401);
    const key = await api.newKey(api.workspaceId, 'custom', ['folders:read']);
    const forbidden = await api.call('GET', '/v1/user/me', { key });
    expect(forbidden.status).toBe(403);
    expect(errorOf(forbidden).code).toBe('insufficient_api_key_scope');
    expectLegacyHeaders(forbidden);
  });
});

describe('POST /v1/folders/create', () => {
  it('creates the folder /v3 serves, answering the /v1 shape', async () => {
    const result = await createV1Folder({ name: 'Dubs', project_type: 'video_translate' });
    expect(result.status).toBe(200);
    expectLegacyHeaders(result);
    const { code, data, msg, message } = result.body;
    expect({ code, msg, message }).toEqual({ code: 100, msg: null, message: null });
    expect(data).toMatchObject({
      name: 'Dubs',
      parent_id: null,
      project_type: 'video_translate',
      is_trash: false,
    });
    expect(data.folder_id).toBe(data.id);
    const v3 = await api.call<{ data: { name: string; type: string; created_at: number } }>(
      'GET',
      `/v3/folders/${data.id}`,
    );
    expect(v3.status).toBe(200);
    expect(v3.body.data).toMatchObject({
      name: 'Dubs',
      type: 'video_translate',
      created_at: data.created_ts,
    });
  });

  it('without project_type: mixed at the root, the parent type inside a typed parent', async () => {
    const root = await createV1Folder({ name: 'Everything' });
    expect(root.body.data.project_type).toBe('mixed');
    const videos = await createV1Folder({ name: 'Videos', project_type: 'video' });
    const child = await createV1Folder({ name: 'Launch', parent_id: videos.body.data.id });
    expect(child.status).toBe(200);
    expect(child.body.data).toMatchObject({ parent_id: videos.body.data.id, project_type: 'video' });
  });

  it.each([
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(257) }, 'name'],
    [{ project_type: 'video' }, 'name'],
    [{ name: 'Team', project_type: 'podcast' }, 'project_type'],
    [{ name: 'Looks', project_type: 'instant_avatar' }, 'project_type'],
    [{ name: 'Kits', project_type: 'brand_kit' }, 'project_type'],
    [{ name: 'Files', project_type: 'asset' }, 'project_type'],
    [{ name: 'Lost', parent_id: 'no-such-folder' }, 'parent_id'],
    [{ name: 'Extra', colour: 'red' }, 'colour'],
  ])('%j → 400 invalid_parameter naming %s', async (body, param) => {
    const result = await createV1Folder(body);
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
    expectLegacyHeaders(result);
  });

  it('a project_type other than its typed parent’s is refused naming project_type', async () => {
    const videos = await createV1Folder({ name: 'Only videos', project_type: 'video' });
    const result = await createV1Folder({
      name: 'Dubs',
      parent_id: videos.body.data.id,
      project_type: 'video_translate',
    });
    expect(result.status).toBe(400);
    const error = errorOf(result);
    expect(error).toMatchObject({ code: 'invalid_parameter', param: 'project_type' });
    expect(error.message).toContain('project_type video');
  });

  it("another workspace's folder is no parent (tenant isolation)", async () => {
    const other = await api.newWorkspace();
    const theirs = await createV1Folder({ name: 'Theirs' }, other.apiKey);
    const result = await createV1Folder({ name: 'Mine', parent_id: theirs.body.data.id });
    expect(result.status).toBe(400);
    expect(errorOf(result).param).toBe('parent_id');
  });

  it('replays the first answer for a repeated Idempotency-Key', async () => {
    const headers = { 'Idempotency-Key': 'v1-folder-once' };
    const first = await api.call<V1<V1Folder>>('POST', '/v1/folders/create', {
      body: { name: 'Once' },
      headers,
    });
    const again = await api.call<V1<V1Folder>>('POST', '/v1/folders/create', {
      body: { name: 'Once' },
      headers,
    });
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectLegacyHeaders(again);
  });

  it('needs folders:write', async () => {
    const key = await api.newKey(api.workspaceId, 'read_only');
    const result = await createV1Folder({ name: 'Nope' }, key);
    expect(result.status).toBe(403);
    expect(errorOf(result).code).toBe('insufficient_api_key_scope');
  });
});

describe('the other legacy routes', () => {
  it('/v2 answers carry the same Deprecation and Sunset', async () => {
    const result = await api.call('GET', '/v2/video_translate/target_languages');
    expect(result.status).toBe(200);
    expectLegacyHeaders(result);
  });

  it('/v1 brand-voice routes stay 410 naming the replacement', async () => {
    const result = await api.call('GET', '/v1/brand_voice/list', { key: null });
    expect(result.status).toBe(410);
    expect(errorOf(result)).toMatchObject({ code: 'gone' });
    expect(errorOf(result).message).toContain('GET /v3/brand-glossaries');
  });

  it('the OpenAPI document marks the /v1 routes deprecated, naming their /v3 replacement', () => {
    const document = buildOpenApiDocument(ROUTES, '0.0.0') as {
      paths: Record<string, Record<string, { deprecated?: boolean; description?: string }>>;
    };
    expect(document.paths['/v1/user/me']?.get).toMatchObject({ deprecated: true });
    expect(document.paths['/v1/user/me']?.get?.description).toContain('GET /v3/users/me');
    expect(document.paths['/v1/folders/create']?.post).toMatchObject({ deprecated: true });
    expect(document.paths['/v1/folders/create']?.post?.description).toContain('POST /v3/folders');
    const userMe = document.paths['/v1/user/me']?.get as
      | { responses?: Record<string, { headers?: object }> }
      | undefined;
    const success = userMe?.responses?.['200'];
    expect(Object.keys(success?.headers ?? {})).toEqual(['Deprecation', 'Sunset']);
  });
});
