/**
 * Observing domain events in integration tests: a rule on the local stack's bus whose target (a
 * function of the test) keeps every event it receives.
 */
import { EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import type { EventBusEvent } from '../../lib/local/emulators/index.js';
import { LOCAL_RESOURCE_NAMES, type LocalStackOptions } from '../../lib/local/local-stack.js';
import type { TestStack } from './test-stack.js';

const CAPTURE_TARGET = 'arn:aws:lambda:us-east-1:000000000000:function:test-event-capture';

export interface EventCapture {
  /** Every event received so far, in arrival order. */
  readonly events: EventBusEvent[];
  /** Pass to `startTestStack` so the stack knows the capturing target. */
  readonly stackOptions: Pick<LocalStackOptions, 'eventTargets'>;
  /** Puts the rule on the started stack's bus. @default pattern: every event of the service */
  subscribe(api: TestStack, pattern?: Record<string, unknown>): Promise<void>;
}

export function eventCapture(): EventCapture {
  const events: EventBusEvent[] = [];
  return {
    events,
    stackOptions: {
      eventTargets: { [CAPTURE_TARGET]: async (payload) => void events.push(payload as EventBusEvent) },
    },
    async subscribe(api, pattern = { source: ['video-creation-service'] }) {
      const bus = new EventBridgeClient({
        endpoint: api.stack.environment.AWS_ENDPOINT_URL_EVENTBRIDGE,
        region: 'us-east-1',
      });
      await bus.send(
        new PutRuleCommand({
          Name: 'capture',
          EventBusName: LOCAL_RESOURCE_NAMES.eventBus,
          EventPattern: JSON.stringify(pattern),
        }),
      );
      await bus.send(
        new PutTargetsCommand({
          Rule: 'capture',
          EventBusName: LOCAL_RESOURCE_NAMES.eventBus,
          Targets: [{ Id: 'capture', Arn: CAPTURE_TARGET }],
        }),
      );
      bus.destroy();
    },
  };
}
