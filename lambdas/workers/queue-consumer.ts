/**
 * An SQS consumer with partial batch responses (Powertools `BatchProcessor`): each record's body is
 * read with the queue's message schema and handed to `process`; a record that fails is reported on
 * its own, so only it is retried and, after the queue's receive limit, moved to its dead-letter queue.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { z } from 'zod';
import { logger } from '../core/observability.js';

export interface QueueConsumer<Message extends { kind: string }> {
  /** The queue's name in log lines, e.g. `batch item`. */
  queue: string;
  message: z.ZodType<Message>;
  process(message: Message, record: SQSRecord): Promise<void>;
  /** Whether the records of a batch run concurrently (worth it when most of a record is waiting). */
  inParallel: boolean;
}

export function queueConsumer<Message extends { kind: string }>(
  consumer: QueueConsumer<Message>,
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  const processRecord = async (record: SQSRecord): Promise<void> => {
    let message: Message;
    try {
      message = consumer.message.parse(JSON.parse(record.body));
    } catch (error) {
      // A message no version of this worker can read will never succeed: drop it, loudly.
      logger.error(`Dropping an unreadable ${consumer.queue} message`, {
        messageId: record.messageId,
        error,
      });
      return;
    }
    try {
      await consumer.process(message, record);
    } catch (error) {
      logger.warn(`A ${consumer.queue} message failed; it will be retried`, {
        messageId: record.messageId,
        kind: message.kind,
        error,
      });
      throw error;
    }
  };
  return (event) =>
    // A processor per invocation: it holds the batch's state, and the local stack runs several
    // invocations of one handler at once in the same process.
    processPartialResponse(event, processRecord, new BatchProcessor(EventType.SQS, { logger }), {
      processInParallel: consumer.inParallel,
      // A batch whose every record failed is reported like any other, not thrown: the same retries.
      throwOnFullBatchFailure: false,
    });
}
