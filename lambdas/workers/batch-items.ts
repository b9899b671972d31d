/**
 * The batch worker: consumes the batch queue (one message per batch item) and reports failed
 * messages individually, so only they are retried and, after the queue's receive limit, moved to
 * its dead-letter queue.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { completeBatchItem } from '../assets/asset-batches.js';
import { type BatchItemMessage, batchItemMessage } from '../batches/batch-queue.js';
import { logger } from '../core/observability.js';
import { admitBatchVideo } from '../videos/video-batches.js';

async function process(message: BatchItemMessage): Promise<void> {
  switch (message.kind) {
    case 'asset.complete':
      return completeBatchItem(message.workspace_id, message.asset_id);
    case 'video.create':
      return admitBatchVideo(message);
  }
}

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    let message: BatchItemMessage;
    try {
      message = batchItemMessage.parse(JSON.parse(record.body));
    } catch (error) {
      // A message no version of this worker can read will never succeed: drop it, loudly.
      logger.error('Dropping an unreadable batch item message', { messageId: record.messageId, error });
      continue;
    }
    try {
      await process(message);
    } catch (error) {
      logger.warn('Batch item failed; it will be retried', {
        messageId: record.messageId,
        kind: message.kind,
        error,
      });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
