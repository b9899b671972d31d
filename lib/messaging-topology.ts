/**
 * THE description of the service's queues and bus rules, read by the CDK stack (`stack/messaging.ts`,
 * `stack/webhook-dispatcher.ts`) and the local stack (`local/local-stack.ts`), so both build the same
 * topology: which queues exist, each with its dead-letter queue and redrive count, and which rule
 * sends which domain events to which queue. Plain data: no CDK, no SDK.
 */
import { EVENT_SOURCE } from '../lambdas/events/domain-events.js';

export interface QueueDescription {
  /** Construct id prefix in the CDK stack: `<id>Queue` and `<id>DeadLetterQueue`. */
  constructId: string;
  /** Name in the local stack; its dead-letter queue is {@link deadLetterQueueName} of it. */
  localName: string;
  /** Receives of a message before it moves to the dead-letter queue. */
  maxReceiveCount: number;
  /** Timeout of the function that consumes the queue (the CDK stack gives it exactly this). */
  consumerTimeoutSeconds: number;
  /**
   * {@link VISIBILITY_PER_CONSUMER_TIMEOUT} times the consumer's timeout, as Lambda recommends for SQS
   * event sources: a message is never handed to a second consumer while the first still works on it,
   * even when the poller retries a throttled invocation. Only the CDK stack applies it: local consumers
   * have no timeout, and local queues keep SQS's 30 s default so a failed message comes back soon.
   */
  visibilityTimeoutSeconds: number;
  /**
   * How long the dead-letter queue keeps a message for inspection and redrive. Only the CDK stack
   * applies it: CreateQueue with other attributes would refuse the queues of existing local data
   * directories.
   */
  deadLetterRetentionDays: number;
  /** Environment variable carrying the queue's URL to the functions that send to it. */
  urlVariable: string;
  /** Environment variable carrying the dead-letter queue's URL, for functions that send to it directly. */
  deadLetterUrlVariable?: string;
}

/** A queue's visibility timeout per second of its consumer's timeout (AWS guidance for SQS sources). */
export const VISIBILITY_PER_CONSUMER_TIMEOUT = 6;

/** The queue settings that follow from its consumer's timeout. */
function consumedWithin(consumerTimeoutSeconds: number) {
  return {
    consumerTimeoutSeconds,
    visibilityTimeoutSeconds: VISIBILITY_PER_CONSUMER_TIMEOUT * consumerTimeoutSeconds,
  };
}

export const QUEUES = {
  /**
   * One message per batch item, consumed by the batch worker (`workers/batch-items`) within 5 minutes
   * (items may hash and move large media); a failed item comes back after 30 minutes.
   */
  batch: {
    constructId: 'Batch',
    localName: 'video-service-batch',
    maxReceiveCount: 5,
    ...consumedWithin(5 * 60),
    deadLetterRetentionDays: 14,
    urlVariable: 'BATCH_QUEUE_URL',
  },
  /**
   * Domain events from the bus and webhook deliveries waiting for their next attempt, consumed by the
   * webhook dispatcher (`workers/webhook-dispatcher`) within 30 s: its records run concurrently, each
   * at most one attempt (10 s deadline) or one fan-out, plus a wait of up to 1 s for a due retry. The
   * dispatcher's own claims (15 s leases) let a crashed attempt be taken over when its message returns. Exhausted deliveries are sent to the
   * dead-letter queue by the dispatcher itself.
   */
  webhook: {
    constructId: 'Webhook',
    localName: 'video-service-webhooks',
    maxReceiveCount: 5,
    ...consumedWithin(30),
    deadLetterRetentionDays: 14,
    urlVariable: 'WEBHOOK_QUEUE_URL',
    deadLetterUrlVariable: 'WEBHOOK_DEAD_LETTER_QUEUE_URL',
  },
  /**
   * Realtime avatar streams handed from the API to the streaming service (lambdas/realtime/
   * realtime-service.ts, the Fargate service of lib/stack/realtime-service.ts): one message per stream,
   * deleted as soon as a worker claimed the stream (a conditional write on its record), so its consumer
   * needs seconds; a stream no worker could claim comes back after a minute, and after five receives
   * lands in the dead-letter queue (alarmed), its record ended as failed by its next reader.
   */
  realtime: {
    constructId: 'Realtime',
    localName: 'video-service-realtime',
    maxReceiveCount: 5,
    ...consumedWithin(10),
    deadLetterRetentionDays: 14,
    urlVariable: 'REALTIME_QUEUE_URL',
  },
} as const satisfies Readonly<Record<string, QueueDescription>>;
export type QueueName = keyof typeof QUEUES;

export const deadLetterQueueName = (queueName: string) => `${queueName}-dlq`;

export interface BusRuleDescription {
  /** The rule's name: `<stack name>-<name>` in the CDK stack, as is locally. */
  name: string;
  description: string;
  eventPattern: { source: readonly string[] };
  /** Where matching events go; events the bus cannot hand over land in the queue's dead-letter queue. */
  targetQueue: QueueName;
}

export const BUS_RULES = {
  webhookDispatch: {
    name: 'webhook-dispatch',
    description: 'Every domain event of the service to the webhook dispatcher',
    eventPattern: { source: [EVENT_SOURCE] },
    targetQueue: 'webhook',
  },
} as const satisfies Readonly<Record<string, BusRuleDescription>>;
