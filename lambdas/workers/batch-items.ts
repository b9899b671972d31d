/**
 * The batch worker: consumes the batch queue (one message per batch item), one item at a time.
 */
import { completeBatchItem } from '../assets/asset-batches.js';
import { batchItemMessage } from '../batches/batch-queue.js';
import { admitBatchLipsync } from '../lipsyncs/lipsync-batches.js';
import { admitBatchTranslation } from '../translations/translation-batches.js';
import { startQueuedFollowUp } from '../video-agents/video-agent-requests.js';
import { startAdmittedVideo } from '../videos/create-video.js';
import { admitBatchVideo } from '../videos/video-batches.js';
import { queueConsumer } from './queue-consumer.js';

export const handler = queueConsumer({
  queue: 'batch item',
  message: batchItemMessage,
  inParallel: false,
  async process(message) {
    switch (message.kind) {
      case 'asset.complete':
        return completeBatchItem(message.workspace_id, message.asset_id);
      case 'video.create':
        return admitBatchVideo(message);
      case 'video.render':
        return startAdmittedVideo(message.workspace_id, message.video_id);
      case 'translation.create':
        return admitBatchTranslation(message);
      case 'video_agent.next':
        return startQueuedFollowUp(message.workspace_id, message.session_id, message.run_id);
      case 'lipsync.create':
        return admitBatchLipsync(message);
    }
  },
});
