/**
 * The console on the local stack: `GET /console/*` answered from an in-memory build, made on the
 * first request for it (the stack starts no slower), with the same headers CloudFront adds when
 * deployed (console-site.ts). The files need no credentials; every API call from the page carries one.
 */
import { config } from '../../lambdas/core/config.js';
import {
  buildConsole,
  CONSOLE_BASE_PATH,
  type ConsoleBuild,
  type ConsoleBuildOptions,
} from './build-console.js';

export interface StaticResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** What `/console/config.json` holds (console/src/settings.ts reads it). */
export interface ConsoleSettingsFile {
  oauth: { issuer: string; client_id: string; audience: string | null; scope: string } | null;
  poll_interval_ms: number;
}

export interface ConsoleSettingsInput {
  /** The JWT issuer the API accepts; OAuth sign-in is offered when this and `oauthClientId` are set. */
  jwtIssuer: string;
  jwtAudience: string;
  /** The console's public OAuth client at the issuer (`CONSOLE_OAUTH_CLIENT_ID`). */
  oauthClientId: string;
  /** @default 'openid' */
  oauthScope?: string;
  /** How often the page refreshes jobs in flight (`CONSOLE_POLL_INTERVAL_MS`). @default 2000 */
  pollIntervalMs?: number;
}

export function consoleSettings(input: ConsoleSettingsInput): ConsoleSettingsFile {
  return {
    oauth:
      input.jwtIssuer && input.oauthClientId
        ? {
            issuer: input.jwtIssuer,
            client_id: input.oauthClientId,
            audience: input.jwtAudience || null,
            scope: input.oauthScope ?? 'openid',
          }
        : null,
    poll_interval_ms: input.pollIntervalMs ?? 2000,
  };
}

/** The settings of the local stack, from its environment. */
export function localConsoleSettings(): ConsoleSettingsFile {
  const pollInterval = Number(process.env.CONSOLE_POLL_INTERVAL_MS);
  return consoleSettings({
    jwtIssuer: config().jwtIssuer,
    jwtAudience: config().jwtAudience,
    oauthClientId: process.env.CONSOLE_OAUTH_CLIENT_ID ?? '',
    ...(process.env.CONSOLE_OAUTH_SCOPE ? { oauthScope: process.env.CONSOLE_OAUTH_SCOPE } : {}),
    ...(Number.isFinite(pollInterval) && pollInterval > 0 ? { pollIntervalMs: pollInterval } : {}),
  });
}

/** Headers of every console file: what CloudFront's response headers policy sets when deployed. */
export function securityHeaders(contentSecurityPolicy: string): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
  };
}

export type ConsoleFileServer = (method: string, pathname: string) => Promise<StaticResponse | undefined>;

/**
 * Serves the console under `/console`; anything else is `undefined` (the API's). `buildOptions` is
 * read at the first request, when the stack's media endpoint is known.
 */
export function consoleFileServer(buildOptions: () => ConsoleBuildOptions): ConsoleFileServer {
  let built: Promise<ConsoleBuild> | undefined;
  return async (method, pathname): Promise<StaticResponse | undefined> => {
    if (pathname !== CONSOLE_BASE_PATH && !pathname.startsWith(`${CONSOLE_BASE_PATH}/`)) return undefined;
    if (method !== 'GET' && method !== 'HEAD') {
      return { statusCode: 405, headers: { Allow: 'GET, HEAD' }, body: Buffer.alloc(0) };
    }
    if (pathname === CONSOLE_BASE_PATH) {
      return { statusCode: 301, headers: { Location: `${CONSOLE_BASE_PATH}/` }, body: Buffer.alloc(0) };
    }
    const issuer = localConsoleSettings().oauth?.issuer;
    // The page calls the issuer (discovery, token exchange): its origin joins the CSP's connect-src.
    built ??= buildConsole({
      ...buildOptions(),
      ...(issuer ? { oauthOrigins: [new URL(issuer).origin] } : {}),
    }).catch((error: unknown) => {
      built = undefined;
      throw error;
    });
    const consoleBuild = await built;
    const name = pathname.slice(CONSOLE_BASE_PATH.length + 1) || 'index.html';
    const headers = securityHeaders(consoleBuild.contentSecurityPolicy);
    if (name === 'config.json') {
      return {
        statusCode: 200,
        headers: {
          ...headers,
          'Content-Type': 'application/json; charset=utf-8',
          'Cache-Control': 'no-cache',
        },
        body: Buffer.from(JSON.stringify(localConsoleSettings())),
      };
    }
    const file = consoleBuild.files.find((candidate) => candidate.path === name);
    if (!file) {
      return {
        statusCode: 404,
        headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8' },
        body: Buffer.from(`No console file ${name}.`),
      };
    }
    return {
      statusCode: 200,
      headers: {
        ...headers,
        'Content-Type': file.contentType,
        'Cache-Control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      },
      body: Buffer.from(file.body),
    };
  };
}
