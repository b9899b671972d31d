/**
 * OAuth access tokens (`Authorization: Bearer`) against a local issuer: verification (signature,
 * issuer, audience, lifetime), the workspace claim, scopes, the billing rule for OAuth clients, and
 * precedence of `X-Api-Key` when both credentials are sent.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { updateWorkspace } from '../../../lambdas/accounts/workspaces.js';
import { type JwksIssuer, startJwksIssuer } from '../../support/jwks-issuer.js';
import { type ApiResult, errorOf, startTestStack, type TestStack } from '../../support/test-stack.js';

let issuer: JwksIssuer;
let api: TestStack;

beforeAll(async () => {
  issuer = await startJwksIssuer({ audience: 'video-api' });
  api = await startTestStack({
    environment: { JWT_ISSUER: issuer.issuerUrl, JWKS_URL: issuer.jwksUrl, JWT_AUDIENCE: 'video-api' },
  });
});
afterAll(async () => {
  await api?.stop();
  await issuer?.stop();
});

interface Folder {
  folder_id: string;
  name: string;
}
interface KeySelf {
  key_id: string;
  auth_type: string;
  workspace_id: string;
  scope_mode: string;
  scopes: string[];
  expires_at: number | null;
}
interface Account {
  remaining_credits: number;
  wallet?: { remaining_balance: number };
}

function withBearer<T = Record<string, unknown>>(
  method: string,
  path: string,
  token: string,
  options: { body?: unknown; key?: string | null } = {},
): Promise<ApiResult<T>> {
  return api.call<T>(method, path, {
    key: options.key ?? null,
    headers: { Authorization: `Bearer ${token}` },
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
}

function expectUnauthorized(result: ApiResult, code = 'unauthorized') {
  expect(result.status).toBe(401);
  expect(errorOf(result).code).toBe(code);
}

async function folderIds(apiKey: string): Promise<string[]> {
  const list = await api.call<{ data: Folder[] }>('GET', '/v3/folders?limit=100', { key: apiKey });
  expect(list.status).toBe(200);
  return list.body.data.map((folder) => folder.folder_id);
}

describe('a valid access token', () => {
  it('creates and reads a folder in the token’s workspace', async () => {
    const { workspaceId, apiKey } = await api.newWorkspace();
    const token = await issuer.sign({ workspace_id: workspaceId, scope: 'folders:write folders:read' });

    const created = await withBearer<{ data: Folder }>('POST', '/v3/folders', token, {
      body: { name: 'Made by OAuth' },
    });
    expect(created.status).toBe(201);
    const read = await withBearer<{ data: Folder }>(
      'GET',
      `/v3/folders/${created.body.data.folder_id}`,
      token,
    );
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(created.body.data);
    // The folder belongs to the workspace: its API keys see it too.
    expect(await folderIds(apiKey)).toEqual([created.body.data.folder_id]);
  });

  it('is described by GET /v3/api_keys/self as an OAuth credential', async () => {
    const { workspaceId } = await api.newWorkspace();
    const token = await issuer.sign(
      {
        workspace_id: workspaceId,
        scope: 'folders:write folders:read',
        sub: 'user-42',
        client_id: 'crm-app',
      },
      { expiresIn: 600 },
    );
    const self = await withBearer<{ data: KeySelf }>('GET', '/v3/api_keys/self', token);
    expect(self.status).toBe(200);
    expect(self.body.data).toMatchObject({
      auth_type: 'oauth',
      workspace_id: workspaceId,
      scope_mode: 'custom',
      scopes: ['folders:write', 'folders:read'],
    });
    const { exp } = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as {
      exp: number;
    };
    expect(self.body.data.expires_at).toBe(exp);
  });

  it('maps `*:*` to full access and `*:read` to read-only', async () => {
    const { workspaceId } = await api.newWorkspace();
    const full = await withBearer<{ data: KeySelf }>(
      'GET',
      '/v3/api_keys/self',
      await issuer.sign({ workspace_id: workspaceId, scope: '*:*' }),
    );
    expect(full.body.data.scope_mode).toBe('full');
    const readOnlyToken = await issuer.sign({ workspace_id: workspaceId, scope: '*:read' });
    const readOnly = await withBearer<{ data: KeySelf }>('GET', '/v3/api_keys/self', readOnlyToken);
    expect(readOnly.body.data.scope_mode).toBe('read_only');
    expect((await withBearer('GET', '/v3/folders', readOnlyToken)).status).toBe(200);
    const write = await withBearer('POST', '/v3/folders', readOnlyToken, { body: { name: 'nope' } });
    expect(write.status).toBe(403);
    expect(errorOf(write).code).toBe('insufficient_api_key_scope');
  });
});

describe('tokens that must be refused', () => {
  // A fresh workspace per case: a token wrongly accepted must not spill into the next case.
  let workspaceId: string;
  let apiKey: string;
  beforeEach(async () => {
    ({ workspaceId, apiKey } = await api.newWorkspace());
  });
  const scope = 'folders:write folders:read';

  it.each([
    ['expired', () => issuer.sign({ workspace_id: workspaceId, scope }, { expiresIn: -60 })],
    [
      'not yet valid',
      () => issuer.sign({ workspace_id: workspaceId, scope, nbf: Math.floor(Date.now() / 1000) + 600 }),
    ],
    [
      'from another issuer',
      () => issuer.sign({ workspace_id: workspaceId, scope, iss: 'https://evil.example.com' }),
    ],
    ['for another audience', () => issuer.sign({ workspace_id: workspaceId, scope, aud: 'another-api' })],
    ['without an audience', () => issuer.sign({ workspace_id: workspaceId, scope, aud: undefined })],
    [
      'signed by a key the issuer does not publish',
      () => issuer.sign({ workspace_id: workspaceId, scope }, { signer: 'unpublished' }),
    ],
    [
      'signed by another key under the issuer’s key id',
      () => issuer.sign({ workspace_id: workspaceId, scope }, { signer: 'impostor' }),
    ],
    ['without the workspace claim', () => issuer.sign({ scope })],
    ['without a subject', () => issuer.sign({ workspace_id: workspaceId, scope, sub: undefined })],
    // RFC 9068 §2.2: `exp` is required in a JWT access token; without it a leaked token never expires.
    ['without an expiry (exp)', () => issuer.sign({ workspace_id: workspaceId, scope, exp: undefined })],
    [
      'HS256-signed with the issuer’s public JWKS as the secret (algorithm confusion)',
      async () => {
        const jwks = await (await fetch(issuer.jwksUrl)).text();
        const { keys } = JSON.parse(jwks) as { keys: { kid: string }[] };
        return new SignJWT({
          iss: issuer.issuerUrl,
          aud: 'video-api',
          sub: 'client',
          workspace_id: workspaceId,
          scope,
          exp: Math.floor(Date.now() / 1000) + 300,
        })
          .setProtectedHeader({ alg: 'HS256', kid: keys[0]?.kid ?? '' })
          .sign(new TextEncoder().encode(jwks));
      },
    ],
    [
      'unsigned (alg none)',
      async () => {
        const valid = await issuer.sign({ workspace_id: workspaceId, scope });
        const [, payload] = valid.split('.');
        const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
        return `${header}.${payload}.`;
      },
    ],
    [
      'with a tampered payload',
      async () => {
        const valid = await issuer.sign({ workspace_id: workspaceId, scope: 'folders:read' });
        const [header, , signature] = valid.split('.');
        const payload = Buffer.from(
          JSON.stringify({
            iss: issuer.issuerUrl,
            aud: 'video-api',
            sub: 'client',
            workspace_id: workspaceId,
            scope,
            exp: Math.floor(Date.now() / 1000) + 300,
          }),
        ).toString('base64url');
        return `${header}.${payload}.${signature}`;
      },
    ],
  ])('%s → 401 unauthorized, nothing created', async (_label, makeToken) => {
    const token = await makeToken();
    expectUnauthorized(await withBearer('POST', '/v3/folders', token, { body: { name: 'Refused' } }));
    expectUnauthorized(await withBearer('GET', '/v3/folders', token));
    expect(await folderIds(apiKey)).toEqual([]);
  });

  it('a token of a deleted workspace → 401 api_key_owner_workspace_access_revoked', async () => {
    const doomed = await api.newWorkspace();
    const token = await issuer.sign({ workspace_id: doomed.workspaceId, scope });
    expect((await withBearer('GET', '/v3/folders', token)).status).toBe(200);
    await updateWorkspace(doomed.workspaceId, { status: 'deleted' });
    expectUnauthorized(
      await withBearer('GET', '/v3/folders', token),
      'api_key_owner_workspace_access_revoked',
    );
    expectUnauthorized(
      await withBearer('POST', '/v3/folders', token, { body: { name: 'Ghost' } }),
      'api_key_owner_workspace_access_revoked',
    );
  });

  it('a token lacking a scope → 403 insufficient_api_key_scope naming it, nothing created', async () => {
    const token = await issuer.sign({ workspace_id: workspaceId, scope: 'folders:read' });
    const result = await withBearer('POST', '/v3/folders', token, { body: { name: 'Not allowed' } });
    expect(result.status).toBe(403);
    expect(errorOf(result).code).toBe('insufficient_api_key_scope');
    expect(errorOf(result).message).toContain('folders:write');
    expect(await folderIds(apiKey)).toEqual([]);

    const noScopes = await issuer.sign({ workspace_id: workspaceId });
    const read = await withBearer('GET', '/v3/folders', noScopes);
    expect(read.status).toBe(403);
    expect(errorOf(read).message).toContain('folders:read');
  });
});

describe('what an OAuth client can pay for', () => {
  async function account(apiKey: string): Promise<Account> {
    const me = await api.call<{ data: Account }>('GET', '/v3/users/me', { key: apiKey });
    expect(me.status).toBe(200);
    return me.body.data;
  }

  it.each(['subscription', 'wallet'] as const)(
    'an API-credit-only route (POST /v3/models/audio/tts) → 403 api_key_required in a %s workspace, nothing charged',
    async (billingType) => {
      const { workspaceId, apiKey } = await api.newWorkspace({ billing_type: billingType });
      if (billingType === 'wallet')
        await updateWorkspace(workspaceId, { wallet_balance: 25, wallet_currency: 'usd' });
      const before = await account(apiKey);
      const token = await issuer.sign({ workspace_id: workspaceId, scope: '*:*' });
      const result = await withBearer('POST', '/v3/models/audio/tts', token, {
        body: { text: 'Hello', voice_id: 'f'.repeat(32) },
      });
      expect(result.status).toBe(403);
      expect(errorOf(result).code).toBe('api_key_required');
      expect(errorOf(result).message).toMatch(/API key/i);
      expect(await account(apiKey)).toEqual(before);
    },
  );

  it('a credits route (POST /v3/videos) → 403 api_key_required in a subscription workspace', async () => {
    const { workspaceId, apiKey } = await api.newWorkspace({ billing_type: 'subscription' });
    const before = await account(apiKey);
    const token = await issuer.sign({ workspace_id: workspaceId, scope: 'videos:write videos:read' });
    const result = await withBearer('POST', '/v3/videos', token, { body: {} });
    expect(result.status).toBe(403);
    expect(errorOf(result).code).toBe('api_key_required');
    expect(await account(apiKey)).toEqual(before);
    // The same workspace's API key is not refused for payment.
    const withKey = await api.call('POST', '/v3/videos', { key: apiKey, body: {} });
    expect(withKey.status).not.toBe(403);
  });

  it('a credits route (POST /v3/videos) is not refused for payment in a wallet workspace', async () => {
    const { workspaceId } = await api.newWorkspace({ billing_type: 'wallet' });
    const token = await issuer.sign({ workspace_id: workspaceId, scope: 'videos:write videos:read' });
    const result = await withBearer('POST', '/v3/videos', token, { body: {} });
    expect(result.status).not.toBe(401);
    expect(result.status).not.toBe(403);
    expect([201, 400, 402, 501]).toContain(result.status);
  });

  it('a free route is not refused for payment in a subscription workspace', async () => {
    const { workspaceId } = await api.newWorkspace({ billing_type: 'subscription' });
    const token = await issuer.sign({ workspace_id: workspaceId, scope: 'folders:write' });
    expect((await withBearer('POST', '/v3/folders', token, { body: { name: 'Free' } })).status).toBe(201);
  });

  it('checks scopes before payment: a token without videos:write gets insufficient_api_key_scope', async () => {
    const { workspaceId } = await api.newWorkspace({ billing_type: 'subscription' });
    const token = await issuer.sign({ workspace_id: workspaceId, scope: 'folders:write' });
    const result = await withBearer('POST', '/v3/videos', token, { body: {} });
    expect(result.status).toBe(403);
    expect(errorOf(result).code).toBe('insufficient_api_key_scope');
  });
});

describe('both X-Api-Key and Authorization: Bearer', () => {
  it('an invalid bearer token with a valid key is API-key authenticated', async () => {
    const { workspaceId } = await api.newWorkspace();
    const key = await api.newKey(workspaceId, 'custom', ['folders:read']);
    const self = await api.call<{ data: KeySelf }>('GET', '/v3/api_keys/self', {
      key,
      headers: { Authorization: 'Bearer not-a-token' },
    });
    expect(self.status).toBe(200);
    expect(self.body.data).toMatchObject({
      auth_type: 'api_key',
      workspace_id: workspaceId,
      scopes: ['folders:read'],
    });
  });

  it('a valid bearer token with an invalid key → 401', async () => {
    const { workspaceId, apiKey } = await api.newWorkspace();
    const token = await issuer.sign({ workspace_id: workspaceId, scope: '*:*' });
    for (const [method, path] of [
      ['GET', '/v3/api_keys/self'],
      ['POST', '/v3/folders'],
    ] as const) {
      const result = await api.call(method, path, {
        key: 'vcs_not-a-real-key',
        headers: { Authorization: `Bearer ${token}` },
        ...(method === 'POST' ? { body: { name: 'Nope' } } : {}),
      });
      expectUnauthorized(result);
    }
    expect(await folderIds(apiKey)).toEqual([]);
  });

  it('a valid bearer token with a valid key acts with the key’s scopes, not the token’s', async () => {
    const { workspaceId } = await api.newWorkspace();
    const readKey = await api.newKey(workspaceId, 'custom', ['folders:read']);
    const token = await issuer.sign({ workspace_id: workspaceId, scope: '*:*' });
    const self = await api.call<{ data: KeySelf }>('GET', '/v3/api_keys/self', {
      key: readKey,
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(self.body.data.auth_type).toBe('api_key');
    const write = await api.call('POST', '/v3/folders', {
      key: readKey,
      headers: { Authorization: `Bearer ${token}` },
      body: { name: 'Needs write' },
    });
    expect(write.status).toBe(403);
    expect(errorOf(write).code).toBe('insufficient_api_key_scope');
  });

  it('an API-credit-only route with a valid key and a bearer token is not refused as OAuth', async () => {
    const { workspaceId, apiKey } = await api.newWorkspace();
    const token = await issuer.sign({ workspace_id: workspaceId, scope: '*:*' });
    const result = await api.call('POST', '/v3/models/audio/tts', {
      key: apiKey,
      headers: { Authorization: `Bearer ${token}` },
      body: {},
    });
    expect(result.status).not.toBe(403);
  });
});
