import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateWorkspace } from '../../lambdas/accounts/workspaces.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;
beforeAll(async () => {
  api = await startTestStack();
});
afterAll(() => api.stop());

describe('GET /v3/users/me', () => {
  it('describes a subscription account with its plan and credits', async () => {
    const { apiKey, workspaceId } = await api.newWorkspace({
      name: 'Acme',
      plan: 'pro',
      billing_type: 'subscription',
      included_credits: 500,
      owner: { username: 'ada', email: 'ada@acme.test', first_name: 'Ada', last_name: 'Lovelace' },
    });
    const result = await api.call<{ data: Record<string, unknown> }>('GET', '/v3/users/me', { key: apiKey });
    expect(result.status).toBe(200);
    expect(result.body.data).toMatchObject({
      username: 'ada',
      email: 'ada@acme.test',
      first_name: 'Ada',
      last_name: 'Lovelace',
      workspace_id: workspaceId,
      billing_type: 'subscription',
      subscription: { plan: 'pro', credits: { premium_credits: { remaining: 500 } } },
      included_credits: 500,
      remaining_credits: 500,
    });
    expect(result.body.data.wallet).toBeUndefined();
  });

  it('shows the billing object that matches the billing type', async () => {
    const { apiKey, workspaceId } = await api.newWorkspace({ billing_type: 'wallet' });
    await updateWorkspace(workspaceId, { wallet_balance: 42.5, wallet_currency: 'usd' });
    const wallet = await api.call<{ data: Record<string, unknown> }>('GET', '/v3/users/me', { key: apiKey });
    expect(wallet.body.data).toMatchObject({
      billing_type: 'wallet',
      wallet: { currency: 'usd', remaining_balance: 42.5 },
    });
    expect(wallet.body.data.subscription).toBeUndefined();

    const usage = await api.newWorkspace({ billing_type: 'usage_based', included_credits: 80 });
    const usageBased = await api.call<{ data: Record<string, unknown> }>('GET', '/v3/users/me', {
      key: usage.apiKey,
    });
    expect(usageBased.body.data).toMatchObject({
      billing_type: 'usage_based',
      usage_based: { included_credits: 80, remaining_credits: 80 },
    });
  });

  it('needs account:read', async () => {
    const key = await api.newKey(api.workspaceId, 'custom', ['videos:read']);
    const result = await api.call('GET', '/v3/users/me', { key });
    expect(result.status).toBe(403);
    expect(errorOf(result).code).toBe('insufficient_api_key_scope');
    expect(errorOf(result).message).toContain('account:read');
  });
});

describe('GET /v3/api_keys/self', () => {
  it('describes the calling key, whatever its scopes', async () => {
    const expiresAt = Math.floor(Date.now() / 1000) + 3600;
    const key = await api.newKey(api.workspaceId, 'custom', ['videos:read', 'assets:write'], expiresAt);
    const result = await api.call<{ data: Record<string, unknown> }>('GET', '/v3/api_keys/self', { key });
    expect(result.status).toBe(200);
    expect(result.body.data).toMatchObject({
      name: 'custom test key',
      scope_mode: 'custom',
      scopes: ['videos:read', 'assets:write'],
      expires_at: expiresAt,
      auth_type: 'api_key',
      workspace_id: api.workspaceId,
    });
    const readOnly = await api.call<{ data: Record<string, unknown> }>('GET', '/v3/api_keys/self', {
      key: await api.newKey(api.workspaceId, 'read_only'),
    });
    expect(readOnly.body.data).toMatchObject({
      scope_mode: 'read_only',
      scopes: ['*:read'],
      expires_at: null,
    });
  });
});
