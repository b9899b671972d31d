import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  MessageNotInflight,
  PurgeQueueCommand,
  QueueDoesNotExist,
  QueueNameExists,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  md5OfMessageAttributes,
  type SqsEmulator,
  startSqsEmulator,
  startSqsPoller,
} from '../../../lib/local/emulators/index.js';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
/** 1 queue second = 10 ms: visibility timeouts and long polls run in milliseconds. */
const TIME_SCALE = 0.01;

describe('SQS emulator', () => {
  let emulator: SqsEmulator;
  let sqs: SQSClient;
  let queueCounter = 0;

  beforeAll(async () => {
    emulator = await startSqsEmulator({ timeScale: TIME_SCALE });
    sqs = new SQSClient({ endpoint: emulator.endpoint, region: 'us-east-1', credentials, maxAttempts: 1 });
  });
  afterAll(async () => {
    sqs.destroy();
    await emulator.stop();
  });

  async function createQueue(attributes: Record<string, string> = {}): Promise<string> {
    queueCounter += 1;
    const created = await sqs.send(
      new CreateQueueCommand({ QueueName: `queue-${queueCounter}`, Attributes: attributes }),
    );
    return created.QueueUrl ?? '';
  }

  async function countMessages(queueUrl: string) {
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }),
    );
    return {
      visible: Number(Attributes?.ApproximateNumberOfMessages),
      inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible),
    };
  }

  it('creates queues with URLs and ARNs of the configured account, idempotently', async () => {
    const created = await sqs.send(
      new CreateQueueCommand({ QueueName: 'jobs', Attributes: { VisibilityTimeout: '60' } }),
    );
    expect(created.QueueUrl).toBe(`${emulator.endpoint}/000000000000/jobs`);
    const again = await sqs.send(
      new CreateQueueCommand({ QueueName: 'jobs', Attributes: { VisibilityTimeout: '60' } }),
    );
    expect(again.QueueUrl).toBe(created.QueueUrl);
    await expect(
      sqs.send(new CreateQueueCommand({ QueueName: 'jobs', Attributes: { VisibilityTimeout: '5' } })),
    ).rejects.toBeInstanceOf(QueueNameExists);
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'jobs' }));
    expect(QueueUrl).toBe(created.QueueUrl);
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }),
    );
    expect(Attributes).toMatchObject({
      QueueArn: 'arn:aws:sqs:us-east-1:000000000000:jobs',
      VisibilityTimeout: '60',
    });
    await expect(sqs.send(new GetQueueUrlCommand({ QueueName: 'missing' }))).rejects.toBeInstanceOf(
      QueueDoesNotExist,
    );
  });

  it('sends, receives and deletes messages, with attributes and valid digests', async () => {
    const queueUrl = await createQueue();
    const messageAttributes = {
      batchId: { DataType: 'String', StringValue: 'b_1' },
      attempt: { DataType: 'Number', StringValue: '2' },
      blob: { DataType: 'Binary', BinaryValue: new Uint8Array([1, 2, 3]) },
    };
    // The SDK checks MD5OfMessageBody of the answer and throws on a mismatch.
    const sent = await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: '{"item":1}',
        MessageAttributes: messageAttributes,
      }),
    );
    expect(sent.MD5OfMessageAttributes).toBe(
      md5OfMessageAttributes({
        batchId: { DataType: 'String', StringValue: 'b_1' },
        attempt: { DataType: 'Number', StringValue: '2' },
        blob: { DataType: 'Binary', BinaryValue: Buffer.from([1, 2, 3]).toString('base64') },
      }),
    );

    const received = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
      }),
    );
    expect(received.Messages).toHaveLength(1);
    const [message] = received.Messages ?? [];
    expect(message?.MessageId).toBe(sent.MessageId);
    expect(message?.Body).toBe('{"item":1}');
    expect(message?.MessageAttributes?.batchId?.StringValue).toBe('b_1');
    expect(Array.from(message?.MessageAttributes?.blob?.BinaryValue ?? [])).toEqual([1, 2, 3]);
    expect(message?.Attributes?.ApproximateReceiveCount).toBe('1');
    expect(await countMessages(queueUrl)).toEqual({ visible: 0, inFlight: 1 });

    await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message?.ReceiptHandle }));
    expect(await countMessages(queueUrl)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('sends and deletes in batches, reporting failed entries', async () => {
    const queueUrl = await createQueue();
    const sent = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: [
          { Id: 'a', MessageBody: 'one' },
          { Id: 'b', MessageBody: 'two' },
          { Id: 'c', MessageBody: 'three', DelaySeconds: 901 },
        ],
      }),
    );
    expect(sent.Successful?.map((entry) => entry.Id)).toEqual(['a', 'b']);
    expect(sent.Failed).toEqual([
      expect.objectContaining({ Id: 'c', SenderFault: true, Code: 'InvalidParameterValue' }),
    ]);

    const received = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }),
    );
    expect(received.Messages?.map((message) => message.Body)).toEqual(['one', 'two']);
    const deleted = await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: [
          ...(received.Messages ?? []).map((message, index) => ({
            Id: `m${index}`,
            ReceiptHandle: message.ReceiptHandle,
          })),
          { Id: 'bogus', ReceiptHandle: 'not-a-handle' },
        ],
      }),
    );
    expect(deleted.Successful).toHaveLength(2);
    expect(deleted.Failed).toEqual([
      expect.objectContaining({ Id: 'bogus', Code: 'ReceiptHandleIsInvalid' }),
    ]);
    expect(await countMessages(queueUrl)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('redelivers a message whose visibility timeout ran out, and only the newest receipt handle deletes it', async () => {
    const queueUrl = await createQueue({ VisibilityTimeout: '2' });
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'job' }));

    const first = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }));
    const firstHandle = first.Messages?.[0]?.ReceiptHandle;
    const hidden = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }));
    expect(hidden.Messages).toBeUndefined();

    // A long poll wakes up as soon as the message turns visible again (2 queue seconds = 20 ms).
    const second = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        WaitTimeSeconds: 20,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    expect(second.Messages?.[0]?.Body).toBe('job');
    expect(second.Messages?.[0]?.Attributes?.ApproximateReceiveCount).toBe('2');

    await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: firstHandle }));
    expect(await countMessages(queueUrl)).toEqual({ visible: 0, inFlight: 1 });
    await sqs.send(
      new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: second.Messages?.[0]?.ReceiptHandle }),
    );
    expect(await countMessages(queueUrl)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('changes visibility of in-flight messages only', async () => {
    const queueUrl = await createQueue({ VisibilityTimeout: '3600' });
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'retry me' }));
    const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }));
    const receiptHandle = received.Messages?.[0]?.ReceiptHandle;

    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: 0,
      }),
    );

    expect(await countMessages(queueUrl)).toEqual({ visible: 1, inFlight: 0 });
    await expect(
      sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: receiptHandle,
          VisibilityTimeout: 10,
        }),
      ),
    ).rejects.toBeInstanceOf(MessageNotInflight);
  });

  it('answers a long poll as soon as a message arrives', async () => {
    const queueUrl = await createQueue();
    // 20 queue seconds = 200 ms: the poll must return with the message, not empty at its deadline.
    const polling = sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 20, MaxNumberOfMessages: 10 }),
    );
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'late' }));
    const received = await polling;
    expect(received.Messages?.map((message) => message.Body)).toEqual(['late']);
  });

  it('moves a message to the dead-letter queue after maxReceiveCount receives', async () => {
    const deadLetterUrl = await createQueue();
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: deadLetterUrl, AttributeNames: ['QueueArn'] }),
    );
    const queueUrl = await createQueue({
      VisibilityTimeout: '0',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes?.QueueArn, maxReceiveCount: 2 }),
    });
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'poison' }));

    for (const expectedCount of ['1', '2']) {
      const received = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MessageSystemAttributeNames: ['ApproximateReceiveCount'],
        }),
      );
      expect(received.Messages?.[0]?.Attributes?.ApproximateReceiveCount).toBe(expectedCount);
    }
    const third = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }));
    expect(third.Messages).toBeUndefined();

    const dead = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: deadLetterUrl, MessageSystemAttributeNames: ['All'] }),
    );
    expect(dead.Messages?.[0]?.Body).toBe('poison');
    expect(dead.Messages?.[0]?.Attributes?.DeadLetterQueueSourceArn).toBe(
      emulator.queueArn(`queue-${queueCounter}`),
    );
  });

  it('purges a queue at once', async () => {
    const queueUrl = await createQueue();
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'a' }));
    await sqs.send(new PurgeQueueCommand({ QueueUrl: queueUrl }));
    expect(await countMessages(queueUrl)).toEqual({ visible: 0, inFlight: 0 });
    await expect(
      sqs.send(new PurgeQueueCommand({ QueueUrl: `${emulator.endpoint}/000000000000/missing` })),
    ).rejects.toBeInstanceOf(QueueDoesNotExist);
  });

  it('delivers batches to a poller consumer, redelivers reported failures, and dead-letters them', async () => {
    const deadLetterUrl = await createQueue();
    const queueUrl = await createQueue({
      VisibilityTimeout: '1',
      RedrivePolicy: JSON.stringify({
        deadLetterTargetArn: emulator.queueArn(`queue-${queueCounter}`),
        maxReceiveCount: 3,
      }),
    });
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: ['ok-1', 'ok-2', 'bad'].map((body) => ({ Id: body, MessageBody: body })),
      }),
    );
    const events: SQSEvent[] = [];
    const poller = await startSqsPoller({
      client: sqs,
      queueUrl,
      batchSize: 10,
      waitTimeSeconds: 1,
      pollIntervalMs: 5,
      consumer: async (event) => {
        events.push(event);
        return {
          batchItemFailures: event.Records.filter((record) => record.body === 'bad').map((record) => ({
            itemIdentifier: record.messageId,
          })),
        };
      },
    });
    try {
      await vi.waitFor(
        async () => {
          const dead = await countMessages(deadLetterUrl);
          expect(dead.visible).toBe(1);
        },
        { timeout: 5000, interval: 10 },
      );
    } finally {
      await poller.stop();
    }

    const bodies = events.flatMap((event) => event.Records.map((record) => record.body));
    expect(bodies.filter((body) => body.startsWith('ok'))).toEqual(['ok-1', 'ok-2']);
    expect(bodies.filter((body) => body === 'bad')).toHaveLength(3);
    const [record] = events[0]?.Records ?? [];
    expect(record).toMatchObject({
      eventSource: 'aws:sqs',
      eventSourceARN: emulator.queueArn(queueUrl.split('/').at(-1) ?? ''),
      awsRegion: 'us-east-1',
      attributes: { ApproximateReceiveCount: '1' },
    });
    expect(await countMessages(queueUrl)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('keeps the whole batch when the consumer throws', async () => {
    const queueUrl = await createQueue({ VisibilityTimeout: '3600' });
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x' }));
    const errors: string[] = [];
    let invocations = 0;
    const poller = await startSqsPoller({
      client: sqs,
      queueUrl,
      waitTimeSeconds: 1,
      pollIntervalMs: 5,
      consumer: async () => {
        invocations += 1;
        throw new Error('handler crashed');
      },
      onError: (_error, stage) => errors.push(stage),
    });
    try {
      await vi.waitFor(() => expect(invocations).toBe(1), { timeout: 5000, interval: 5 });
    } finally {
      await poller.stop();
    }
    expect(errors).toEqual(['consumer']);
    expect(await countMessages(queueUrl)).toEqual({ visible: 0, inFlight: 1 });
  });
});

describe('SQS emulator persistence', () => {
  let directory: string;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'local-sqs-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('keeps queues and messages across a restart', async () => {
    const dataFile = join(directory, 'sqs.json');
    const queues = [{ name: 'batch-items', attributes: { VisibilityTimeout: '45' } }];
    const first = await startSqsEmulator({ dataFile, queues, timeScale: TIME_SCALE });
    const firstClient = new SQSClient({ endpoint: first.endpoint, region: 'us-east-1', credentials });
    await firstClient.send(
      new SendMessageCommand({ QueueUrl: first.queueUrl('batch-items'), MessageBody: 'item-1' }),
    );
    firstClient.destroy();
    await first.stop();

    const second = await startSqsEmulator({ dataFile, queues, timeScale: TIME_SCALE });
    const secondClient = new SQSClient({ endpoint: second.endpoint, region: 'us-east-1', credentials });
    try {
      const received = await secondClient.send(
        new ReceiveMessageCommand({ QueueUrl: second.queueUrl('batch-items') }),
      );
      expect(received.Messages?.[0]?.Body).toBe('item-1');
    } finally {
      secondClient.destroy();
      await second.stop();
    }
  });
});
