/**
 * A worker of the streaming service (`REALTIME_WORKER=service`; the stack's Fargate service runs one
 * per task, realtime-worker.ts): it long-polls the realtime queue while it has room for another stream
 * (`realtimeStreamsPerWorker`), claims each stream it receives (a conditional write of itself as the
 * record's owner, so a message delivered twice runs one stream), and runs it with the same loop as the
 * local stack (`runStream`), its channel being the stream's record (stream-records.ts).
 */
import { DeleteMessageCommand, type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import { sqsClient } from '../core/aws-clients.js';
import { config } from '../core/config.js';
import { newId } from '../core/ids.js';
import { logger } from '../core/observability.js';
import { runStream } from './realtime-streams.js';
import { STREAM_TYPES, type StreamSpec } from './stream-model.js';
import { claimStream, tableChannel } from './stream-records.js';

/** What a handoff must name for the worker to claim it; the rest is the create's checked spec. */
const handoff = z.looseObject({
  streamId: z.string().min(1),
  workspaceId: z.string().min(1),
  type: z.enum(STREAM_TYPES),
});

function parseJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? 'null');
  } catch {
    return undefined;
  }
}

export interface RealtimeService {
  /** The worker's name, written as `owner` on the streams it claims. */
  readonly owner: string;
  /** Streams running now. */
  running(): number;
  /** Stops receiving, ends the running streams (failed, saying why) and waits for them. */
  stop(): Promise<void>;
}

export interface RealtimeServiceOptions {
  /** The worker's name. @default `realtime-worker-<new id>` */
  owner?: string;
  /** Told whenever the worker's streams start or stop running (its scale-in protection). */
  onRunningChange?: (running: number) => void;
}

export function startRealtimeService(options: RealtimeServiceOptions = {}): RealtimeService {
  const owner = options.owner ?? `realtime-worker-${newId()}`;
  const settings = config();
  const running = new Set<Promise<void>>();
  const polling = new AbortController();
  let stopping = false;

  const take = async (message: Message) => {
    const parsed = handoff.safeParse(parseJson(message.Body));
    // A stream claimed elsewhere (a second delivery) or ended before any worker took it is done with.
    const claimed = parsed.success && (await claimStream(parsed.data as unknown as StreamSpec, owner));
    await sqsClient().send(
      new DeleteMessageCommand({ QueueUrl: settings.realtimeQueueUrl, ReceiptHandle: message.ReceiptHandle }),
    );
    if (!parsed.success) logger.error('An unreadable realtime handoff was dropped', { body: message.Body });
    if (!claimed) return;
    const spec = parsed.data as unknown as StreamSpec;
    const run = runStream(
      spec,
      tableChannel(spec, owner, () => stopping),
    ).finally(() => {
      running.delete(run);
      options.onRunningChange?.(running.size);
    });
    running.add(run);
    options.onRunningChange?.(running.size);
  };

  const loop = (async () => {
    while (!stopping) {
      const room = settings.realtimeStreamsPerWorker - running.size;
      if (room <= 0) {
        await Promise.race(running);
        continue;
      }
      try {
        const { Messages = [] } = await sqsClient().send(
          new ReceiveMessageCommand({
            QueueUrl: settings.realtimeQueueUrl,
            MaxNumberOfMessages: Math.min(10, room),
            WaitTimeSeconds: settings.realtimeQueueWaitSeconds,
          }),
          { abortSignal: polling.signal },
        );
        // One at a time: a claim that fails leaves the message for another worker (or a retry).
        for (const message of Messages) await take(message);
      } catch (error) {
        if (stopping) break;
        logger.error('The realtime worker could not receive or claim streams', { error });
        await new Promise((resolve) => setTimeout(resolve, settings.realtimePollMs));
      }
    }
  })();

  return {
    owner,
    running: () => running.size,
    stop: async () => {
      stopping = true;
      polling.abort();
      await loop;
      await Promise.allSettled([...running]);
    },
  };
}
