/**
 * What the functions of each route area may touch.
 *
 * The route table says what a route is, not which AWS resources its handler calls, so privileges are
 * granted per area: all functions of an area share one execution role, and each grant below is one
 * customer-managed policy in the root stack (`access-policies.ts`). Widening an area is a one-word
 * change here, reviewed like any other privilege change.
 */
import type { RouteArea } from '../../lambdas/api/pipeline/route-types.js';
import { GRANTS, type Grant } from '../../lambdas/core/grants.js';

const {
  tableItems,
  webhookSecrets,
  media,
  publishEvents,
  startWorkflows,
  sendBatchItems,
  sendWebhooks,
  synthesizeSpeech,
} = GRANTS;
/** Areas whose creates start an asynchronous job: a record, a state machine execution, media in and out. */
const jobs = [tableItems, media, publishEvents, startWorkflows] as const;

export const AREA_GRANTS: Readonly<Record<RouteArea, readonly Grant[]>> = {
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
