/**
 * A local OAuth issuer for tests: an RS256 key pair whose public half is published as a JWKS on a
 * loopback HTTP server, and `sign()` to mint access tokens for it. A second, unpublished key pair
 * stands in for an attacker's key. Start it before the stack and hand the stack its URLs:
 *
 *   const issuer = await startJwksIssuer();
 *   const api = await startTestStack({ environment: issuer.environment });
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';

export interface SignOptions {
  /**
   * Lifetime of the token in seconds from now; negative for a token that has already expired.
   * Ignored when the claims carry `exp`. @default 300
   */
  expiresIn?: number;
  /**
   * Which private key signs: the published one, an unpublished one under its own `kid`, or an
   * unpublished one that claims the published key's `kid` (a forgery). @default 'published'
   */
  signer?: 'published' | 'unpublished' | 'impostor';
}

export interface JwksIssuer {
  /** The `iss` of the tokens this issuer signs (`JWT_ISSUER`). */
  issuerUrl: string;
  /** Where the public keys are served (`JWKS_URL`). */
  jwksUrl: string;
  /** The `aud` of the tokens this issuer signs (`JWT_AUDIENCE`). */
  audience: string;
  /** The environment that points the stack's authorizer at this issuer. */
  environment: Record<string, string>;
  /**
   * Signs an access token. `iss`, `aud`, `sub`, `iat` and `exp` default to valid values; any of them
   * in `claims` wins (pass `undefined` to leave a claim out).
   */
  sign(claims?: JWTPayload, options?: SignOptions): Promise<string>;
  stop(): Promise<void>;
}

export interface JwksIssuerOptions {
  /** @default 'video-api' */
  audience?: string;
}

const ALGORITHM = 'RS256';

export async function startJwksIssuer(options: JwksIssuerOptions = {}): Promise<JwksIssuer> {
  const audience = options.audience ?? 'video-api';
  const published = await generateKeyPair(ALGORITHM);
  const unpublished = await generateKeyPair(ALGORITHM);
  const publishedKid = `test-${randomUUID()}`;
  const unpublishedKid = `other-${randomUUID()}`;
  const jwks = JSON.stringify({
    keys: [{ ...(await exportJWK(published.publicKey)), kid: publishedKid, alg: ALGORITHM, use: 'sig' }],
  });

  const server: Server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/.well-known/jwks.json') {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(jwks);
      return;
    }
    response.writeHead(404, { 'Content-Type': 'application/json' });
    response.end('{"error":"not_found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuerUrl = `http://127.0.0.1:${port}`;
  const jwksUrl = `${issuerUrl}/.well-known/jwks.json`;

  async function sign(claims: JWTPayload = {}, signOptions: SignOptions = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const payload: JWTPayload = {
      iss: issuerUrl,
      aud: audience,
      sub: `client-${randomUUID()}`,
      iat: now,
      exp: now + (signOptions.expiresIn ?? 300),
      ...claims,
    };
    for (const [name, value] of Object.entries(payload)) if (value === undefined) delete payload[name];
    const signer = signOptions.signer ?? 'published';
    const key: CryptoKey = signer === 'published' ? published.privateKey : unpublished.privateKey;
    const kid = signer === 'unpublished' ? unpublishedKid : publishedKid;
    return new SignJWT(payload).setProtectedHeader({ alg: ALGORITHM, kid, typ: 'JWT' }).sign(key);
  }

  return {
    issuerUrl,
    jwksUrl,
    audience,
    environment: { JWT_ISSUER: issuerUrl, JWKS_URL: jwksUrl, JWT_AUDIENCE: audience },
    sign,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
