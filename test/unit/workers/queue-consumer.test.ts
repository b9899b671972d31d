import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { queueConsumer } from '../../../lambdas/workers/queue-consumer.js';

const record = (messageId: string, body: string): SQSRecord =>
  ({ messageId, body, eventSource: 'aws:sqs' }) as SQSRecord;
const eventOf = (...records: SQSRecord[]): SQSEvent => ({ Records: records });

const message = z.object({ kind: z.literal('greet'), name: z.string() });

function consumerRecording(fail: ReadonlySet<string>) {
  const processed: string[] = [];
  const handler = queueConsumer({
    queue: 'test',
    message,
    inParallel: false,
    async process(greeting) {
      processed.push(greeting.name);
      if (fail.has(greeting.name)) throw new Error(`cannot greet ${greeting.name}`);
    },
  });
  return { handler, processed };
}

describe('queueConsumer', () => {
  it('reports only the records that failed', async () => {
    const { handler, processed } = consumerRecording(new Set(['bob']));
    const response = await handler(
      eventOf(
        record('1', JSON.stringify({ kind: 'greet', name: 'ada' })),
        record('2', JSON.stringify({ kind: 'greet', name: 'bob' })),
      ),
    );
    expect(processed).toEqual(['ada', 'bob']);
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: '2' }] });
  });

  it('drops a message it cannot read instead of retrying it', async () => {
    const { handler, processed } = consumerRecording(new Set());
    const response = await handler(
      eventOf(record('1', 'not json'), record('2', JSON.stringify({ kind: 'other' }))),
    );
    expect(processed).toEqual([]);
    expect(response).toEqual({ batchItemFailures: [] });
  });

  it('reports a batch whose every record failed instead of throwing', async () => {
    const { handler } = consumerRecording(new Set(['ada']));
    const response = await handler(eventOf(record('1', JSON.stringify({ kind: 'greet', name: 'ada' }))));
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: '1' }] });
  });
});
