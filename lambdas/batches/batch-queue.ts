/**
 * The batch queue: one message per batch item, consumed by the batch worker. Messages are small
 * and say which item to process; the worker reads everything else from the table.
 */
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import { sqsClient } from '../core/aws-clients.js';
import { config } from '../core/config.js';

export const batchItemMessage = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('asset.complete'), workspace_id: z.string(), asset_id: z.string() }),
  z.object({
    kind: z.literal('video.create'),
    workspace_id: z.string(),
    batch_id: z.string(),
    item_index: z.number().int().min(0),
    video_id: z.string(),
  }),
  z.object({
    kind: z.literal('translation.create'),
    workspace_id: z.string(),
    batch_id: z.string(),
    /** The payload of the batch request; its languages are the items from `first_item_index` on. */
    payload_index: z.number().int().min(0),
    first_item_index: z.number().int().min(0),
  }),
  z.object({
    /**
     * Start the render of a video admitted by a workflow step (a video agent's draft): task functions
     * cannot start workflows (the state machines depend on them), the batch worker can.
     */
    kind: z.literal('video.render'),
    workspace_id: z.string(),
    video_id: z.string(),
  }),
  z.object({
    /**
     * Start the oldest follow-up queued on a video agent session whose run `run_id` ended: the run's
     * steps cannot start workflows, the batch worker can.
     */
    kind: z.literal('video_agent.next'),
    workspace_id: z.string(),
    session_id: z.string(),
    run_id: z.string(),
  }),
  z.object({
    kind: z.literal('lipsync.create'),
    workspace_id: z.string(),
    batch_id: z.string(),
    /** The payload of the batch request, and its item. */
    item_index: z.number().int().min(0),
  }),
]);
export type BatchItemMessage = z.infer<typeof batchItemMessage>;

const SQS_BATCH_LIMIT = 10;

export async function enqueueBatchItems(messages: readonly BatchItemMessage[]): Promise<void> {
  for (let start = 0; start < messages.length; start += SQS_BATCH_LIMIT) {
    const chunk = messages.slice(start, start + SQS_BATCH_LIMIT);
    const result = await sqsClient().send(
      new SendMessageBatchCommand({
        QueueUrl: config().batchQueueUrl,
        Entries: chunk.map((message, index) => ({ Id: String(index), MessageBody: JSON.stringify(message) })),
      }),
    );
    if (result.Failed && result.Failed.length > 0) {
      throw new Error(
        `SQS refused ${result.Failed.length} batch item messages: ${result.Failed[0]?.Message ?? ''}`,
      );
    }
  }
}
