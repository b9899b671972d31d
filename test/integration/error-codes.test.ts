/**
 * Every error code the catalogue (docs/errors.md) documents is produced, over HTTP, by the situation it
 * describes: the walk below fails for a documented code no test asserts. The situations no other file
 * covers are triggered here: two writes racing on one resource (`conflict`) and an integration slower
 * than API Gateway waits (`gateway_timeout`).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_RESPONSES } from '../../lambdas/api/gateway-responses.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Codes only API Gateway answers: the local server has no such refusal. They are gateway responses
 * (lambdas/api/gateway-responses.ts), each of which test/infra/service-stack.test.ts finds in the
 * synthesized stack.
 */
const GATEWAY_ONLY: readonly string[] = ['unsupported_media_type'];

/** The files whose tests call the API over HTTP (the local stack, or the service started as users start it). */
async function httpTestFiles(): Promise<string[]> {
  const files: string[] = [];
  for (const folder of ['test/integration', 'test/smoke']) {
    const entries = await readdir(path.join(ROOT, folder), { recursive: true, withFileTypes: true });
    for (const entry of entries)
      if (entry.isFile() && entry.name.endsWith('.test.ts'))
        files.push(path.join(entry.parentPath, entry.name));
  }
  return files;
}

describe('the catalogue of error codes', () => {
  it('has every documented code asserted by a test over HTTP', async () => {
    const catalogue = await readFile(path.join(ROOT, 'docs/errors.md'), 'utf8');
    const documented = [...catalogue.matchAll(/<a id="([a-z_]+)"><\/a>/g)].map(([, code]) => code ?? '');
    expect(documented.length).toBeGreaterThan(40);
    const sources = await Promise.all((await httpTestFiles()).map((file) => readFile(file, 'utf8')));
    // A code a test asserts appears in it as a string of its own: 'code', "code" or `code`.
    const asserted = (code: string) =>
      sources.some((source) => new RegExp(`['"\`]${code}['"\`]`).test(source));
    const unproduced = documented.filter((code) => !GATEWAY_ONLY.includes(code) && !asserted(code));
    expect(unproduced, 'documented codes no HTTP test produces').toEqual([]);
    const gatewayCodes = Object.values(GATEWAY_RESPONSES).map(({ code }) => code as string);
    expect(gatewayCodes).toEqual(expect.arrayContaining([...GATEWAY_ONLY]));
  });
});

describe('situations no other test covers', () => {
  let api: TestStack;
  beforeAll(async () => {
    api = await startTestStack();
  });
  afterAll(() => api.stop());

  it('answers concurrent writes of one resource with one winner and 409 conflict for the rest', async () => {
    const created = await api.call<{ data: { endpoint_id: string } }>('POST', '/v3/webhooks/endpoints', {
      body: { url: 'https://hooks.example.com/race' },
    });
    const rotate = `/v3/webhooks/endpoints/${created.body.data.endpoint_id}/rotate-secret`;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => api.call<{ data: { secret: string } }>('POST', rotate)),
    );
    const won = answers.filter((answer) => answer.status === 200);
    const lost = answers.filter((answer) => answer.status !== 200);
    expect(won.length).toBeGreaterThanOrEqual(1);
    // Each request read the endpoint before writing: those that lost the race are told so.
    expect(lost.length).toBeGreaterThanOrEqual(1);
    for (const answer of lost) expect(errorOf(answer)).toMatchObject({ code: 'conflict' });
  });

  it('answers 504 gateway_timeout when the integration is slower than the gateway waits', async () => {
    const impatient = await startTestStack({ integrationTimeoutMs: 1 });
    try {
      const answer = await impatient.call('GET', '/v3/folders');
      expect(answer.status).toBe(504);
      expect(errorOf(answer)).toMatchObject({ code: 'gateway_timeout' });
      expect(errorOf(answer).doc_url).toBe(`${impatient.baseUrl}/v3/docs/errors#gateway_timeout`);
    } finally {
      await impatient.stop();
    }
  });
});
