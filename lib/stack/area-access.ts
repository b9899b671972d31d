/**
 * What the functions of each route area may touch.
 *
 * The route table says what a route is, not which AWS resources its handler calls, so privileges are
 * granted per area: all functions of an area share one execution role, and each capability below is
 * one customer-managed policy in the root stack. Widening an area is a one-word change here, reviewed
 * like any other privilege change.
 */
import type { RouteArea } from '../../lambdas/api/pipeline/route-types.js';

export const CAPABILITIES = {
  /**
   * Items of the table (every authenticated route: rate-limit counters, idempotency records, its
   * resources) and MACs of the cursor key (pagination). DynamoDB uses its key through its own grant.
   */
  tableItems: 'tableItems',
  /** Encrypt and decrypt webhook endpoint secrets with the stack key. */
  webhookSecrets: 'webhookSecrets',
  /** Read and write objects of the media bucket (presigned URLs sign with the function's role). */
  media: 'media',
  /** Publish domain events to the service's event bus. */
  publishEvents: 'publishEvents',
  /** Start executions of the service's state machines. */
  startWorkflows: 'startWorkflows',
  /** Send to the batch queue (one message per batch item). */
  sendBatchItems: 'sendBatchItems',
  /** Send to the webhook delivery queue. */
  sendWebhooks: 'sendWebhooks',
  /** Synthesize speech with the deployment's engine (Amazon Polly: a grant; eSpeak: nothing to grant). */
  synthesizeSpeech: 'synthesizeSpeech',
} as const;
export type Capability = (typeof CAPABILITIES)[keyof typeof CAPABILITIES];

const {
  tableItems,
  webhookSecrets,
  media,
  publishEvents,
  startWorkflows,
  sendBatchItems,
  sendWebhooks,
  synthesizeSpeech,
} = CAPABILITIES;
/** Areas whose creates start an asynchronous job: a record, a state machine execution, media in and out. */
const jobs = [tableItems, media, publishEvents, startWorkflows] as const;

export const AREA_CAPABILITIES: Readonly<Record<RouteArea, readonly Capability[]>> = {
  account: [tableItems],
  'ai-clipping': jobs,
  assets: [...jobs, sendBatchItems],
  // The sound catalog's presigned URLs are signed with the function's role: it must be able to read them.
  audio: [tableItems, media],
  avatars: jobs,
  'background-removals': jobs,
  brand: [tableItems, media],
  'filler-word-removals': jobs,
  folders: [tableItems],
  hyperframes: jobs,
  // Removed routes are answered by API Gateway itself; no function runs.
  legacy: [],
  lipsyncs: [...jobs, sendBatchItems],
  // The public OpenAPI document is a static file in the bundle: no data access at all.
  meta: [],
  // Model audio voices train in a workflow; text to speech speaks with the deployment's engine.
  models: [...jobs, synthesizeSpeech],
  overdubs: jobs,
  realtime: jobs,
  templates: jobs,
  'video-agents': jobs,
  'video-translations': [...jobs, sendBatchItems],
  videos: [...jobs, sendBatchItems],
  // Text to speech and voice previews speak with the deployment's engine.
  voices: [...jobs, synthesizeSpeech],
  webhooks: [tableItems, webhookSecrets, publishEvents, sendWebhooks],
};
