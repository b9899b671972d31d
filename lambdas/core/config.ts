/**
 * Runtime configuration, read from the environment once per process. The CDK stack sets these on
 * every function; the local stack sets the same names before it loads any handler. Nothing here
 * distinguishes "local" from "deployed": endpoints of emulators come through the SDK's own
 * `AWS_ENDPOINT_URL_<SERVICE>` variables.
 */

import { availableParallelism, tmpdir } from 'node:os';
import { onProcessReset } from './process-state.js';

/**
 * Where error `doc_url`s point unless a deployment names its own copy: '' is the error catalogue the API
 * serves itself (`GET /v3/docs/errors`, rendered from docs/errors.md), at the base URL of the request.
 */
export const DEFAULT_DOC_BASE_URL = '';

/**
 * The name shared by the engines' test doubles (the value `test-double` of `SPEECH_ENGINE`,
 * `COMPOSITION_ENGINE` and `VOICE_ANALYSIS_ENGINE`): separate, fast implementations of each engine
 * interface that make tiny valid media, for tests whose subject is not the media. Jobs record the name
 * like any engine's. They are only accepted with `ALLOW_TEST_DOUBLE_ENGINES=true`, which nothing but the
 * test harness sets (test/support/test-stack.ts); the CDK stack never sets it, and its options cannot
 * choose a double (lib/stack/service-options.ts).
 */
export const TEST_DOUBLE_ENGINE = 'test-double';

/**
 * The real speech synthesis engines (`lambdas/engines/speech/`): the reference eSpeak NG engine and Amazon
 * Polly. The API names these, and every cloned or designed voice keeps its settings for each of them.
 */
export const SPEECH_ENGINE_NAMES = ['espeak', 'polly'] as const;
/** What `SPEECH_ENGINE` may name: a real engine or, in tests, the double. */
export type SpeechEngineName = (typeof SPEECH_ENGINE_NAMES)[number] | typeof TEST_DOUBLE_ENGINE;

/** The real video composition engines (`lambdas/engines/composition/`): the reference ffmpeg engine. */
export const COMPOSITION_ENGINE_NAMES = ['ffmpeg'] as const;
/** What `COMPOSITION_ENGINE` may name: a real engine or, in tests, the double. */
export type CompositionEngineName = (typeof COMPOSITION_ENGINE_NAMES)[number] | typeof TEST_DOUBLE_ENGINE;

/** The real HyperFrames engines (`lambdas/engines/hyperframes/`): HyperFrames' own producer with Chromium. */
export const HYPERFRAMES_ENGINE_NAMES = ['producer'] as const;
/** What `HYPERFRAMES_ENGINE` may name: a real engine or, in tests, the double. */
export type HyperframesEngineName = (typeof HYPERFRAMES_ENGINE_NAMES)[number] | typeof TEST_DOUBLE_ENGINE;

/** The real voice analysis engines (`lambdas/voices/voice-analysers.ts`): ffmpeg decoding and YIN pitch. */
export const VOICE_ANALYSIS_ENGINE_NAMES = ['yin'] as const;
/** What `VOICE_ANALYSIS_ENGINE` may name: a real engine or, in tests, the double. */
export type VoiceAnalysisEngineName =
  | (typeof VOICE_ANALYSIS_ENGINE_NAMES)[number]
  | typeof TEST_DOUBLE_ENGINE;

/**
 * Amazon Polly engine types the Polly speech engine can use (the `Engine` of SynthesizeSpeech).
 * `generative` is not one: Polly gives no speech marks (word timings) for generative voices.
 */
export const POLLY_ENGINE_TYPES = ['standard', 'neural', 'long-form'] as const;
export type PollyEngineType = (typeof POLLY_ENGINE_TYPES)[number];

/**
 * The longest lifetime a SigV4 presigned URL can have: 7 days (S3 refuses `X-Amz-Expires` above it).
 * The TTLs of media and upload URLs may not exceed it, here or in the stack's options.
 */
export const MAX_PRESIGNED_URL_TTL_SECONDS = 604_800;

export interface ServiceConfig {
  /** The single DynamoDB table. */
  tableName: string;
  /** The media bucket. */
  bucketName: string;
  /** The custom EventBridge bus that receives domain events. */
  eventBusName: string;
  /** The SQS queue that carries one message per batch item. */
  batchQueueUrl: string;
  /**
   * The webhook queue: domain events from the bus, and delivery attempts waiting for their turn.
   * @default '' (functions that do not deliver webhooks never send to it)
   */
  webhookQueueUrl: string;
  /** The webhook queue's dead-letter queue: exhausted deliveries are sent here (alarmed). @default '' */
  webhookDeadLetterQueueUrl: string;
  /** The stack's customer-managed symmetric key (webhook secrets, media default). */
  stackKeyId: string;
  /** The stack's HMAC key: signs pagination cursors. */
  hmacKeyId: string;
  /**
   * Where error `doc_url`s point (`DOC_BASE_URL`), each at its code's anchor.
   * @default '' (the API's own `GET /v3/docs/errors`, at the request's base URL)
   */
  docBaseUrl: string;
  /** How long a resolved credential is reused by the authorizer, in seconds. @default 60 */
  authCacheTtlSeconds: number;
  /** OAuth: the accepted JWT issuer; OAuth is off when empty. @default '' */
  jwtIssuer: string;
  /** OAuth: the accepted audience. @default '' (audience not checked) */
  jwtAudience: string;
  /** OAuth: the issuer's JWKS URL. @default `${jwtIssuer}/.well-known/jwks.json` */
  jwksUrl: string;
  /** OAuth: the workspace a token acts in is read from this claim. @default 'workspace_id' */
  jwtWorkspaceClaim: string;
  /**
   * Local development only: allow `http://` and loopback URLs (webhook receivers, media inputs) so
   * servers on the same machine can be used. Never set by the CDK stack. @default false
   */
  allowLoopbackUrls: boolean;
  /** Lifetime of idempotency records, in seconds. @default 86400 */
  idempotencyTtlSeconds: number;
  /**
   * Lifetime of presigned media download URLs, in seconds, at most `MAX_PRESIGNED_URL_TTL_SECONDS`. A
   * URL never outlives the credentials that sign it: see `presignLifetimeSeconds` (media/media-store.ts).
   * @default 3600
   */
  mediaUrlTtlSeconds: number;
  /** Lifetime of presigned direct-upload URLs, in seconds; bounded as `mediaUrlTtlSeconds`. @default 900 */
  uploadUrlTtlSeconds: number;
  /**
   * Largest file `POST /v3/assets` accepts, in bytes. The CDK stack sets it (context
   * `maxMultipartUploadBytes`) to what a synchronous Lambda invoke can carry, about 4.4 MiB (see
   * assets/upload-limits.ts); the default is the local stack's. @default 32 MiB
   */
  maxMultipartUploadBytes: number;
  /**
   * Largest file a direct upload may declare, in bytes. Completion reads the whole object to verify
   * it within one function invocation, which bounds it. @default 1 GiB
   */
  maxDirectUploadBytes: number;
  /** Browser origins whose requests get CORS headers. @default [] */
  allowedCorsOrigins: string[];
  /** S3 path-style addressing (needed by S3-compatible stores). @default false */
  s3ForcePathStyle: boolean;
  /**
   * The speech synthesis engine (`SPEECH_ENGINE`): `espeak`, `polly`, or `test-double` (tests only, see
   * `TEST_DOUBLE_ENGINE`). @default 'espeak'
   */
  speechEngine: SpeechEngineName;
  /**
   * The video composition engine (`COMPOSITION_ENGINE`): `ffmpeg`, or `test-double` (tests only, see
   * `TEST_DOUBLE_ENGINE`). @default 'ffmpeg'
   */
  compositionEngine: CompositionEngineName;
  /**
   * How recordings are measured for voice clones and trained voices (`VOICE_ANALYSIS_ENGINE`): `yin`, or
   * `test-double` (tests only, see `TEST_DOUBLE_ENGINE`). @default 'yin'
   */
  voiceAnalysisEngine: VoiceAnalysisEngineName;
  /**
   * The HyperFrames render engine (`HYPERFRAMES_ENGINE`): `producer`, or `test-double` (tests only, see
   * `TEST_DOUBLE_ENGINE`). @default 'producer'
   */
  hyperframesEngine: HyperframesEngineName;
  /**
   * HyperFrames renders: the project zip's limits (`HYPERFRAMES_MAX_ZIP_BYTES` @default 50 MiB,
   * `HYPERFRAMES_MAX_UNPACKED_BYTES` @default 200 MiB, `HYPERFRAMES_MAX_FILES` @default 2000), the longest
   * step of a render, its plan or one chunk (`HYPERFRAMES_RENDER_TIMEOUT_MS` @default 840000: a step's
   * Lambda stops at 900 s), and the
   * length reserved for a composition that does not state its own (`HYPERFRAMES_UNSTATED_DURATION_SECONDS`
   * @default 600). A render is cut into chunks of `HYPERFRAMES_CHUNK_FRAMES` frames (@default 240: 8 s
   * at 30 fps, a few minutes of one Lambda at 1080p), at most `HYPERFRAMES_MAX_CHUNKS` (@default 200; a
   * longer render gets longer chunks), rendered `renderChunkConcurrency` at a time by the workflow's
   * Map state.
   */
  hyperframes: {
    maxZipBytes: number;
    maxUnpackedBytes: number;
    maxFiles: number;
    renderTimeoutMs: number;
    unstatedDurationSeconds: number;
    chunkFrames: number;
    maxChunks: number;
  };
  /**
   * Chunked renders (docs/architecture.md "Chunked video renders"): for `POST /v3/videos`, the length of a
   * chunk of the timeline in seconds, rounded down to whole GOPs (`VIDEO_RENDER_CHUNK_SECONDS`
   * @default 60 on one machine, where x264 already uses every core and each chunk pays ffmpeg's start
   * again; the CDK stack sets its `videoRenderChunkSeconds` option, 10 by default, since each chunk is a
   * Lambda invocation of its own; a video no longer than one chunk renders in one pass); for both it and HyperFrames
   * renders, how many chunks the workflow's Map state renders at once (`RENDER_CHUNK_CONCURRENCY` @default the cores of this
   * machine, which is what the local stack runs them on; the CDK stack sets its `renderChunkConcurrency`
   * option, 16 by default, since each chunk is a Lambda invocation of its own).
   */
  videoRenderChunkSeconds: number;
  renderChunkConcurrency: number;
  /**
   * Amazon Polly engine types in order of preference (`POLLY_ENGINES`, comma-separated): each voice
   * speaks with the first one it supports. @default ['neural', 'standard']
   */
  pollyEngines: PollyEngineType[];
  /** The region the stack runs in (`AWS_REGION`, set by Lambda); customer keys must live here. @default '' */
  region: string;
  /** The workspace encryption setup workflow, started by the admin CLI. @default '' (not deployed) */
  encryptionSetupStateMachineArn: string;
  /**
   * The job workflows this function may start, by workflow name: every `<NAME>_STATE_MACHINE_ARN`
   * variable (`stateMachineArnVariable`), set by the stack on the functions that create jobs.
   * @default {} (none)
   */
  stateMachineArns: Readonly<Record<string, string>>;
  /**
   * Scratch directory of media work (downloads, speech, renders); each job uses its own
   * subdirectory and removes it. @default the OS temporary directory
   */
  mediaWorkDir: string;
  /** How long a customer key's `DescribeKey` answer is reused by media writes, in seconds. @default 60 */
  encryptionKeyCacheTtlSeconds: number;
  /** Deadline of one KMS look-up made to decide a media write's encryption, in milliseconds. @default 3000 */
  encryptionKmsTimeoutMs: number;
  /** `Retry-After` of `encryption_temporarily_unavailable`, in seconds. @default 5 */
  encryptionRetryAfterSeconds: number;
  /**
   * How long a job waiting for a slot of its type (jobs/job-admission.ts) waits before it asks again, in
   * whole seconds (a Step Functions Wait state). @default 5
   */
  jobAdmissionWaitSeconds: number;
  /**
   * Deadline of one webhook delivery attempt (DNS, connect, TLS and the response's status line), in
   * milliseconds: a receiver must answer 2xx within it. @default 10000
   */
  webhookTimeoutMs: number;
  /**
   * Waits before each retry of a failed webhook delivery, in milliseconds (`WEBHOOK_RETRY_SCHEDULE_MS`,
   * comma-separated): one attempt, then one retry per entry. The default spreads ten attempts over
   * about 23.6 hours. @default [5000, 60000, 300000, 1800000, 3600000, 7200000, 14400000, 28800000, 28800000]
   */
  webhookRetryScheduleMs: number[];
  /**
   * Jitter of every retry wait, as a fraction: each wait is shortened by a random part of up to this
   * much, so receivers that failed together are not retried together. @default 0.2
   */
  webhookRetryJitter: number;
  /**
   * Longest wait a receiver's `Retry-After` may ask for, in milliseconds; it only ever lengthens the
   * scheduled wait. @default 3600000 (1 hour)
   */
  webhookMaxRetryAfterMs: number;
  /** How long webhook events, deliveries and their attempts are kept, in days. @default 30 */
  webhookRetentionDays: number;
  /**
   * Largest share of a rate limit one function instance reserves from the shared window log at a time
   * (`RATE_LIMIT_LEASE_FRACTION`, see api/pipeline/rate-limit.ts), from 0 (exclusive) to 1.
   * @default 0.02
   */
  rateLimitLeaseFraction: number;
  /**
   * How long an instance may spend a lease of more than one request, in milliseconds
   * (`RATE_LIMIT_LEASE_MS`; at most the window's length is used). A lease's slots are held for this
   * much longer than the window. @default 5000
   */
  rateLimitLeaseMs: number;
  /**
   * Into how many steps a rate-limit window is divided (`RATE_LIMIT_WINDOW_STEPS`): a held slot is
   * released at the next step boundary after its window ends, which bounds the log to about this many
   * entries per window. @default 20
   */
  rateLimitWindowSteps: number;
  /**
   * Pages of a PDF document the video agent reads at most (`DOCUMENT_MAX_PAGES`); later pages are left
   * out, and the agent says so. @default 50
   */
  documentMaxPages: number;
  /**
   * Characters of a PDF document's text the video agent plans from at most (`DOCUMENT_MAX_CHARACTERS`);
   * the rest is cut, and the agent says so. @default 100000
   */
  documentMaxCharacters: number;
  /**
   * Realtime avatar streams (lambdas/realtime/): how long a stream may go without new text before it
   * ends with `end_reason` `idle_timeout` (`REALTIME_IDLE_TIMEOUT_MS`), the hosted API's 30 s. @default 30000
   */
  realtimeIdleTimeoutMs: number;
  /** The longest a realtime stream lives before it ends with `max_duration` (`REALTIME_MAX_DURATION_MS`). @default 3600000 */
  realtimeMaxDurationMs: number;
  /** Live realtime streams a workspace may hold at once; one more is a 429 (`REALTIME_MAX_CONCURRENT_STREAMS`). @default 3 */
  realtimeMaxConcurrentStreams: number;
  /** Length of one HLS segment of a realtime stream, in ms (`REALTIME_SEGMENT_MS`). @default 1000 */
  realtimeSegmentMs: number;
  /** Tallest frame of a realtime stream, in pixels (`REALTIME_MAX_HEIGHT`): the hosted API's 720p. @default 720 */
  realtimeMaxHeight: number;
  /**
   * Where realtime streams run (`REALTIME_WORKER`): `in_process`, the process that created the stream
   * (the local stack's default); `service`, the streaming service's workers (the stack's Fargate
   * service, lambdas/realtime/realtime-service.ts), the API keeping each stream's record in the table
   * and handing it over on the realtime queue; or `unavailable`: a Lambda function cannot hold a stream
   * for an hour, so a deployment without the streaming service answers creates with 503
   * `engine_unavailable`. @default 'unavailable'
   */
  realtimeWorker: RealtimeWorker;
  /** The realtime queue, where the API hands streams to the streaming service (`REALTIME_QUEUE_URL`). */
  realtimeQueueUrl: string;
  /**
   * How often a streaming service worker reads its stream's record for new text and DELETE, and the
   * words route the published words (`REALTIME_POLL_MS`). @default 250
   */
  realtimePollMs: number;
  /** How often a streaming service worker marks its streams alive (`REALTIME_HEARTBEAT_MS`). @default 5000 */
  realtimeHeartbeatMs: number;
  /**
   * A service stream whose worker has not marked it alive for this long (or that no worker took) is
   * ended as failed by whoever reads it (`REALTIME_STALE_AFTER_MS`). @default 30000
   */
  realtimeStaleAfterMs: number;
  /**
   * A service stream no worker took for this long after its create (every worker full, and no task
   * started in time) is ended as failed by whoever reads it (`REALTIME_CLAIM_TIMEOUT_MS`): long enough
   * for the service to start a task on the queue's depth. @default 180000
   */
  realtimeClaimTimeoutMs: number;
  /** Streams one streaming service worker runs at once (`REALTIME_STREAMS_PER_WORKER`): 2 vCPU hold 3 at 720p. @default 3 */
  realtimeStreamsPerWorker: number;
  /** Long-poll wait of a streaming service worker on the realtime queue, in seconds (`REALTIME_QUEUE_WAIT_SECONDS`). @default 20 */
  realtimeQueueWaitSeconds: number;
}

export const REALTIME_WORKERS = ['in_process', 'service', 'unavailable'] as const;
export type RealtimeWorker = (typeof REALTIME_WORKERS)[number];

const BOOLEAN_WORDS: Readonly<Record<string, boolean>> = {
  '1': true,
  true: true,
  yes: true,
  on: true,
  '0': false,
  false: false,
  no: false,
  off: false,
};

/**
 * The one reading of every on/off setting (environment variables here, the stack's context options in
 * lib/stack/service-options.ts): `1/0`, `true/false`, `yes/no`, `on/off` in any case. Undefined for
 * anything else, which callers refuse rather than read as off, so a switch set as
 * `ALLOW_LOOPBACK_URLS=1` or `=enabled` cannot silently do nothing.
 */
export function parseBooleanWord(raw: string): boolean | undefined {
  const word = raw.trim().toLowerCase();
  // Own words only: `constructor` or `__proto__` are not booleans.
  return Object.hasOwn(BOOLEAN_WORDS, word) ? BOOLEAN_WORDS[word] : undefined;
}

/** What an on/off setting accepts, for messages. */
export const BOOLEAN_WORDS_HINT = '1/0, true/false, yes/no, on/off';

/** An on/off environment variable's value; unset or empty is `fallback`, anything unreadable throws. */
export function parseBooleanSetting(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = parseBooleanWord(raw);
  if (value === undefined) {
    throw new Error(`Environment variable ${name} must be one of ${BOOLEAN_WORDS_HINT}, got "${raw}"`);
  }
  return value;
}

/** A boolean setting of the environment (see `parseBooleanSetting`). */
export function booleanFrom(name: string, fallback = false): boolean {
  return parseBooleanSetting(name, process.env[name], fallback);
}

function numberFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new Error(`Environment variable ${name} must be a number, got "${raw}"`);
  return value;
}

/** A comma-separated list of non-negative numbers, e.g. `WEBHOOK_RETRY_SCHEDULE_MS=20,40,80`. */
function numbersFrom(name: string, fallback: number[]): number[] {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  return raw.split(',').map((part) => {
    const value = Number(part.trim());
    if (part.trim() === '' || !Number.isFinite(value) || value < 0) {
      throw new Error(
        `Environment variable ${name} must be comma-separated non-negative numbers, got "${raw}"`,
      );
    }
    return value;
  });
}

/** The default webhook retry waits: 5 s, 1 min, 5 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS = [
  5_000, 60_000, 300_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000, 28_800_000,
];

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Environment variable ${name} is required`);
  return value;
}

function oneOf<T extends string>(name: string, allowed: readonly T[], value: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new Error(`Environment variable ${name} must be one of ${allowed.join(', ')}, got "${value}"`);
  }
  return value as T;
}

function choiceFrom<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
  const raw = process.env[name]?.trim();
  return raw ? oneOf(name, allowed, raw) : fallback;
}

function choicesFrom<T extends string>(name: string, allowed: readonly T[], fallback: T[]): T[] {
  const values = (process.env[name] ?? '')
    .split(',')
    .map((value) => value.trim())
    .filter(Boolean);
  return values.length ? [...new Set(values.map((value) => oneOf(name, allowed, value)))] : fallback;
}

const STATE_MACHINE_ARN_SUFFIX = '_STATE_MACHINE_ARN';

/** The environment variable that gives functions the ARN of the workflow `name` (`video-render` → `VIDEO_RENDER_STATE_MACHINE_ARN`). */
export function stateMachineArnVariable(name: string): string {
  return `${name.toUpperCase().replaceAll('-', '_')}${STATE_MACHINE_ARN_SUFFIX}`;
}

function stateMachineArnsFrom(environment: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(environment)
      .filter(([variable, arn]) => variable.endsWith(STATE_MACHINE_ARN_SUFFIX) && arn)
      .map(([variable, arn]) => [
        variable.slice(0, -STATE_MACHINE_ARN_SUFFIX.length).toLowerCase().replaceAll('_', '-'),
        arn as string,
      ]),
  );
}

/**
 * An engine choice among `engines` and the test double, which only a process that says it is a test
 * (`ALLOW_TEST_DOUBLE_ENGINES=true`) may choose.
 */
function engineFrom<T extends string>(
  name: string,
  engines: readonly T[],
  fallback: T,
): T | typeof TEST_DOUBLE_ENGINE {
  const engine = choiceFrom(name, [...engines, TEST_DOUBLE_ENGINE], fallback);
  if (engine === TEST_DOUBLE_ENGINE && !booleanFrom('ALLOW_TEST_DOUBLE_ENGINES')) {
    throw new Error(
      `Environment variable ${name} is "${TEST_DOUBLE_ENGINE}", an engine for tests only: set ALLOW_TEST_DOUBLE_ENGINES=true to use it`,
    );
  }
  return engine;
}

let cached: ServiceConfig | undefined;

export function config(): ServiceConfig {
  if (cached) return cached;
  const jwtIssuer = process.env.JWT_ISSUER ?? '';
  cached = {
    tableName: required('TABLE_NAME'),
    bucketName: process.env.BUCKET_NAME ?? '',
    eventBusName: process.env.EVENT_BUS_NAME ?? '',
    batchQueueUrl: process.env.BATCH_QUEUE_URL ?? '',
    webhookQueueUrl: process.env.WEBHOOK_QUEUE_URL ?? '',
    webhookDeadLetterQueueUrl: process.env.WEBHOOK_DEAD_LETTER_QUEUE_URL ?? '',
    stackKeyId: process.env.STACK_KEY_ID ?? '',
    hmacKeyId: process.env.HMAC_KEY_ID ?? '',
    docBaseUrl: process.env.DOC_BASE_URL || DEFAULT_DOC_BASE_URL,
    authCacheTtlSeconds: numberFrom('AUTH_CACHE_TTL_SECONDS', 60),
    jwtIssuer,
    jwtAudience: process.env.JWT_AUDIENCE ?? '',
    jwksUrl:
      process.env.JWKS_URL || (jwtIssuer ? `${jwtIssuer.replace(/\/$/, '')}/.well-known/jwks.json` : ''),
    jwtWorkspaceClaim: process.env.JWT_WORKSPACE_CLAIM ?? 'workspace_id',
    allowLoopbackUrls: booleanFrom('ALLOW_LOOPBACK_URLS'),
    idempotencyTtlSeconds: numberFrom('IDEMPOTENCY_TTL_SECONDS', 86_400),
    mediaUrlTtlSeconds: numberFrom('MEDIA_URL_TTL_SECONDS', 3600),
    uploadUrlTtlSeconds: numberFrom('UPLOAD_URL_TTL_SECONDS', 900),
    maxMultipartUploadBytes: numberFrom('MAX_MULTIPART_UPLOAD_BYTES', 32 * 1024 * 1024),
    maxDirectUploadBytes: numberFrom('MAX_DIRECT_UPLOAD_BYTES', 1024 * 1024 * 1024),
    allowedCorsOrigins: (process.env.ALLOWED_CORS_ORIGINS ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    s3ForcePathStyle: booleanFrom('S3_FORCE_PATH_STYLE'),
    speechEngine: engineFrom('SPEECH_ENGINE', SPEECH_ENGINE_NAMES, 'espeak'),
    compositionEngine: engineFrom('COMPOSITION_ENGINE', COMPOSITION_ENGINE_NAMES, 'ffmpeg'),
    voiceAnalysisEngine: engineFrom('VOICE_ANALYSIS_ENGINE', VOICE_ANALYSIS_ENGINE_NAMES, 'yin'),
    hyperframesEngine: engineFrom('HYPERFRAMES_ENGINE', HYPERFRAMES_ENGINE_NAMES, 'producer'),
    hyperframes: {
      maxZipBytes: numberFrom('HYPERFRAMES_MAX_ZIP_BYTES', 50 * 1024 * 1024),
      maxUnpackedBytes: numberFrom('HYPERFRAMES_MAX_UNPACKED_BYTES', 200 * 1024 * 1024),
      maxFiles: numberFrom('HYPERFRAMES_MAX_FILES', 2000),
      renderTimeoutMs: numberFrom('HYPERFRAMES_RENDER_TIMEOUT_MS', 840_000),
      unstatedDurationSeconds: numberFrom('HYPERFRAMES_UNSTATED_DURATION_SECONDS', 600),
      chunkFrames: Math.max(1, Math.floor(numberFrom('HYPERFRAMES_CHUNK_FRAMES', 240))),
      maxChunks: Math.max(1, Math.floor(numberFrom('HYPERFRAMES_MAX_CHUNKS', 200))),
    },
    videoRenderChunkSeconds: numberFrom('VIDEO_RENDER_CHUNK_SECONDS', 60),
    renderChunkConcurrency: Math.max(
      1,
      Math.round(numberFrom('RENDER_CHUNK_CONCURRENCY', availableParallelism())),
    ),
    pollyEngines: choicesFrom('POLLY_ENGINES', POLLY_ENGINE_TYPES, ['neural', 'standard']),
    region: process.env.AWS_REGION ?? '',
    encryptionSetupStateMachineArn: process.env.ENCRYPTION_SETUP_STATE_MACHINE_ARN ?? '',
    stateMachineArns: stateMachineArnsFrom(process.env),
    mediaWorkDir: process.env.MEDIA_WORK_DIR || tmpdir(),
    encryptionKeyCacheTtlSeconds: numberFrom('ENCRYPTION_KEY_CACHE_TTL_SECONDS', 60),
    encryptionKmsTimeoutMs: numberFrom('ENCRYPTION_KMS_TIMEOUT_MS', 3000),
    encryptionRetryAfterSeconds: numberFrom('ENCRYPTION_RETRY_AFTER_SECONDS', 5),
    jobAdmissionWaitSeconds: Math.max(1, Math.round(numberFrom('JOB_ADMISSION_WAIT_SECONDS', 5))),
    webhookTimeoutMs: numberFrom('WEBHOOK_TIMEOUT_MS', 10_000),
    webhookRetryScheduleMs: numbersFrom('WEBHOOK_RETRY_SCHEDULE_MS', DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS),
    webhookRetryJitter: numberFrom('WEBHOOK_RETRY_JITTER', 0.2),
    webhookMaxRetryAfterMs: numberFrom('WEBHOOK_MAX_RETRY_AFTER_MS', 3_600_000),
    webhookRetentionDays: numberFrom('WEBHOOK_RETENTION_DAYS', 30),
    rateLimitLeaseFraction: numberFrom('RATE_LIMIT_LEASE_FRACTION', 0.02),
    rateLimitLeaseMs: numberFrom('RATE_LIMIT_LEASE_MS', 5000),
    rateLimitWindowSteps: numberFrom('RATE_LIMIT_WINDOW_STEPS', 20),
    documentMaxPages: numberFrom('DOCUMENT_MAX_PAGES', 50),
    documentMaxCharacters: numberFrom('DOCUMENT_MAX_CHARACTERS', 100_000),
    realtimeIdleTimeoutMs: numberFrom('REALTIME_IDLE_TIMEOUT_MS', 30_000),
    realtimeMaxDurationMs: numberFrom('REALTIME_MAX_DURATION_MS', 3_600_000),
    realtimeMaxConcurrentStreams: numberFrom('REALTIME_MAX_CONCURRENT_STREAMS', 3),
    realtimeSegmentMs: numberFrom('REALTIME_SEGMENT_MS', 1000),
    realtimeMaxHeight: numberFrom('REALTIME_MAX_HEIGHT', 720),
    realtimeWorker: choiceFrom('REALTIME_WORKER', REALTIME_WORKERS, 'unavailable'),
    realtimeQueueUrl: process.env.REALTIME_QUEUE_URL ?? '',
    realtimePollMs: numberFrom('REALTIME_POLL_MS', 250),
    realtimeHeartbeatMs: numberFrom('REALTIME_HEARTBEAT_MS', 5000),
    realtimeStaleAfterMs: numberFrom('REALTIME_STALE_AFTER_MS', 30_000),
    realtimeClaimTimeoutMs: numberFrom('REALTIME_CLAIM_TIMEOUT_MS', 180_000),
    realtimeStreamsPerWorker: numberFrom('REALTIME_STREAMS_PER_WORKER', 3),
    realtimeQueueWaitSeconds: numberFrom('REALTIME_QUEUE_WAIT_SECONDS', 20),
  };
  for (const [name, seconds] of [
    ['MEDIA_URL_TTL_SECONDS', cached.mediaUrlTtlSeconds],
    ['UPLOAD_URL_TTL_SECONDS', cached.uploadUrlTtlSeconds],
  ] as const) {
    if (!(Number.isInteger(seconds) && seconds >= 1 && seconds <= MAX_PRESIGNED_URL_TTL_SECONDS)) {
      throw new Error(
        `${name} must be a whole number of seconds from 1 to ${MAX_PRESIGNED_URL_TTL_SECONDS} (7 days, the longest a presigned URL can live), got ${seconds}`,
      );
    }
  }
  if (!(Number.isInteger(cached.maxMultipartUploadBytes) && cached.maxMultipartUploadBytes > 0)) {
    throw new Error('MAX_MULTIPART_UPLOAD_BYTES must be a positive whole number of bytes');
  }
  if (!(cached.webhookTimeoutMs > 0)) throw new Error('WEBHOOK_TIMEOUT_MS must be a positive number');
  if (!(cached.webhookRetryJitter >= 0 && cached.webhookRetryJitter <= 1)) {
    throw new Error('WEBHOOK_RETRY_JITTER must be a fraction from 0 to 1');
  }
  if (!(cached.rateLimitLeaseFraction > 0 && cached.rateLimitLeaseFraction <= 1)) {
    throw new Error('RATE_LIMIT_LEASE_FRACTION must be a fraction above 0, at most 1');
  }
  if (!(cached.rateLimitLeaseMs >= 0)) throw new Error('RATE_LIMIT_LEASE_MS must be 0 or more milliseconds');
  if (!(Number.isInteger(cached.rateLimitWindowSteps) && cached.rateLimitWindowSteps >= 1)) {
    throw new Error('RATE_LIMIT_WINDOW_STEPS must be a whole number, at least 1');
  }
  for (const [name, limit] of [
    ['DOCUMENT_MAX_PAGES', cached.documentMaxPages],
    ['DOCUMENT_MAX_CHARACTERS', cached.documentMaxCharacters],
  ] as const) {
    if (!(Number.isInteger(limit) && limit >= 1))
      throw new Error(`${name} must be a whole number, at least 1`);
  }
  return cached;
}

/**
 * Where the media tools are. Separate from `ServiceConfig` because ffmpeg also runs outside the
 * service (the engines' unit tests, the benchmark, catalog generation), where no table is configured.
 */
export interface MediaToolsConfig {
  /**
   * ffmpeg and ffprobe executables (`FFMPEG_PATH`, `FFPROBE_PATH`): a container image's own build, or a
   * bundle in which the npm packages' path lookups cannot work.
   * @default '' (the binaries of `@ffmpeg-installer/ffmpeg` and `@ffprobe-installer/ffprobe`)
   */
  ffmpegPath: string;
  ffprobePath: string;
  /** TrueType/OpenType font of burned captions (`CAPTION_FONT_FILE`). @default '' (DejaVu Sans from npm) */
  captionFontFile: string;
}

let cachedMediaTools: MediaToolsConfig | undefined;

export function mediaToolsConfig(): MediaToolsConfig {
  cachedMediaTools ??= {
    ffmpegPath: process.env.FFMPEG_PATH ?? '',
    ffprobePath: process.env.FFPROBE_PATH ?? '',
    captionFontFile: process.env.CAPTION_FONT_FILE ?? '',
  };
  return cachedMediaTools;
}

// ---------------------------------------------------------------------------------------------------
// Model engines (issue 13): speech recognition, translation, text generation, image and video
// generation. No npm package ships weights for these, so each capability is off until it is configured:
// an unconfigured capability is an engine whose calls fail with `engine_unavailable` naming these
// settings (lambdas/engines/<capability>/index.ts). Separate from `ServiceConfig`, like the media tools,
// so the engines' unit tests need no table; cleared with the rest of the process state.

/** The value of a capability's engine setting when nothing is configured. */
export const UNCONFIGURED_ENGINE = 'none';

/** Bedrock models used when none is named (the CDK stack grants these same ids). */
export const DEFAULT_BEDROCK_TEXT_MODEL = 'amazon.nova-lite-v1:0';
export const DEFAULT_NOVA_CANVAS_MODEL = 'amazon.nova-canvas-v1:0';
export const DEFAULT_NOVA_REEL_MODEL = 'amazon.nova-reel-v1:1';

/** `SPEECH_RECOGNITION_ENGINE`: an OpenAI-compatible transcription server, or Amazon Transcribe. */
export const SPEECH_RECOGNITION_ENGINE_NAMES = ['openai', 'transcribe'] as const;
export type SpeechRecognitionEngineName =
  | (typeof SPEECH_RECOGNITION_ENGINE_NAMES)[number]
  | typeof UNCONFIGURED_ENGINE
  | typeof TEST_DOUBLE_ENGINE;

/** `TRANSLATION_ENGINE`: an OpenAI-compatible chat server, Amazon Translate, or the `apertium` binary. */
export const TRANSLATION_ENGINE_NAMES = ['openai', 'translate', 'apertium'] as const;
export type TranslationEngineName =
  | (typeof TRANSLATION_ENGINE_NAMES)[number]
  | typeof UNCONFIGURED_ENGINE
  | typeof TEST_DOUBLE_ENGINE;

/** `TEXT_GENERATION_ENGINE`: the deterministic local planner (not an LLM), an OpenAI-compatible server, Amazon Bedrock. */
export const TEXT_GENERATION_ENGINE_NAMES = ['local', 'openai', 'bedrock'] as const;
export type TextGenerationEngineName =
  | (typeof TEXT_GENERATION_ENGINE_NAMES)[number]
  | typeof UNCONFIGURED_ENGINE
  | typeof TEST_DOUBLE_ENGINE;

/**
 * `MEDIA_GENERATION_ENGINE`: Amazon Bedrock (Nova Canvas images, Nova Reel videos), an OpenAI-compatible
 * images server (images only), or `composite` (identity remixes composed by segmentation, no generative
 * model); there is no local generative engine.
 */
export const MEDIA_GENERATION_ENGINE_NAMES = ['bedrock', 'openai', 'composite'] as const;
export type MediaGenerationEngineName =
  | (typeof MEDIA_GENERATION_ENGINE_NAMES)[number]
  | typeof UNCONFIGURED_ENGINE
  | typeof TEST_DOUBLE_ENGINE;

/** Where an engine reaches a model server that speaks the OpenAI HTTP API. */
export interface ModelServerConfig {
  /** Base URL including the version path, e.g. `https://api.openai.com/v1` (`<PREFIX>_BASE_URL`). @default '' */
  baseUrl: string;
  /** Model name sent with each request (`<PREFIX>_MODEL`). @default per capability */
  model: string;
  /** API key sent as a bearer token (`<PREFIX>_API_KEY`). @default '' (none, or the secret below) */
  apiKey: string;
  /**
   * Secrets Manager secret (name or ARN) holding the API key, read with Powertools' parameters and
   * cached (`<PREFIX>_API_KEY_SECRET`); the CDK stack sets this, never the key itself. @default ''
   */
  apiKeySecret: string;
  /** Deadline of one HTTP attempt, from connect to the last byte of the answer (`<PREFIX>_TIMEOUT_MS`). */
  timeoutMs: number;
}

export interface ModelEnginesConfig {
  speechRecognition: ModelServerConfig & {
    /** `SPEECH_RECOGNITION_ENGINE`. @default 'none' */
    engine: SpeechRecognitionEngineName;
    /** Amazon Transcribe: wait between GetTranscriptionJob polls (`TRANSCRIBE_POLL_INTERVAL_MS`). @default 5000 */
    transcribePollIntervalMs: number;
    /** Amazon Transcribe: longest wait for a job to end (`TRANSCRIBE_TIMEOUT_MS`). @default 900000 (15 min) */
    transcribeTimeoutMs: number;
  };
  translation: ModelServerConfig & {
    /** `TRANSLATION_ENGINE`. @default 'none' */
    engine: TranslationEngineName;
    /** The Apertium executable (`APERTIUM_PATH`). @default 'apertium' (looked up on PATH) */
    apertiumPath: string;
    /** Deadline of one Apertium run (`APERTIUM_TIMEOUT_MS`). @default 60000 */
    apertiumTimeoutMs: number;
  };
  textGeneration: ModelServerConfig & {
    /** `TEXT_GENERATION_ENGINE`. @default 'none' */
    engine: TextGenerationEngineName;
  };
  /**
   * The `openai` engine's server: `MEDIA_GENERATION_BASE_URL`, `_MODEL` (@default 'gpt-image-1'), `_API_KEY`,
   * `_API_KEY_SECRET`; one attempt's deadline is `MEDIA_GENERATION_HTTP_TIMEOUT_MS` (@default 120000), since
   * `MEDIA_GENERATION_TIMEOUT_MS` is the wait for a Nova Reel video.
   */
  mediaGeneration: ModelServerConfig & {
    /** `MEDIA_GENERATION_ENGINE`. @default 'none' */
    engine: MediaGenerationEngineName;
    /** Bedrock model id of images (`MEDIA_GENERATION_IMAGE_MODEL`). @default 'amazon.nova-canvas-v1:0' */
    imageModel: string;
    /** Bedrock model id of videos; '' turns video generation off (`MEDIA_GENERATION_VIDEO_MODEL`). @default 'amazon.nova-reel-v1:1' */
    videoModel: string;
    /** Wait between GetAsyncInvoke polls (`MEDIA_GENERATION_POLL_INTERVAL_MS`). @default 10000 */
    pollIntervalMs: number;
    /**
     * Longest wait for a video (`MEDIA_GENERATION_TIMEOUT_MS`): under the 15 min of the render's
     * Compose step that waits for it, so a slow model fails the video with `media_generation_failed`
     * instead of the function being stopped. @default 780000 (13 min)
     */
    videoTimeoutMs: number;
  };
  /**
   * Let model servers live on private, loopback or plain-HTTP addresses (`MODEL_HOSTS_ALLOW_PRIVATE`):
   * a self-hoster's whisper or LLM server inside the VPC or on the same machine. Off, every base URL
   * passes the outbound guard as webhook receivers do (public HTTPS, DNS pinned). @default false
   */
  modelHostsAllowPrivate: boolean;
  /** Retries of a model server request after a 429, 5xx, timeout or network failure (`MODEL_HTTP_RETRIES`). @default 2 */
  modelHttpRetries: number;
  /** First retry wait without `Retry-After`, doubled each retry (`MODEL_HTTP_RETRY_BASE_MS`). @default 1000 */
  modelHttpRetryBaseMs: number;
  /** Longest `Retry-After` honoured; a longer one gives up at once (`MODEL_HTTP_MAX_RETRY_AFTER_MS`). @default 30000 */
  modelHttpMaxRetryAfterMs: number;
}

function modelServerFrom(prefix: string, defaults: { model: string; timeoutMs: number }): ModelServerConfig {
  return {
    baseUrl: process.env[`${prefix}_BASE_URL`]?.trim() ?? '',
    model: process.env[`${prefix}_MODEL`]?.trim() || defaults.model,
    apiKey: process.env[`${prefix}_API_KEY`]?.trim() ?? '',
    apiKeySecret: process.env[`${prefix}_API_KEY_SECRET`]?.trim() ?? '',
    timeoutMs: numberFrom(`${prefix}_TIMEOUT_MS`, defaults.timeoutMs),
  };
}

let cachedModelEngines: ModelEnginesConfig | undefined;

/** The model engines' settings, read once per process (see the block comment above). */
export function modelEnginesConfig(): ModelEnginesConfig {
  if (cachedModelEngines) return cachedModelEngines;
  const settings: ModelEnginesConfig = {
    speechRecognition: {
      engine: engineFrom(
        'SPEECH_RECOGNITION_ENGINE',
        [...SPEECH_RECOGNITION_ENGINE_NAMES, UNCONFIGURED_ENGINE],
        UNCONFIGURED_ENGINE,
      ),
      ...modelServerFrom('SPEECH_RECOGNITION', { model: 'whisper-1', timeoutMs: 300_000 }),
      transcribePollIntervalMs: numberFrom('TRANSCRIBE_POLL_INTERVAL_MS', 5000),
      transcribeTimeoutMs: numberFrom('TRANSCRIBE_TIMEOUT_MS', 900_000),
    },
    translation: {
      engine: engineFrom(
        'TRANSLATION_ENGINE',
        [...TRANSLATION_ENGINE_NAMES, UNCONFIGURED_ENGINE],
        UNCONFIGURED_ENGINE,
      ),
      ...modelServerFrom('TRANSLATION', { model: 'gpt-4o-mini', timeoutMs: 120_000 }),
      apertiumPath: process.env.APERTIUM_PATH?.trim() || 'apertium',
      apertiumTimeoutMs: numberFrom('APERTIUM_TIMEOUT_MS', 60_000),
    },
    textGeneration: {
      engine: engineFrom(
        'TEXT_GENERATION_ENGINE',
        [...TEXT_GENERATION_ENGINE_NAMES, UNCONFIGURED_ENGINE],
        UNCONFIGURED_ENGINE,
      ),
      ...modelServerFrom('TEXT_GENERATION', {
        model:
          process.env.TEXT_GENERATION_ENGINE?.trim() === 'bedrock'
            ? DEFAULT_BEDROCK_TEXT_MODEL
            : 'gpt-4o-mini',
        timeoutMs: 120_000,
      }),
    },
    mediaGeneration: {
      engine: engineFrom(
        'MEDIA_GENERATION_ENGINE',
        [...MEDIA_GENERATION_ENGINE_NAMES, UNCONFIGURED_ENGINE],
        UNCONFIGURED_ENGINE,
      ),
      ...modelServerFrom('MEDIA_GENERATION', { model: 'gpt-image-1', timeoutMs: 120_000 }),
      timeoutMs: numberFrom('MEDIA_GENERATION_HTTP_TIMEOUT_MS', 120_000),
      imageModel: process.env.MEDIA_GENERATION_IMAGE_MODEL?.trim() || DEFAULT_NOVA_CANVAS_MODEL,
      videoModel: process.env.MEDIA_GENERATION_VIDEO_MODEL?.trim() ?? DEFAULT_NOVA_REEL_MODEL,
      pollIntervalMs: numberFrom('MEDIA_GENERATION_POLL_INTERVAL_MS', 10_000),
      videoTimeoutMs: numberFrom('MEDIA_GENERATION_TIMEOUT_MS', 780_000),
    },
    modelHostsAllowPrivate: booleanFrom('MODEL_HOSTS_ALLOW_PRIVATE'),
    modelHttpRetries: numberFrom('MODEL_HTTP_RETRIES', 2),
    modelHttpRetryBaseMs: numberFrom('MODEL_HTTP_RETRY_BASE_MS', 1000),
    modelHttpMaxRetryAfterMs: numberFrom('MODEL_HTTP_MAX_RETRY_AFTER_MS', 30_000),
  };
  const timings: [string, number][] = [
    ['SPEECH_RECOGNITION_TIMEOUT_MS', settings.speechRecognition.timeoutMs],
    ['TRANSCRIBE_POLL_INTERVAL_MS', settings.speechRecognition.transcribePollIntervalMs],
    ['TRANSCRIBE_TIMEOUT_MS', settings.speechRecognition.transcribeTimeoutMs],
    ['TRANSLATION_TIMEOUT_MS', settings.translation.timeoutMs],
    ['APERTIUM_TIMEOUT_MS', settings.translation.apertiumTimeoutMs],
    ['TEXT_GENERATION_TIMEOUT_MS', settings.textGeneration.timeoutMs],
    ['MEDIA_GENERATION_POLL_INTERVAL_MS', settings.mediaGeneration.pollIntervalMs],
    ['MEDIA_GENERATION_TIMEOUT_MS', settings.mediaGeneration.videoTimeoutMs],
    ['MEDIA_GENERATION_HTTP_TIMEOUT_MS', settings.mediaGeneration.timeoutMs],
  ];
  for (const [name, value] of timings) {
    if (!(value > 0)) throw new Error(`${name} must be a positive number of milliseconds, got ${value}`);
  }
  if (!(Number.isInteger(settings.modelHttpRetries) && settings.modelHttpRetries >= 0)) {
    throw new Error('MODEL_HTTP_RETRIES must be a whole number, 0 or more');
  }
  if (!(settings.modelHttpRetryBaseMs >= 0 && settings.modelHttpMaxRetryAfterMs >= 0)) {
    throw new Error(
      'MODEL_HTTP_RETRY_BASE_MS and MODEL_HTTP_MAX_RETRY_AFTER_MS must be 0 or more milliseconds',
    );
  }
  cachedModelEngines = settings;
  return settings;
}

/** Forget the model engines' settings (tests and the local stack change the environment). */
export function resetModelEnginesConfig(): void {
  cachedModelEngines = undefined;
}
onProcessReset(resetModelEnginesConfig);
// End of the model engines' settings.

// ---- Vision models (person segmentation, face landmarks: lambdas/engines/vision/) ----

/**
 * The directory of the vendored vision models (`VISION_MODELS_DIR`), e.g. `selfie/selfie.json`. Set by
 * the media image (`/var/task/models`), where the code is bundled and a path relative to the source
 * file no longer points into the repository. Read on every call (no cache): it is one variable.
 * @default '' (the repository's `vendor/models/`, found from the vision engine's source file)
 */
export function visionModelsDir(): string {
  return process.env.VISION_MODELS_DIR ?? '';
}

// ---- end of vision models ----

/** The environment variable naming the route table row a deployed route function serves. */
export const ROUTE_OPERATION_ID_VARIABLE = 'ROUTE_OPERATION_ID';

/**
 * The operation id of the row this function serves (set by the stack on each route function, which
 * shares its area's bundle). Apart from `config()`: read when the bundle loads, before any request.
 */
export function routeOperationId(): string | undefined {
  return process.env[ROUTE_OPERATION_ID_VARIABLE] || undefined;
}

/** Forget the cached configuration (tests and the local stack change the environment). */
export function resetConfig(): void {
  cached = undefined;
  cachedMediaTools = undefined;
}
onProcessReset(resetConfig);
