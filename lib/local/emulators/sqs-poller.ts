/**
 * An in-process stand-in for Lambda's SQS event source mapping: receives batches through the SQS
 * API (so it works against the local emulator and against real SQS alike), hands the consumer the
 * same `SQSEvent` Lambda would, and deletes what succeeded.
 *
 * - The consumer resolves → the whole batch is deleted, except the `batchItemFailures` it reports
 *   (with `reportBatchItemFailures`, Lambda's `ReportBatchItemFailures` response type).
 * - The consumer throws, or reports an item id that is not in the batch → nothing is deleted.
 * - What is not deleted becomes visible again after the queue's visibility timeout, and the queue's
 *   redrive policy moves it to the dead-letter queue after `maxReceiveCount` receives.
 */
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { sleep } from './aws-json-protocol.js';

/** A Lambda-style SQS consumer. */
// biome-ignore lint/suspicious/noConfusingVoidType: the return type of aws-lambda's SQSHandler, so handlers fit as they are.
export type SqsConsumer = (event: SQSEvent) => Promise<SQSBatchResponse | undefined | void>;

/** Where a poller failure happened, for `onError`. */
export type SqsPollerStage = 'receive' | 'consumer' | 'delete';

export interface SqsPollerOptions {
  /** Client whose endpoint serves `queueUrl` (the emulator's, or AWS). */
  client: SQSClient;
  queueUrl: string;
  consumer: SqsConsumer;
  /**
   * Messages per invocation, 1 to 10 (one ReceiveMessage call).
   * @default 10
   */
  batchSize?: number;
  /**
   * Long-poll duration of each ReceiveMessage, 0 to 20 s (the emulator scales it by its `timeScale`).
   * @default 20
   */
  waitTimeSeconds?: number;
  /**
   * Pause after an empty receive or a failed call, so a short-polling or failing poller does not spin.
   * @default 100
   */
  pollIntervalMs?: number;
  /**
   * Honour `batchItemFailures` in the consumer's response (Lambda's `ReportBatchItemFailures`);
   * when false, a resolved invocation deletes the whole batch.
   * @default true
   */
  reportBatchItemFailures?: boolean;
  /**
   * Concurrent receive-invoke loops.
   * @default 1
   */
  concurrency?: number;
  /**
   * Told about failed receives, consumer errors and failed deletes; the poller carries on.
   * @default logs to console.error
   */
  onError?: (error: unknown, stage: SqsPollerStage) => void;
}

export interface SqsPoller {
  /** Stops receiving and waits for the invocations in progress to finish. */
  stop(): Promise<void>;
}

/** Starts polling `queueUrl` and delivering batches to `consumer`. */
export async function startSqsPoller(options: SqsPollerOptions): Promise<SqsPoller> {
  const batchSize = options.batchSize ?? 10;
  const waitTimeSeconds = options.waitTimeSeconds ?? 20;
  const pollIntervalMs = options.pollIntervalMs ?? 100;
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10)
    throw new RangeError('batchSize must be 1 to 10');
  if (waitTimeSeconds < 0 || waitTimeSeconds > 20) throw new RangeError('waitTimeSeconds must be 0 to 20');
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError('concurrency must be a positive integer');
  const reportBatchItemFailures = options.reportBatchItemFailures ?? true;
  const onError =
    options.onError ??
    ((error: unknown, stage: SqsPollerStage) =>
      console.error(`[sqs-poller] ${stage} failed for ${options.queueUrl}`, error));

  const attributes = await options.client.send(
    new GetQueueAttributesCommand({ QueueUrl: options.queueUrl, AttributeNames: ['QueueArn'] }),
  );
  const queueArn = attributes.Attributes?.QueueArn ?? '';
  const awsRegion = queueArn.split(':')[3] ?? '';
  const stopping = new AbortController();

  async function pollOnce(): Promise<void> {
    let messages: Message[];
    try {
      const received = await options.client.send(
        new ReceiveMessageCommand({
          QueueUrl: options.queueUrl,
          MaxNumberOfMessages: batchSize,
          WaitTimeSeconds: waitTimeSeconds,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: stopping.signal },
      );
      messages = received.Messages ?? [];
    } catch (error) {
      if (!stopping.signal.aborted) onError(error, 'receive');
      await sleep(pollIntervalMs, stopping.signal);
      return;
    }
    if (messages.length === 0) {
      await sleep(pollIntervalMs, stopping.signal);
      return;
    }
    const records = messages.map((message) => toRecord(message, queueArn, awsRegion));
    const succeeded = await invoke(records);
    if (succeeded.length === 0) return;
    try {
      const deleted = await options.client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: succeeded.map((record, index) => ({
            Id: String(index),
            ReceiptHandle: record.receiptHandle,
          })),
        }),
      );
      if (deleted.Failed?.length)
        onError(new Error(`could not delete ${deleted.Failed.length} message(s)`), 'delete');
    } catch (error) {
      onError(error, 'delete');
    }
  }

  /** Invokes the consumer; returns the records to delete. */
  async function invoke(records: SQSRecord[]): Promise<SQSRecord[]> {
    // biome-ignore lint/suspicious/noConfusingVoidType: what an SqsConsumer may resolve with.
    let response: SQSBatchResponse | undefined | void;
    try {
      response = await options.consumer({ Records: records });
    } catch (error) {
      onError(error, 'consumer');
      return [];
    }
    const failures = reportBatchItemFailures ? (response?.batchItemFailures ?? []) : [];
    const failedIds = new Set(failures.map((failure) => failure.itemIdentifier));
    const knownIds = new Set(records.map((record) => record.messageId));
    // Lambda treats a malformed failure report as a failure of the whole batch.
    if ([...failedIds].some((id) => !id || !knownIds.has(id))) {
      onError(new Error('batchItemFailures names an itemIdentifier that is not in the batch'), 'consumer');
      return [];
    }
    return records.filter((record) => !failedIds.has(record.messageId));
  }

  async function loop(): Promise<void> {
    while (!stopping.signal.aborted) await pollOnce();
  }

  const loops = Array.from({ length: concurrency }, () => loop());

  return {
    async stop() {
      stopping.abort();
      await Promise.all(loops);
    },
  };
}

function toRecord(message: Message, eventSourceARN: string, awsRegion: string): SQSRecord {
  const system = message.Attributes ?? {};
  const messageAttributes: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      dataType: value.DataType ?? 'String',
      stringValue: value.StringValue,
      binaryValue: value.BinaryValue ? Buffer.from(value.BinaryValue).toString('base64') : undefined,
      stringListValues: [],
      binaryListValues: [],
    };
  }
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: system.ApproximateReceiveCount ?? '1',
      SentTimestamp: system.SentTimestamp ?? '',
      SenderId: system.SenderId ?? '',
      ApproximateFirstReceiveTimestamp: system.ApproximateFirstReceiveTimestamp ?? '',
      AWSTraceHeader: system.AWSTraceHeader,
      DeadLetterQueueSourceArn: system.DeadLetterQueueSourceArn,
    },
    messageAttributes,
    md5OfBody: message.MD5OfBody ?? '',
    md5OfMessageAttributes: message.MD5OfMessageAttributes,
    eventSource: 'aws:sqs',
    eventSourceARN,
    awsRegion,
  };
}
