/**
 * Domain events: every terminal state of a job (and every finished batch) is published to the
 * service's EventBridge bus. The webhook dispatcher subscribes to the bus; producers know nothing of
 * endpoints or retries.
 */
import { randomUUID } from 'node:crypto';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { eventBridgeClient } from '../core/aws-clients.js';
import { config } from '../core/config.js';
import type { EventType } from './event-types.js';

/** `Source` of every event this service publishes. */
export const EVENT_SOURCE = 'video-creation-service';

export interface DomainEvent {
  /** Stable id: webhook deliveries send it as `Service-Event-Id`, identical on every retry. */
  event_id: string;
  event_type: EventType;
  workspace_id: string;
  /** The resource the event is about (`entity_id` scoping of endpoints). */
  entity_id: string;
  /** A one-off callback of the job, with the client's `callback_id` echoed. */
  callback?: { url: string; id: string | null };
  event_data: Record<string, unknown>;
  /** ISO 8601 UTC. */
  created_at: string;
}

/** A new event; `event_id` may be fixed when the same fact can be published again (at least once). */
export type NewDomainEvent = Omit<DomainEvent, 'event_id' | 'created_at'> & { event_id?: string };

export async function publishEvent(event: NewDomainEvent): Promise<DomainEvent> {
  const published: DomainEvent = {
    ...event,
    event_id: event.event_id ?? randomUUID(),
    created_at: new Date().toISOString(),
  };
  const result = await eventBridgeClient().send(
    new PutEventsCommand({
      Entries: [
        {
          EventBusName: config().eventBusName,
          Source: EVENT_SOURCE,
          DetailType: published.event_type,
          Detail: JSON.stringify(published),
        },
      ],
    }),
  );
  if (result.FailedEntryCount) {
    throw new Error(
      `EventBridge refused event ${published.event_type}: ${result.Entries?.[0]?.ErrorMessage ?? 'unknown'}`,
    );
  }
  return published;
}
