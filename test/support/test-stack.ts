/**
 * Integration-test harness: the whole local stack in this test file's process, in memory, on free
 * loopback ports, plus a small HTTP client and factories for workspaces and keys.
 *
 * Media engines: by default the stack speaks, composes and measures voices with the engines' test doubles (tiny valid
 * media, fast; see `TEST_DOUBLE_ENGINE` in lambdas/core/config.ts), since most tests are about the API,
 * not the media. A test file whose subject is the media (durations, frames, speech) asks for
 * `engines: 'reference'`.
 */
import { createApiKey, type ScopeMode } from '../../lambdas/accounts/api-keys.js';
import { createWorkspace, type NewWorkspace } from '../../lambdas/accounts/workspaces.js';
import { TEST_DOUBLE_ENGINE } from '../../lambdas/core/config.js';
import { type LocalStack, type LocalStackOptions, startLocalStack } from '../../lib/local/local-stack.js';
import { checkResponseContract } from './response-contract.js';

export interface ApiResult<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export interface CallOptions {
  body?: unknown;
  /** Raw body, sent as is. */
  rawBody?: string | Uint8Array;
  key?: string | null;
  headers?: Record<string, string>;
}

/** Limits high enough that tests which are not about rate limiting never meet one. */
export const UNLIMITED = {
  read: 1_000_000,
  write: 1_000_000,
  heavy: 1_000_000,
  status: 1_000_000,
  status_ip: 1_000_000,
};

export interface TestStack {
  stack: LocalStack;
  baseUrl: string;
  /** Full-access key of a fresh workspace with no effective rate limits. */
  apiKey: string;
  workspaceId: string;
  call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options?: CallOptions,
  ): Promise<ApiResult<T>>;
  newWorkspace(overrides?: Partial<NewWorkspace>): Promise<{ workspaceId: string; apiKey: string }>;
  newKey(
    workspaceId: string,
    scopeMode: ScopeMode,
    scopes?: string[],
    expiresAt?: number | null,
  ): Promise<string>;
  /**
   * Stops the stack. Every function's AWS calls are checked against its role while it runs, so this
   * fails when any was refused, unless the test revoked grants on purpose (`revokedGrants`).
   */
  stop(): Promise<void>;
}

export interface TestStackOptions extends LocalStackOptions {
  /**
   * `doubles`: the speech, composition, voice analysis and HyperFrames test doubles. `reference`: the real engines
   * (eSpeak NG, ffmpeg, YIN, HyperFrames' producer), for tests that check the media itself. @default 'doubles'
   */
  engines?: 'doubles' | 'reference';
}

/** The environment that selects the engines' test doubles (and allows them: they are refused otherwise). */
export const TEST_DOUBLE_ENGINES_ENVIRONMENT = {
  ALLOW_TEST_DOUBLE_ENGINES: 'true',
  SPEECH_ENGINE: TEST_DOUBLE_ENGINE,
  COMPOSITION_ENGINE: TEST_DOUBLE_ENGINE,
  VOICE_ANALYSIS_ENGINE: TEST_DOUBLE_ENGINE,
  HYPERFRAMES_ENGINE: TEST_DOUBLE_ENGINE,
} as const;

export async function startTestStack({
  engines = 'doubles',
  ...options
}: TestStackOptions = {}): Promise<TestStack> {
  const stack = await startLocalStack({
    port: 0,
    // The workflow files are validated once, by test/infra/workflow-state-machines.test.ts.
    validateStateMachines: false,
    ...options,
    environment: {
      AUTH_CACHE_TTL_SECONDS: '0',
      // A job past its workspace's concurrency cap asks for a slot again after the shortest wait.
      JOB_ADMISSION_WAIT_SECONDS: '1',
      ...(engines === 'doubles' ? TEST_DOUBLE_ENGINES_ENVIRONMENT : {}),
      ...options.environment,
    },
  });

  async function newKey(
    workspaceId: string,
    scopeMode: ScopeMode,
    scopes?: string[],
    expiresAt: number | null = null,
  ) {
    const { secret } = await createApiKey({
      workspace_id: workspaceId,
      name: `${scopeMode} test key`,
      scope_mode: scopeMode,
      ...(scopes ? { scopes } : {}),
      expires_at: expiresAt,
    });
    return secret;
  }

  async function newWorkspace(overrides: Partial<NewWorkspace> = {}) {
    const workspace = await createWorkspace({
      name: 'Test workspace',
      plan: 'pro',
      included_credits: 1000,
      rate_limits: UNLIMITED,
      ...overrides,
    });
    return { workspaceId: workspace.workspace_id, apiKey: await newKey(workspace.workspace_id, 'full') };
  }

  const primary = await newWorkspace();

  async function call<T>(method: string, path: string, callOptions: CallOptions = {}): Promise<ApiResult<T>> {
    const key = callOptions.key === undefined ? primary.apiKey : callOptions.key;
    const headers: Record<string, string> = { ...callOptions.headers };
    if (key !== null) headers['X-Api-Key'] = key;
    let body: string | Uint8Array | undefined = callOptions.rawBody;
    if (callOptions.body !== undefined) {
      body = JSON.stringify(callOptions.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const response = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    checkResponseContract(method, path, response.status, parsed);
    return { status: response.status, headers: response.headers, body: parsed as T };
  }

  return {
    stack,
    baseUrl: stack.baseUrl,
    apiKey: primary.apiKey,
    workspaceId: primary.workspaceId,
    call,
    newWorkspace,
    newKey,
    stop: async () => {
      await stack.stop();
      const denials = stack.accessDenials();
      if (denials.length > 0 && !options.revokedGrants) {
        throw new Error(
          `Functions made AWS calls their roles do not allow (lib/access/function-access.ts):\n${denials
            .map((denial) => `- ${denial.function}: ${denial.action} on ${denial.resource}`)
            .join('\n')}`,
        );
      }
    },
  };
}

/** The error envelope's fields, for assertions. */
export function errorOf(result: ApiResult<unknown>): {
  code: string;
  message: string;
  param: string | null;
  doc_url: string | null;
} {
  const error = (result.body as { error?: unknown }).error;
  if (!error || typeof error !== 'object')
    throw new Error(`Expected an error envelope, got ${JSON.stringify(result.body)}`);
  return error as { code: string; message: string; param: string | null; doc_url: string | null };
}
