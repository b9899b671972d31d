/**
 * Deploy-time options of the service, read from CDK context (`cdk.json` "context", or `-c key=value`
 * on the command line, which always arrives as a string). Every problem is reported at once, naming
 * the context key, so a deployer fixes the configuration in one pass.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';

/** The deployable speech engines: never the test double (see `TEST_DOUBLE_ENGINE` in lambdas/core/config.ts). */
export const SPEECH_ENGINES = ['polly', 'espeak'] as const;
export type SpeechEngine = (typeof SPEECH_ENGINES)[number];

/**
 * The model capabilities' deploy options (issue 13; lambdas/engines/{recognition,translation,
 * text-generation,generation}/): each off (`none`) unless the deployer names an engine. What the
 * deployable engines are, by capability: never the test doubles, and never Apertium (no binary in
 * the Lambda runtime).
 */
export const MODEL_ENGINE_CHOICES = {
  speechRecognition: ['none', 'openai', 'transcribe'],
  translation: ['none', 'openai', 'translate'],
  textGeneration: ['none', 'local', 'openai', 'bedrock'],
  mediaGeneration: ['none', 'bedrock', 'openai', 'composite'],
} as const;
export type ModelCapability = keyof typeof MODEL_ENGINE_CHOICES;

/**
 * One capability's option, e.g. `speechRecognition: { engine: 'openai', baseUrl: 'https://…/v1',
 * model: 'whisper-1', apiKeySecret: 'video-service/whisper-key' }` or `{ engine: 'transcribe' }`.
 */
export interface ModelEngineOption<Engine extends string = string> {
  /** @default 'none' (the capability fails its jobs with engine_unavailable, naming this option) */
  engine: Engine;
  /** `openai`: the server's base URL with its API version (`https://api.openai.com/v1`). Must be https. @default '' */
  baseUrl: string;
  /**
   * The model: the OpenAI-compatible server's model name, or Bedrock's model id or inference profile id.
   * @default '' (the runtime's default for the engine)
   */
  model: string;
  /** `openai`: the Secrets Manager secret (name or ARN) holding the API key; never the key itself. @default '' */
  apiKeySecret: string;
  /** `mediaGeneration` only: Nova Canvas model id. @default '' (`amazon.nova-canvas-v1:0`) */
  imageModel: string;
  /** `mediaGeneration` only: Nova Reel model id. @default '' (`amazon.nova-reel-v1:1`) */
  videoModel: string;
}

export type ModelEngineOptions = {
  [Capability in ModelCapability]: ModelEngineOption<(typeof MODEL_ENGINE_CHOICES)[Capability][number]>;
};

/** Every capability off: what a deployment without these options gets. */
export const NO_MODEL_ENGINES: ModelEngineOptions = {
  speechRecognition: {
    engine: 'none',
    baseUrl: '',
    model: '',
    apiKeySecret: '',
    imageModel: '',
    videoModel: '',
  },
  translation: { engine: 'none', baseUrl: '', model: '', apiKeySecret: '', imageModel: '', videoModel: '' },
  textGeneration: {
    engine: 'none',
    baseUrl: '',
    model: '',
    apiKeySecret: '',
    imageModel: '',
    videoModel: '',
  },
  mediaGeneration: {
    engine: 'none',
    baseUrl: '',
    model: '',
    apiKeySecret: '',
    imageModel: '',
    videoModel: '',
  },
};

export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

import { DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES } from '../../lambdas/assets/upload-limits.js';
/** Where error `doc_url`s point when the deployer does not say otherwise (the runtime's own default). */
import {
  BOOLEAN_WORDS_HINT,
  DEFAULT_DOC_BASE_URL,
  MAX_PRESIGNED_URL_TTL_SECONDS,
  parseBooleanWord,
} from '../../lambdas/core/config.js';

export { DEFAULT_DOC_BASE_URL };

export interface ServiceOptions {
  /** CloudFormation stack name. @default 'VideoCreationService' */
  stackName: string;
  /** Retention of every log group the stack creates. @default RetentionDays.ONE_MONTH */
  logRetention: RetentionDays;
  /**
   * What happens to data (table, buckets, keys, queues, logs) when the stack is deleted or replaces
   * them. `retain` keeps them, except when their own creation fails: a first deploy that rolls back
   * deletes what it created instead of orphaning it (CloudFormation's `RetainExceptOnCreate`).
   * @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE
   */
  removalPolicy: RemovalPolicy;
  /** Speech synthesis engine the workers use. @default 'polly' */
  speechEngine: SpeechEngine;
  /** Browser origins allowed by CORS preflight; empty means no OPTIONS methods at all. @default [] */
  allowedCorsOrigins: string[];
  /** OAuth: accepted JWT issuer; empty turns OAuth off. @default '' */
  jwtIssuer: string;
  /** OAuth: accepted audience; empty means the audience is not checked. @default '' */
  jwtAudience: string;
  /** OAuth: JWKS URL; empty means `<issuer>/.well-known/jwks.json`. @default '' */
  jwksUrl: string;
  /** OAuth: the claim naming the workspace a token acts in. @default 'workspace_id' */
  jwtWorkspaceClaim: string;
  /** How long the authorizer reuses a resolved credential, in seconds. @default 60 */
  authCacheTtlSeconds: number;
  /** Lifetime of idempotency records, in seconds. @default 86400 */
  idempotencyTtlSeconds: number;
  /**
   * Where error `doc_url`s point, when the deployment publishes its own copy of docs/errors.md.
   * @default '' (the API's own `GET /v3/docs/errors`, on the API's URL and stage)
   */
  docBaseUrl: string;
  /** Powertools log level of every function. @default 'INFO' */
  logLevel: LogLevel;
  /** Stage-wide steady-state request rate (requests per second). @default 100 */
  apiThrottlingRateLimit: number;
  /** Stage-wide burst of requests. @default 200 */
  apiThrottlingBurstLimit: number;
  /** An existing WAFv2 web ACL (regional) to associate with the API stage; empty means none. @default '' */
  webAclArn: string;
  /**
   * Whether this stack creates the role API Gateway writes logs with and sets it in the account's API
   * Gateway settings. That setting is one per account and region, not per API: a stack that sets it
   * takes it over from whatever set it before, and other stacks that manage it fight over it, so it is
   * opt-in. Off, the account must already have the role set (the stage's logging needs it).
   * @default false
   */
  apiGatewayCloudWatchRole: boolean;
  /**
   * Largest file `POST /v3/assets` takes, in bytes (`MAX_MULTIPART_UPLOAD_BYTES`). Its default is also
   * its maximum: the largest file whose base64-encoded body fits a synchronous Lambda invoke
   * (`DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES`, lambdas/assets/upload-limits.ts). A larger value could only
   * turn the API's 413 into a failure at the integration.
   * @default DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES (4,653,056 bytes, about 4.4 MiB)
   */
  maxMultipartUploadBytes: number;
  /**
   * Lifetime of presigned media download URLs (`MEDIA_URL_TTL_SECONDS`), at most 7 days. Capped at run
   * time by the signing credentials' expiry when it is known. @default 3600
   */
  mediaUrlTtlSeconds: number;
  /** Lifetime of presigned direct-upload URLs (`UPLOAD_URL_TTL_SECONDS`), at most 7 days. @default 900 */
  uploadUrlTtlSeconds: number;
  /**
   * How many chunks of one video render the video workflow's Map state renders at once, each a Lambda
   * invocation (`RENDER_CHUNK_CONCURRENCY`, docs/architecture.md "Chunked video renders"). @default 16
   */
  renderChunkConcurrency: number;
  /**
   * The length of a chunk of a video render, in seconds (`VIDEO_RENDER_CHUNK_SECONDS`): deployed, each
   * chunk is a Lambda invocation, so a video longer than this renders in parallel. @default 10
   */
  videoRenderChunkSeconds: number;
  /**
   * How many of the API's area stacks CloudFormation creates at once; the others wait in line behind
   * them (see `orderAreaStacks` in service-api.ts). More is faster but nears API Gateway's
   * control-plane quota; the preflight fails above 4. @default 2
   */
  apiAreaStacksAtOnce: number;
  /** Any new value publishes the stock catalog's media again on the next deploy. @default '' */
  catalogPublicationNonce: string;
  /**
   * Whether a catalog publication that fails after its retries fails the deploy. Off, the deploy
   * succeeds and the `CatalogPublication` output says what failed (see publish-catalog-handler.ts).
   * @default false
   */
  catalogFailureFailsDeploy: boolean;
  /**
   * The model capabilities (speech recognition, translation, text generation, image and video
   * generation), each `{ engine, baseUrl?, model?, apiKeySecret? }` (see `ModelEngineOption`).
   * @default every capability `{ engine: 'none' }`
   */
  modelEngines: ModelEngineOptions;
  /**
   * Whether the stack runs the streaming service of realtime avatar streams (an ECS Fargate service,
   * lib/stack/realtime-service.ts). Off, `/v3/avatar-realtime` creates answer 503 `engine_unavailable`
   * and nothing of it is deployed. @default true
   */
  realtimeService: boolean;
  /** Streaming service tasks always running (2 vCPU, 4 GiB each): the streams that start at once. @default 1 */
  realtimeTasks: number;
  /**
   * Whether the stack deploys the web console (lib/stack/console-site.ts): a CloudFront distribution
   * serving `/console` from a site bucket and the API on the same origin. @default true
   */
  consoleSite: boolean;
  /**
   * The console's OAuth client (authorization code + PKCE against `jwtIssuer`); empty, the console
   * signs in with a pasted API key only. @default ''
   */
  consoleOAuthClientId: string;
  /**
   * Most streaming service tasks: above `realtimeTasks`, a task is added while streams wait in the
   * realtime queue, and an idle one removed after 15 minutes without any waiting (tasks running
   * streams protect themselves from scale-in). @default 4
   */
  realtimeMaxTasks: number;
  /** Streams one task runs at once (`REALTIME_STREAMS_PER_WORKER`): 3 at 720p on 2 vCPU. @default 3 */
  realtimeStreamsPerTask: number;
}

/** Context keys and their defaults, in the shape `cdk.json` holds them. */
export const CONTEXT_DEFAULTS = {
  stackName: 'VideoCreationService',
  logRetentionDays: 30,
  removalPolicy: 'retain',
  speechEngine: 'polly',
  allowedCorsOrigins: [] as string[],
  jwtIssuer: '',
  jwtAudience: '',
  jwksUrl: '',
  jwtWorkspaceClaim: 'workspace_id',
  authCacheTtlSeconds: 60,
  idempotencyTtlSeconds: 86_400,
  docBaseUrl: DEFAULT_DOC_BASE_URL,
  logLevel: 'INFO',
  apiThrottlingRateLimit: 100,
  apiThrottlingBurstLimit: 200,
  webAclArn: '',
  apiGatewayCloudWatchRole: false,
  maxMultipartUploadBytes: DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES,
  mediaUrlTtlSeconds: 3600,
  uploadUrlTtlSeconds: 900,
  renderChunkConcurrency: 16,
  videoRenderChunkSeconds: 10,
  apiAreaStacksAtOnce: 2,
  catalogPublicationNonce: '',
  catalogFailureFailsDeploy: false,
  speechRecognition: { engine: 'none' },
  translation: { engine: 'none' },
  textGeneration: { engine: 'none' },
  mediaGeneration: { engine: 'none' },
  realtimeService: true,
  realtimeTasks: 1,
  realtimeMaxTasks: 4,
  realtimeStreamsPerTask: 3,
  consoleSite: true,
  consoleOAuthClientId: '',
} as const;
type ContextKey = keyof typeof CONTEXT_DEFAULTS;

const RETENTION_DAYS = new Set(Object.values(RetentionDays).filter((value) => typeof value === 'number'));
const REMOVAL_POLICIES = {
  retain: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
  destroy: RemovalPolicy.DESTROY,
} as const;

class ContextReader {
  readonly problems: string[] = [];

  constructor(private readonly node: Node) {}

  private raw(key: ContextKey): unknown {
    return this.node.tryGetContext(key) ?? CONTEXT_DEFAULTS[key];
  }

  string(key: ContextKey, check?: (value: string) => string | undefined): string {
    const value = this.raw(key);
    if (typeof value !== 'string') {
      this.problems.push(`${key} must be a string, got ${JSON.stringify(value)}`);
      return '';
    }
    const problem = check?.(value);
    if (problem) this.problems.push(`${key} ${problem}, got ${JSON.stringify(value)}`);
    return value;
  }

  oneOf<T extends string>(key: ContextKey, allowed: readonly T[]): T {
    const value = this.string(key);
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${key} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
      return allowed[0] as T;
    }
    return value as T;
  }

  integer(key: ContextKey, min: number, max: number): number {
    const raw = this.raw(key);
    const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${key} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
      return min;
    }
    return value;
  }

  /** A JSON boolean or (from the command line) a string read as the runtime reads its switches. */
  boolean(key: ContextKey): boolean {
    const value = this.raw(key);
    if (typeof value === 'boolean') return value;
    const parsed = typeof value === 'string' ? parseBooleanWord(value) : undefined;
    if (parsed !== undefined) return parsed;
    this.problems.push(`${key} must be one of ${BOOLEAN_WORDS_HINT}, got ${JSON.stringify(value)}`);
    return false;
  }

  /** A list, given as a JSON array or (from the command line) a JSON string or comma-separated string. */
  stringList(key: ContextKey, check: (item: string) => boolean, expected: string): string[] {
    let value = this.raw(key);
    if (typeof value === 'string') {
      const text = value.trim();
      value = text.startsWith('[')
        ? safeJsonParse(text)
        : text === ''
          ? []
          : text.split(',').map((item) => item.trim());
    }
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && check(item))) {
      this.problems.push(`${key} must be a list of ${expected}, got ${JSON.stringify(this.raw(key))}`);
      return [];
    }
    return value as string[];
  }

  /**
   * A model capability's option: a JSON object (or, from the command line, a JSON string, or just the
   * engine's name), checked field by field.
   */
  modelEngine<Capability extends ModelCapability>(key: Capability): ModelEngineOptions[Capability] {
    let value = this.raw(key);
    if (typeof value === 'string') {
      const text = value.trim();
      value = text.startsWith('{') ? safeJsonParse(text) : { engine: text };
    }
    const option = { ...NO_MODEL_ENGINES[key] } as ModelEngineOptions[Capability];
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.problems.push(
        `${key} must be an object such as { "engine": "none" }, got ${JSON.stringify(this.raw(key))}`,
      );
      return option;
    }
    const fields = value as Record<string, unknown>;
    const allowed: readonly string[] = MODEL_ENGINE_CHOICES[key];
    for (const field of Object.keys(fields)) {
      if (!(field in option))
        this.problems.push(`${key}.${field} is not an option (${Object.keys(option).join(', ')})`);
    }
    for (const field of Object.keys(option) as (keyof ModelEngineOption)[]) {
      const given = fields[field];
      if (given === undefined) continue;
      if (typeof given !== 'string') {
        this.problems.push(`${key}.${field} must be a string, got ${JSON.stringify(given)}`);
        continue;
      }
      (option as unknown as Record<string, string>)[field] = given.trim();
    }
    if (!allowed.includes(option.engine)) {
      this.problems.push(
        `${key}.engine must be one of ${allowed.join(', ')}, got ${JSON.stringify(option.engine)}${(option.engine as string) === 'apertium' ? ' (the Lambda runtime has no apertium binary)' : ''}`,
      );
    }
    if (option.engine === 'openai') {
      if (!isHttpsUrl(option.baseUrl)) {
        this.problems.push(
          `${key}.baseUrl must be the https:// URL of the OpenAI-compatible server when ${key}.engine is openai, got ${JSON.stringify(option.baseUrl)}`,
        );
      }
    } else if (option.baseUrl || option.apiKeySecret) {
      this.problems.push(`${key}.baseUrl and ${key}.apiKeySecret only apply to engine openai`);
    }
    if (
      option.apiKeySecret &&
      !/^(arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:)?[A-Za-z0-9/_+=.@-]{1,512}$/.test(
        option.apiKeySecret,
      )
    ) {
      this.problems.push(
        `${key}.apiKeySecret must be a Secrets Manager secret name or ARN, got ${JSON.stringify(option.apiKeySecret)}`,
      );
    }
    if (key !== 'mediaGeneration' && (option.imageModel || option.videoModel)) {
      this.problems.push(`${key}.imageModel and ${key}.videoModel only apply to mediaGeneration`);
    }
    for (const field of ['model', 'imageModel', 'videoModel'] as const) {
      if (option[field] && !/^[A-Za-z0-9][A-Za-z0-9._:/+-]{0,2047}$/.test(option[field])) {
        this.problems.push(`${key}.${field} must be a model id, got ${JSON.stringify(option[field])}`);
      }
    }
    return option;
  }
}

function safeJsonParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function httpsUrlOrEmpty(value: string): string | undefined {
  if (value === '') return undefined;
  return isHttpsUrl(value) ? undefined : 'must be an https:// URL or empty';
}

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

/** A browser origin: scheme, host and optional port, nothing else (what `Origin` headers carry). */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

/** Reads and validates every deploy-time option; throws one error listing every problem. */
export function serviceOptionsFromContext(node: Node): ServiceOptions {
  const read = new ContextReader(node);
  const logRetentionDays = read.integer('logRetentionDays', 1, 9999);
  if (!RETENTION_DAYS.has(logRetentionDays)) {
    read.problems.push(
      `logRetentionDays must be one of CloudWatch Logs' retention periods (${[...RETENTION_DAYS].join(', ')}), got ${logRetentionDays}`,
    );
  }
  const options: ServiceOptions = {
    stackName: read.string('stackName', (value) =>
      /^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(value) ? undefined : 'must be a valid CloudFormation stack name',
    ),
    logRetention: logRetentionDays as RetentionDays,
    removalPolicy: REMOVAL_POLICIES[read.oneOf('removalPolicy', ['retain', 'destroy'] as const)],
    speechEngine: read.oneOf('speechEngine', SPEECH_ENGINES),
    allowedCorsOrigins: read.stringList(
      'allowedCorsOrigins',
      isOrigin,
      'origins such as "https://app.example.com"',
    ),
    jwtIssuer: read.string('jwtIssuer', httpsUrlOrEmpty),
    jwtAudience: read.string('jwtAudience'),
    jwksUrl: read.string('jwksUrl', httpsUrlOrEmpty),
    jwtWorkspaceClaim: read.string('jwtWorkspaceClaim', (value) => (value ? undefined : 'must not be empty')),
    authCacheTtlSeconds: read.integer('authCacheTtlSeconds', 0, 3600),
    idempotencyTtlSeconds: read.integer('idempotencyTtlSeconds', 60, 30 * 86_400),
    docBaseUrl: read.string('docBaseUrl', httpsUrlOrEmpty),
    logLevel: read.oneOf('logLevel', LOG_LEVELS),
    apiThrottlingRateLimit: read.integer('apiThrottlingRateLimit', 1, 10_000),
    apiThrottlingBurstLimit: read.integer('apiThrottlingBurstLimit', 1, 5_000),
    webAclArn: read.string('webAclArn', (value) =>
      value === '' || /^arn:aws[a-z-]*:wafv2:[a-z0-9-]+:\d{12}:regional\/webacl\/.+$/.test(value)
        ? undefined
        : 'must be the ARN of a regional WAFv2 web ACL or empty',
    ),
    apiGatewayCloudWatchRole: read.boolean('apiGatewayCloudWatchRole'),
    // Above this, the base64-encoded body no longer fits a synchronous Lambda invoke.
    maxMultipartUploadBytes: read.integer('maxMultipartUploadBytes', 1, DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES),
    // SigV4 presigned URLs live at most 7 days.
    mediaUrlTtlSeconds: read.integer('mediaUrlTtlSeconds', 1, MAX_PRESIGNED_URL_TTL_SECONDS),
    uploadUrlTtlSeconds: read.integer('uploadUrlTtlSeconds', 1, MAX_PRESIGNED_URL_TTL_SECONDS),
    // Step Functions runs at most 40 iterations of an inline Map at once.
    renderChunkConcurrency: read.integer('renderChunkConcurrency', 1, 40),
    videoRenderChunkSeconds: read.integer('videoRenderChunkSeconds', 2, 600),
    apiAreaStacksAtOnce: read.integer('apiAreaStacksAtOnce', 1, 50),
    catalogPublicationNonce: read.string('catalogPublicationNonce'),
    catalogFailureFailsDeploy: read.boolean('catalogFailureFailsDeploy'),
    modelEngines: {
      speechRecognition: read.modelEngine('speechRecognition'),
      translation: read.modelEngine('translation'),
      textGeneration: read.modelEngine('textGeneration'),
      mediaGeneration: read.modelEngine('mediaGeneration'),
    },
    realtimeService: read.boolean('realtimeService'),
    realtimeTasks: read.integer('realtimeTasks', 1, 100),
    realtimeMaxTasks: read.integer('realtimeMaxTasks', 1, 100),
    realtimeStreamsPerTask: read.integer('realtimeStreamsPerTask', 1, 20),
    consoleSite: read.boolean('consoleSite'),
    consoleOAuthClientId: read.string('consoleOAuthClientId'),
  };
  if (options.realtimeMaxTasks < options.realtimeTasks) {
    read.problems.push(
      `realtimeMaxTasks (${options.realtimeMaxTasks}) must be at least realtimeTasks (${options.realtimeTasks})`,
    );
  }
  if (options.jwksUrl && !options.jwtIssuer) read.problems.push('jwksUrl is set but jwtIssuer is empty');
  if (read.problems.length > 0) {
    throw new Error(
      `Invalid deploy-time options (CDK context in cdk.json, or -c key=value):\n  - ${read.problems.join('\n  - ')}`,
    );
  }
  return options;
}
