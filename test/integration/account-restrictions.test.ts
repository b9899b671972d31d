/**
 * What an administrator restricts for a workspace (admin CLI `workspace update`), as the API answers
 * it: the spec's 403 `phone_verification_required`, `api_endpoint_disabled`,
 * `ai_vendor_access_restricted` and `voice_not_usable`, and 429 `quota_exceeded` for the daily job
 * quota. Each refusal creates and charges nothing, and lifting it lets the same request through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../lib/admin/admin-commands.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;
beforeAll(async () => {
  api = await startTestStack({
    // A vendor to restrict: media generation on an OpenAI-compatible server (never reached here).
    environment: { MEDIA_GENERATION_ENGINE: 'openai', MEDIA_GENERATION_BASE_URL: 'http://127.0.0.1:9/v1' },
  });
});
afterAll(() => api.stop());

const admin = (...argv: string[]) => runAdminCommand(argv);

const video = (script: string, voiceId = 'en-us-olivia') => ({
  body: { type: 'avatar', avatar_id: 'maya-office', voice_id: voiceId, script },
});

async function credits(key: string): Promise<number> {
  const me = await api.call<{ data: { remaining_credits: number } }>('GET', '/v3/users/me', { key });
  return me.body.data.remaining_credits;
}

describe('phone verification', () => {
  it('leaves only the account readable until the verification is done', async () => {
    const { workspaceId, apiKey: key } = await api.newWorkspace();
    await admin('workspace', 'update', workspaceId, '--phone-verification', 'required');

    const listed = await api.call('GET', '/v3/videos', { key });
    expect(listed.status).toBe(403);
    expect(errorOf(listed).code).toBe('phone_verification_required');
    expect(errorOf(listed).message).toMatch(/SMS/);
    const created = await api.call('POST', '/v3/videos', { key, ...video('Hello.') });
    expect(errorOf(created).code).toBe('phone_verification_required');
    // The account itself stays readable, so the user can see where they stand.
    expect((await api.call('GET', '/v3/users/me', { key })).status).toBe(200);
    expect((await api.call('GET', '/v3/usage', { key })).status).toBe(200);
    expect(await credits(key)).toBe(1000);

    await admin('workspace', 'update', workspaceId, '--phone-verification', 'done');
    expect((await api.call('GET', '/v3/videos', { key })).status).toBe(200);
  });
});

describe('disabled endpoints', () => {
  it('closes the named operations to every key of the workspace, and only those', async () => {
    const { workspaceId, apiKey: key } = await api.newWorkspace();
    await admin('workspace', 'update', workspaceId, '--disable-endpoint', 'VideoCreate');

    const refused = await api.call('POST', '/v3/videos', { key, ...video('Not today.') });
    expect(refused.status).toBe(403);
    expect(errorOf(refused)).toMatchObject({ code: 'api_endpoint_disabled' });
    expect(errorOf(refused).message).toContain('VideoCreate');
    expect((await api.call('GET', '/v3/videos', { key })).status).toBe(200);
    // Another workspace is not affected.
    expect((await api.call('POST', '/v3/videos', video('Fine here.'))).status).toBe(200);

    await admin('workspace', 'update', workspaceId, '--enable-endpoint', 'VideoCreate');
    expect((await api.call('POST', '/v3/videos', { key, ...video('Back.') })).status).toBe(200);
  });

  it('refuses an option that names no operation id', async () => {
    await expect(
      admin('workspace', 'update', api.workspaceId, '--disable-endpoint', '/v3/videos'),
    ).rejects.toThrow(/operation id/);
  });
});

describe('blocked AI vendors', () => {
  it('refuses a job whose engine is the blocked vendor, charging nothing; other vendors do not block it', async () => {
    const { workspaceId, apiKey: key } = await api.newWorkspace();
    const request = { key, body: { mode: 'text_to_video', model: 'service-video-1', prompt: 'A kite' } };

    await admin('workspace', 'update', workspaceId, '--block-vendor', 'openai_compatible');
    const refused = await api.call('POST', '/v3/models/videos', request);
    expect(refused.status).toBe(403);
    expect(errorOf(refused).code).toBe('ai_vendor_access_restricted');
    expect(errorOf(refused).message).toMatch(/openai_compatible.*image and video generation/);
    expect(await credits(key)).toBe(1000);
    // Speech here is eSpeak, no vendor: videos are still made.
    expect((await api.call('POST', '/v3/videos', { key, ...video('Still speaking.') })).status).toBe(200);

    await admin('workspace', 'update', workspaceId, '--unblock-vendor', 'openai_compatible');
    await admin('workspace', 'update', workspaceId, '--block-vendor', 'amazon_bedrock');
    expect((await api.call('POST', '/v3/models/videos', request)).status).toBe(202);
  });
});

describe('blocked voices', () => {
  it('makes a voice the administrator blocked unusable for the workspace only', async () => {
    const { workspaceId, apiKey: key } = await api.newWorkspace();
    await admin('workspace', 'update', workspaceId, '--block-voice', 'en-us-olivia');

    const refused = await api.call('POST', '/v3/voices/speech', {
      key,
      body: { voice_id: 'en-us-olivia', text: 'Hello there.' },
    });
    expect(refused.status).toBe(403);
    expect(errorOf(refused)).toMatchObject({ code: 'voice_not_usable', param: 'voice_id' });
    expect(errorOf(refused).message).toMatch(/blocked/);
    const elsewhere = await api.call('POST', '/v3/voices/speech', {
      body: { voice_id: 'en-us-olivia', text: 'Hello there.' },
    });
    expect(elsewhere.status).toBe(200);
  });
});

describe('the daily job quota', () => {
  it('refuses paid jobs past the quota with 429 and Retry-After until the next UTC day, charging nothing', async () => {
    const { workspaceId, apiKey: key } = await api.newWorkspace();
    await admin('workspace', 'update', workspaceId, '--daily-job-quota', '2');

    for (const script of ['One.', 'Two.'])
      expect((await api.call('POST', '/v3/videos', { key, ...video(script) })).status).toBe(200);
    await expect.poll(() => credits(key)).toBe(998);
    const refused = await api.call('POST', '/v3/videos', { key, ...video('Three.') });
    expect(refused.status).toBe(429);
    expect(errorOf(refused).code).toBe('quota_exceeded');
    const retryAfter = Number(refused.headers.get('retry-after'));
    const untilMidnight = 86_400 - ((Date.now() / 1000) % 86_400);
    expect(retryAfter).toBeGreaterThan(0);
    expect(Math.abs(retryAfter - untilMidnight)).toBeLessThan(5);
    const listed = await api.call<{ data: unknown[] }>('GET', '/v3/videos', { key });
    expect(listed.body.data).toHaveLength(2);
    expect(await credits(key)).toBe(998);

    await admin('workspace', 'update', workspaceId, '--daily-job-quota', 'none');
    expect((await api.call('POST', '/v3/videos', { key, ...video('Three.') })).status).toBe(200);
  });

  it("goes back to the plan's with `plan`: a pro workspace then has none", async () => {
    const { workspaceId, apiKey: key } = await api.newWorkspace({ plan: 'pro' });
    await admin('workspace', 'update', workspaceId, '--daily-job-quota', '0');
    expect(errorOf(await api.call('POST', '/v3/videos', { key, ...video('Zero.') })).code).toBe(
      'quota_exceeded',
    );
    const shown = (await admin('workspace', 'update', workspaceId, '--daily-job-quota', 'plan')).output;
    expect(shown).not.toHaveProperty('daily_job_quota');
    expect((await api.call('POST', '/v3/videos', { key, ...video('Any number.') })).status).toBe(200);
  });
});
