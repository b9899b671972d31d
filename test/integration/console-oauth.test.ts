/**
 * The console's OAuth sign-in in a real browser: with an issuer configured, "Sign in with your
 * organisation" runs the authorization code flow with PKCE against it (a small authorization server
 * here, whose tokens the stack's authorizer verifies through the issuer's JWKS), and the console then
 * calls the API with the access token as `Authorization: Bearer`.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { type JwksIssuer, startJwksIssuer } from '../support/jwks-issuer.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

const CLIENT_ID = 'video-console';

interface AuthorizationServer {
  url: string;
  /** The PKCE checks the token endpoint made: true when the verifier matched the challenge. */
  exchanges: boolean[];
  stop(): Promise<void>;
}

/** Discovery, an authorize endpoint that approves at once, and a token endpoint that checks PKCE. */
async function startAuthorizationServer(
  issuer: JwksIssuer,
  workspaceId: () => string,
): Promise<AuthorizationServer> {
  const pending = new Map<string, { challenge: string; redirectUri: string }>();
  const exchanges: boolean[] = [];
  let base = '';
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', base);
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*' });
      response.end(JSON.stringify(body));
    };
    if (url.pathname === '/.well-known/openid-configuration') {
      json(200, {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
      });
    } else if (url.pathname === '/authorize') {
      const code = randomUUID();
      const redirectUri = url.searchParams.get('redirect_uri') ?? '';
      pending.set(code, { challenge: url.searchParams.get('code_challenge') ?? '', redirectUri });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      response.writeHead(302, { Location: back.toString() });
      response.end();
    } else if (url.pathname === '/token' && request.method === 'POST') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        const grant = pending.get(form.get('code') ?? '');
        const verified =
          grant !== undefined &&
          form.get('client_id') === CLIENT_ID &&
          form.get('redirect_uri') === grant.redirectUri &&
          createHash('sha256')
            .update(form.get('code_verifier') ?? '')
            .digest('base64url') === grant.challenge;
        exchanges.push(verified);
        if (!verified) {
          json(400, { error: 'invalid_grant' });
          return;
        }
        void issuer
          .sign({ iss: base, workspace_id: workspaceId(), scope: '*:*', client_id: CLIENT_ID })
          .then((token) => json(200, { access_token: token, token_type: 'Bearer', expires_in: 300 }));
      });
    } else {
      json(404, { error: 'not_found' });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: base, exchanges, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}

let issuer: JwksIssuer;
let authorization: AuthorizationServer;
let api: TestStack;
let browser: Browser;

beforeAll(async () => {
  issuer = await startJwksIssuer();
  authorization = await startAuthorizationServer(issuer, () => api.workspaceId);
  [api, browser] = await Promise.all([
    startTestStack({
      environment: {
        ...issuer.environment,
        // The authorization server is the issuer the API accepts; its keys are the JWKS issuer's.
        JWT_ISSUER: authorization.url,
        CONSOLE_OAUTH_CLIENT_ID: CLIENT_ID,
      },
    }),
    launchBrowser(),
  ]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await api?.stop();
  await authorization?.stop();
  await issuer?.stop();
});

describe('console OAuth sign-in', () => {
  it('signs in through the issuer with PKCE and calls the API with the bearer token', async () => {
    const page = await browser.newPage();
    await page.goto(`${api.baseUrl}/console/`);
    const button = await page.waitForSelector('::-p-text(Sign in with your organisation)');
    await Promise.all([page.waitForNavigation(), button?.click()]);
    await page.waitForSelector('#videos-title');
    expect(authorization.exchanges).toEqual([true]);
    // The code and state are gone from the address bar; the token is held for this tab only.
    expect(new URL(page.url()).search).toBe('');
    expect(await page.evaluate("JSON.parse(sessionStorage.getItem('video-console.credential')).kind")).toBe(
      'oauth',
    );
    // The workspace the token acts in, as the API answers it to the bearer token.
    await page.waitForSelector('.workspace');
    expect(await page.$eval('.workspace', (node) => node.textContent)).toBe('Test workspace');
    await page.close();
  });
});
