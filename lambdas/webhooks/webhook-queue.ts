/**
 * The webhook queue and what travels on it:
 *
 * - domain events, as EventBridge puts them there (the event envelope, `detail` = the DomainEvent);
 * - `webhook.delivery`: "drive this delivery", for a retry that is due later or a delivery the
 *   fan-out did not send itself. SQS delays a message at most 900 s, so a longer wait is covered by
 *   re-sending the message with the delay that remains, until the attempt is due;
 * - `webhook.exhausted`: sent to the dead-letter queue when a delivery ran out of attempts (alarmed).
 *   Moved back to the queue (an SQS redrive), it makes a new delivery of the event to the same target.
 *
 * Messages name records; the worker reads everything else from the table.
 */
import { SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import { sqsClient } from '../core/aws-clients.js';
import { config } from '../core/config.js';
import { EVENT_SOURCE } from '../events/domain-events.js';
import type { DeliveryRef } from './deliveries.js';

/** SQS's longest message delay. */
export const MAX_QUEUE_DELAY_SECONDS = 900;

/** Event ids are part of record keys, where `#` separates parts. */
const eventId = z
  .string()
  .min(1)
  .max(512)
  .regex(/^[^#]+$/);

const deliveryRefFields = {
  workspace_id: z.string().min(1),
  event_id: eventId,
  delivery_id: z.string().min(1),
};

export const domainEventSchema = z.object({
  event_id: eventId,
  event_type: z.string().min(1),
  workspace_id: z.string().min(1),
  entity_id: z.string(),
  callback: z.object({ url: z.string().min(1), id: z.string().nullable() }).optional(),
  event_data: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});

export const webhookMessage = z.union([
  z.object({ kind: z.literal('webhook.delivery'), ...deliveryRefFields }),
  z.object({ kind: z.literal('webhook.exhausted'), ...deliveryRefFields }),
  z
    .object({ source: z.literal(EVENT_SOURCE), 'detail-type': z.string(), detail: domainEventSchema })
    .transform((envelope) => ({ kind: 'domain.event' as const, event: envelope.detail })),
]);
export type WebhookMessage = z.output<typeof webhookMessage>;

const refFields = (ref: DeliveryRef) => ({
  workspace_id: ref.workspaceId,
  event_id: ref.eventId,
  delivery_id: ref.deliveryId,
});

/** Asks the worker to drive a delivery in `delayMs` (whole seconds by SQS, at most 900 of them). */
export async function enqueueDelivery(ref: DeliveryRef, delayMs: number): Promise<void> {
  await sqsClient().send(
    new SendMessageCommand({
      QueueUrl: config().webhookQueueUrl,
      MessageBody: JSON.stringify({ kind: 'webhook.delivery', ...refFields(ref) }),
      DelaySeconds: queueDelaySeconds(delayMs),
    }),
  );
}

const SQS_BATCH_LIMIT = 10;

/** `enqueueDelivery` for many deliveries: 10 per SendMessageBatch call. */
export async function enqueueDeliveries(
  entries: readonly { ref: DeliveryRef; delayMs: number }[],
): Promise<void> {
  for (let start = 0; start < entries.length; start += SQS_BATCH_LIMIT) {
    const chunk = entries.slice(start, start + SQS_BATCH_LIMIT);
    const result = await sqsClient().send(
      new SendMessageBatchCommand({
        QueueUrl: config().webhookQueueUrl,
        Entries: chunk.map((entry, index) => ({
          Id: String(index),
          MessageBody: JSON.stringify({ kind: 'webhook.delivery', ...refFields(entry.ref) }),
          DelaySeconds: queueDelaySeconds(entry.delayMs),
        })),
      }),
    );
    if (result.Failed && result.Failed.length > 0) {
      throw new Error(
        `SQS refused ${result.Failed.length} webhook delivery messages: ${result.Failed[0]?.Message ?? ''}`,
      );
    }
  }
}

/** Whole seconds SQS can delay a message for a wait of `delayMs`: never past the wait itself. */
export function queueDelaySeconds(delayMs: number): number {
  return Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, Math.floor(delayMs / 1000)));
}

export async function sendToDeadLetterQueue(ref: DeliveryRef): Promise<void> {
  await sqsClient().send(
    new SendMessageCommand({
      QueueUrl: config().webhookDeadLetterQueueUrl,
      MessageBody: JSON.stringify({ kind: 'webhook.exhausted', ...refFields(ref) }),
    }),
  );
}
