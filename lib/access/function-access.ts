/**
 * What every function of the stack may touch, by grant (`lambdas/core/grants.ts`): read by the CDK
 * stack, which gives each function's role these grants' statements, and by the local stack, which
 * enforces the same statements on each function's AWS calls (`lib/local/access-enforcement.ts`).
 * Widening a function is a one-word change here, reviewed like any other privilege change. Step
 * Functions task functions name their grants beside their steps (`lambdas/workflows/task-functions.ts`).
 *
 * The route table says what a route is, not which AWS resources its handler calls, so route
 * privileges are granted per area: all functions of an area share one execution role, and each grant
 * is one customer-managed policy in the root stack (`lib/stack/access-policies.ts`).
 */
import type { RouteArea } from '../../lambdas/api/pipeline/route-types.js';
import { GRANTS, type Grant } from '../../lambdas/core/grants.js';
import { TASK_FUNCTIONS } from '../../lambdas/workflows/task-functions.js';

const {
  tableItems,
  webhookSecrets,
  media,
  publishEvents,
  startWorkflows,
  sendBatchItems,
  sendWebhooks,
  sendRealtimeStreams,
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
  // The /v1 user-info and folder routes read and write table items; the removed ones are answered by
  // API Gateway itself (no function runs).
  legacy: [tableItems],
  lipsyncs: [...jobs, sendBatchItems],
  // The public OpenAPI document is a static file in the bundle: no data access at all.
  meta: [],
  // Model audio voices train in a workflow; text to speech speaks with the deployment's engine.
  models: [...jobs, synthesizeSpeech],
  overdubs: jobs,
  // A realtime stream speaks its text with the deployment's engine (lambdas/realtime/) where it runs in
  // process; with the streaming service, a create hands the stream over on the realtime queue. It
  // starts no workflow and announces no event: without them, its functions' environment also leaves
  // out the workflows' ARNs (Lambda's 4 KB of environment).
  realtime: [tableItems, media, synthesizeSpeech, sendRealtimeStreams],
  templates: jobs,
  // A run that cannot start ends, and its queued follow-ups are handed to the batch worker.
  'video-agents': [...jobs, sendBatchItems],
  'video-translations': [...jobs, sendBatchItems],
  videos: [...jobs, sendBatchItems],
  // Text to speech and voice previews speak with the deployment's engine.
  voices: [...jobs, synthesizeSpeech],
  webhooks: [tableItems, webhookSecrets, publishEvents, sendWebhooks],
};

/**
 * What batch items need: they complete assets and create videos (a job record, its media, its render
 * workflow). The same grants as the route areas that do it, so the batch worker shares their policies.
 */
export const BATCH_ITEM_GRANTS = [
  GRANTS.tableItems,
  GRANTS.media,
  GRANTS.publishEvents,
  GRANTS.startWorkflows,
] as const satisfies readonly Grant[];

/** The functions that serve no route and run no workflow step. */
export const FUNCTION_GRANTS = {
  /** The API's Lambda authorizer: resolves API keys and bearer tokens to workspaces. */
  authorizer: [GRANTS.readCredentials],
  /**
   * Consumes the batch queue, one message per batch item. Sends to it too: a video agent run it could
   * not start ends, and hands the session's next queued follow-up back to the queue (`video_agent.next`).
   */
  batchWorker: [...BATCH_ITEM_GRANTS, GRANTS.consumeBatchItems, GRANTS.sendBatchItems],
  /** Consumes the webhook queue: records deliveries, signs and sends them. */
  webhookDispatcher: [GRANTS.webhookDeliveryItems, GRANTS.openWebhookSecrets, GRANTS.consumeWebhooks],
  /**
   * A worker of the streaming service (the Fargate task of lib/stack/realtime-service.ts, not a Lambda
   * function): takes streams from the realtime queue, keeps their records and words items, reads the
   * looks' portraits (stock ones under `catalog/`), writes segments and playlists under `workspaces/`
   * and speaks with the deployment's engine.
   */
  realtimeWorker: [GRANTS.jobItems, GRANTS.jobMedia, GRANTS.synthesizeSpeech, GRANTS.consumeRealtimeStreams],
  /** The custom resource that publishes the stock catalog media (portraits, voice previews). */
  catalogPublisher: [GRANTS.catalogMedia, GRANTS.synthesizeSpeech],
} as const satisfies Readonly<Record<string, readonly Grant[]>>;

/** How the local stack names a function when it enforces that function's grants. */
export type ServiceFunctionName = keyof typeof FUNCTION_GRANTS | `area:${RouteArea}` | `task:${string}`;

/** Every function of the stack and its grants: route areas, task functions and the rest. */
export function serviceFunctionGrants(): Map<ServiceFunctionName, readonly Grant[]> {
  return new Map<ServiceFunctionName, readonly Grant[]>([
    ...Object.entries(FUNCTION_GRANTS).map(
      ([name, grants]) => [name as keyof typeof FUNCTION_GRANTS, grants] as const,
    ),
    ...Object.entries(AREA_GRANTS).map(([area, grants]) => [`area:${area as RouteArea}`, grants] as const),
    ...Object.entries(TASK_FUNCTIONS).map(([name, { access }]) => [`task:${name}`, access] as const),
  ]);
}
