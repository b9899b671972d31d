import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;
beforeAll(async () => {
  api = await startTestStack({
    environment: { ALLOWED_CORS_ORIGINS: 'https://app.example.com, https://admin.example.com' },
  });
});
afterAll(() => api.stop());

describe('CORS on responses', () => {
  it('allows a configured origin on successes and errors, and exposes the rate-limit headers', async () => {
    for (const path of ['/v3/users/me', '/v3/folders/does-not-exist']) {
      const result = await api.call('GET', path, { headers: { Origin: 'https://admin.example.com' } });
      expect(result.headers.get('access-control-allow-origin')).toBe('https://admin.example.com');
      expect(result.headers.get('vary')).toBe('Origin');
      expect(result.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
    }
  });

  it('sends nothing for other origins or callers without one', async () => {
    const other = await api.call('GET', '/v3/users/me', { headers: { Origin: 'https://evil.example.net' } });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect((await api.call('GET', '/v3/users/me')).headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS preflight', () => {
  it('answers OPTIONS from an allowed origin with the methods of the path', async () => {
    const response = await fetch(`${api.baseUrl}/v3/folders`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'POST' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST');
    expect(response.headers.get('access-control-allow-headers')).toContain('Idempotency-Key');
  });

  it('answers OPTIONS from any other origin with 405', async () => {
    const response = await fetch(`${api.baseUrl}/v3/folders`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example.net' },
    });
    expect(response.status).toBe(405);
  });
});
