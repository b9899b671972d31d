/**
 * The webhook dispatcher: consumes the webhook queue (domain events from the bus, and deliveries
 * waiting for their next attempt; see `webhooks/webhook-queue.ts`). The records of a batch are
 * handled concurrently, since most of an attempt is waiting for a receiver, and failed records are
 * reported individually, so only they are retried and, after the queue's receive limit, moved to its
 * dead-letter queue.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../core/observability.js';
import type { DomainEvent } from '../events/domain-events.js';
import { dispatchEvent, driveDelivery, redriveDelivery } from '../webhooks/dispatch.js';
import { type WebhookMessage, webhookMessage } from '../webhooks/webhook-queue.js';

async function process(message: WebhookMessage, record: SQSRecord): Promise<void> {
  switch (message.kind) {
    case 'domain.event':
      return dispatchEvent(message.event as DomainEvent);
    case 'webhook.delivery':
      return driveDelivery({
        workspaceId: message.workspace_id,
        eventId: message.event_id,
        deliveryId: message.delivery_id,
      });
    case 'webhook.exhausted':
      return redriveDelivery(
        { workspaceId: message.workspace_id, eventId: message.event_id, deliveryId: message.delivery_id },
        record.messageId,
      );
  }
}

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      let message: WebhookMessage;
      try {
        message = webhookMessage.parse(JSON.parse(record.body));
      } catch (error) {
        // A message no version of this worker can read will never succeed: drop it, loudly.
        logger.error('Dropping an unreadable webhook queue message', { messageId: record.messageId, error });
        return;
      }
      try {
        await process(message, record);
      } catch (error) {
        logger.warn('Webhook queue message failed; it will be retried', {
          messageId: record.messageId,
          kind: message.kind,
          error,
        });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures };
}
