/**
 * What the functions of each route area may touch, beyond what every API function gets (the table,
 * the stack key it is encrypted with, and the cursor HMAC key).
 *
 * The route table says what a route is, not which AWS resources its handler calls, so privileges are
 * granted per area: all functions of an area share one execution role, and each capability below is
 * one customer-managed policy in the root stack. Widening an area is a one-word change here, reviewed
 * like any other privilege change.
 */
import type { RouteArea } from '../../lambdas/api/route-types.js';

export const CAPABILITIES = {
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
} as const;
export type Capability = (typeof CAPABILITIES)[keyof typeof CAPABILITIES];

const { media, publishEvents, startWorkflows, sendBatchItems, sendWebhooks } = CAPABILITIES;
/** Areas whose creates start an asynchronous job: a record, a state machine execution, media in and out. */
const jobs = [media, publishEvents, startWorkflows] as const;

export const AREA_CAPABILITIES: Readonly<Record<RouteArea, readonly Capability[]>> = {
  account: [],
  'ai-clipping': jobs,
  assets: [...jobs, sendBatchItems],
  audio: [],
  avatars: jobs,
  'background-removals': jobs,
  brand: [media],
  'filler-word-removals': jobs,
  folders: [],
  hyperframes: jobs,
  legacy: [],
  lipsyncs: [...jobs, sendBatchItems],
  meta: [],
  models: jobs,
  overdubs: jobs,
  realtime: jobs,
  templates: jobs,
  'video-agents': jobs,
  'video-translations': [...jobs, sendBatchItems],
  videos: [...jobs, sendBatchItems],
  voices: jobs,
  webhooks: [publishEvents, sendWebhooks],
};
