/**
 * THE vocabulary of what a function of this service may touch. Every function names its grants from
 * it (`lib/access/function-access.ts`; Step Functions task functions in
 * `lambdas/workflows/task-functions.ts`), and `lib/access/grant-policies.ts` says what each grant
 * allows, the only place that does: the CDK stack deploys it and the local stack enforces it. Widening a function is a one-word change in its
 * list, reviewed like any other privilege change. Plain data: the handlers' side may import it.
 */
export const GRANTS = {
  /** The authorizer: read API keys and their workspaces (GetItem on the table, nothing else). */
  readCredentials: 'readCredentials',
  /**
   * API functions: items of the table and its index (rate-limit counters, idempotency records, the
   * route's resources) and MACs of the cursor key (pagination).
   */
  tableItems: 'tableItems',
  /** Read and update workspace items (the encryption state). */
  workspaceItems: 'workspaceItems',
  /** Read and write job items and their workspace's balance (transactions), count batch items. */
  jobItems: 'jobItems',
  /** The webhook dispatcher's records, endpoints and callback secrets: no deletes, no index. */
  webhookDeliveryItems: 'webhookDeliveryItems',
  /** Encrypt and decrypt webhook endpoint secrets with the stack key. */
  webhookSecrets: 'webhookSecrets',
  /** Decrypt webhook endpoint secrets with the stack key, to sign deliveries. */
  openWebhookSecrets: 'openWebhookSecrets',
  /** Objects of the media bucket (presigned URLs sign with the function's role), with workspace keys. */
  media: 'media',
  /** Objects under `workspaces/` and reads of `catalog/`, with workspace keys. */
  jobMedia: 'jobMedia',
  /** Read and write the stock catalog media under `catalog/`, with the stack key. */
  catalogMedia: 'catalogMedia',
  /** The encryption setup's check objects under workspace media prefixes, with customer keys through S3. */
  mediaPrefixCheck: 'mediaPrefixCheck',
  /** `kms:DescribeKey` on customer keys of the stack's region. */
  describeCustomerKeys: 'describeCustomerKeys',
  /** GenerateDataKey / Encrypt / Decrypt on customer keys, only with the setup check's encryption context. */
  checkCustomerKeys: 'checkCustomerKeys',
  /** Publish domain events to the service's event bus. */
  publishEvents: 'publishEvents',
  /** Start executions of the job workflows (not the administrative ones). */
  startWorkflows: 'startWorkflows',
  /** Send to the batch queue (one message per batch item). */
  sendBatchItems: 'sendBatchItems',
  /** Consume the batch queue (the batch worker's event source). */
  consumeBatchItems: 'consumeBatchItems',
  /** Send to the webhook queue. */
  sendWebhooks: 'sendWebhooks',
  /**
   * Consume the webhook queue (the dispatcher's event source), and send to it (retries) and to its
   * dead-letter queue (exhausted deliveries).
   */
  consumeWebhooks: 'consumeWebhooks',
  /** Send to the realtime queue (a stream handed to the streaming service). */
  sendRealtimeStreams: 'sendRealtimeStreams',
  /** Receive and delete the realtime queue's messages (the streaming service's workers poll it). */
  consumeRealtimeStreams: 'consumeRealtimeStreams',
  /** Synthesize speech with the deployment's engine (Amazon Polly: a grant; eSpeak: nothing to grant). */
  synthesizeSpeech: 'synthesizeSpeech',
  /**
   * The model capabilities (lambdas/engines/{recognition,translation,text-generation,generation}/),
   * each granting what the deployment's engine for it calls (nothing when it is off or needs no AWS
   * call): Amazon Transcribe, Amazon Translate and its glossary terminologies, Amazon Bedrock on the
   * configured models, and the API key's secret of an OpenAI-compatible server. A job step that uses
   * a capability names its grant beside `jobMedia` (the engines read and write the job's media).
   */
  recognizeSpeech: 'recognizeSpeech',
  translateText: 'translateText',
  generateText: 'generateText',
  generateMedia: 'generateMedia',
} as const;
export type Grant = (typeof GRANTS)[keyof typeof GRANTS];
