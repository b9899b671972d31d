/**
 * The webhook dispatcher: consumes the webhook queue (domain events from the bus, and deliveries
 * waiting for their next attempt; see `webhooks/webhook-queue.ts`). The records of a batch are
 * handled concurrently, since most of an attempt is waiting for a receiver.
 */
import type { DomainEvent } from '../events/domain-events.js';
import { dispatchEvent, driveDelivery, redriveDelivery } from '../webhooks/dispatch.js';
import { webhookMessage } from '../webhooks/webhook-queue.js';
import { queueConsumer } from './queue-consumer.js';

export const handler = queueConsumer({
  queue: 'webhook queue',
  message: webhookMessage,
  inParallel: true,
  async process(message, record) {
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
  },
});
