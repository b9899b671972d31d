/**
 * Realtime streams of the streaming service (`REALTIME_WORKER=service`): the API's Lambda functions
 * and the service's workers share nothing but the table and the realtime queue.
 *
 * - A stream's record (`WS#<workspace>` / `REALTIME_STREAM#<stream_id>`) holds what the routes answer
 *   (status, end reason, length), what the stream was told (the text deltas in order, `final`, DELETE's
 *   `end_requested`), and who runs it (`owner`, the worker that claimed it, and its `heartbeat_at`).
 * - The words of each published block are an item of their own
 *   (`REALTIME_STREAM_WORDS#<stream_id>#<block>`), which the words route reads in order: a record
 *   could not hold an hour of words (DynamoDB's 400 KB item limit).
 * - The workspace's live streams are a string set on one item (`REALTIME_STREAM_SLOTS`), grown by a
 *   conditional write no larger than the limit: the limit holds across every API instance.
 *
 * A worker that dies leaves its streams `live` with a heartbeat that stops; whoever reads such a stream
 * (its routes, a create that finds the workspace's slots full) ends it as failed and frees its slot, so
 * no stream stays live, or holds a slot, longer than `realtimeStaleAfterMs` after its worker stopped
 * (`realtimeClaimTimeoutMs` after its create when no worker took it).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documents, sqsClient } from '../core/aws-clients.js';
import { config } from '../core/config.js';
import { JobFailure } from '../core/errors.js';
import { nowSeconds } from '../core/ids.js';
import { logger } from '../core/observability.js';
import {
  getItem,
  type ItemKey,
  putItem,
  putNewItem,
  queryItems,
  updateExistingItem,
} from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import {
  END_REASONS,
  type EndReason,
  endEvent,
  isLive,
  newStreamState,
  requireTextAccepted,
  STREAM_STATUS,
  type StreamChannel,
  type StreamSpec,
  type StreamState,
  type StreamStatus,
  type StreamType,
  type StreamWord,
  streamNotFound,
  tooManyStreams,
  wordEvent,
} from './stream-model.js';

/** A stream's record in the table. */
interface StreamRecord {
  pk: string;
  sk: string;
  stream_id: string;
  workspace_id: string;
  type: StreamType;
  avatar_id: string;
  voice_id: string | null;
  status: StreamStatus;
  end_reason: EndReason | null;
  error_message: string | null;
  created_at: number;
  ended_at: number | null;
  duration_ms: number;
  final_received: boolean;
  /** Every text delta received, in order; the worker remembers how many it took. */
  text: string[];
  end_requested: EndReason | null;
  /** Wall time (ms) of the last text, for the idle timeout. */
  last_activity_at: number;
  /** The worker running the stream; empty until one claims it. */
  owner: string;
  /** Wall time (ms) the owner last said it runs the stream (the create's time until it is claimed). */
  heartbeat_at: number;
  /** Blocks with words published so far: the next words item's number. */
  word_blocks: number;
  expires_at: number;
}

interface WordsItem {
  words: StreamWord[];
}

const recordKey = (workspaceId: string, streamId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.realtimeStream, streamId);
const slotsKey = (workspaceId: string) => ({
  pk: keys.workspacePartition(workspaceId),
  sk: RESOURCE_TYPES.realtimeStreamSlots,
});
/** Words items sort by block: six digits hold an hour of one-second blocks. */
const wordsSortKey = (streamId: string, block: number | '~') =>
  `${RESOURCE_TYPES.realtimeStreamWords}#${streamId}#${block === '~' ? block : String(block).padStart(6, '0')}`;

const keyOf = ({ pk, sk }: ItemKey): ItemKey => ({ pk, sk });

const stateOf = (record: StreamRecord): StreamState => ({
  streamId: record.stream_id,
  workspaceId: record.workspace_id,
  type: record.type,
  avatarId: record.avatar_id,
  voiceId: record.voice_id,
  status: record.status,
  endReason: record.end_reason,
  errorMessage: record.error_message,
  createdAt: record.created_at,
  endedAt: record.ended_at,
  finalReceived: record.final_received,
  producedMs: record.duration_ms,
});

/** Records and words outlive the stream as long as its URLs may: then DynamoDB's TTL deletes them. */
const expiresAt = () =>
  nowSeconds() + Math.ceil(config().realtimeMaxDurationMs / 1000) + config().mediaUrlTtlSeconds;

async function readRecord(workspaceId: string, streamId: string): Promise<StreamRecord> {
  const record = await getItem<StreamRecord>(recordKey(workspaceId, streamId), true);
  if (!record) throw streamNotFound(streamId);
  return endIfStale(record);
}

/**
 * A live stream whose worker stopped answering (or that no worker took) ends as failed here, by
 * whoever reads it first; the write is conditioned on the record read, so a worker's heartbeat in
 * between wins.
 */
async function endIfStale(record: StreamRecord): Promise<StreamRecord> {
  const settings = config();
  // A stream no worker took yet waits for one (a new task starting when every worker is full).
  const limitMs = record.owner ? settings.realtimeStaleAfterMs : settings.realtimeClaimTimeoutMs;
  if (!isLive(record) || Date.now() - record.heartbeat_at <= limitMs) return record;
  const seconds = Math.round(limitMs / 1000);
  const ended = await updateExistingItem<StreamRecord>(
    keyOf(record),
    {
      status: STREAM_STATUS.failed,
      end_reason: END_REASONS.error,
      error_message: record.owner
        ? `The streaming worker running this stream stopped answering for ${seconds} s; start a new stream.`
        : `No streaming worker took this stream within ${seconds} s (is the streaming service running?); start a new stream.`,
      ended_at: nowSeconds(),
    },
    [],
    { status: record.status, heartbeat_at: record.heartbeat_at },
  );
  if (!ended) return (await getItem<StreamRecord>(keyOf(record), true)) ?? record;
  await releaseSlot(record.workspace_id, record.stream_id);
  return ended;
}

/** Adds the stream to the workspace's live set unless the set is full. */
async function addToSlots(workspaceId: string, streamId: string): Promise<boolean> {
  try {
    await documents().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: slotsKey(workspaceId),
        UpdateExpression: 'ADD #live :stream',
        ConditionExpression: 'attribute_not_exists(#live) OR size(#live) < :limit',
        ExpressionAttributeNames: { '#live': 'live' },
        ExpressionAttributeValues: {
          ':stream': new Set([streamId]),
          ':limit': config().realtimeMaxConcurrentStreams,
        },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

async function releaseSlot(workspaceId: string, streamId: string): Promise<void> {
  await documents().send(
    new UpdateCommand({
      TableName: config().tableName,
      Key: slotsKey(workspaceId),
      UpdateExpression: 'DELETE #live :stream',
      ExpressionAttributeNames: { '#live': 'live' },
      ExpressionAttributeValues: { ':stream': new Set([streamId]) },
    }),
  );
}

/**
 * Takes one of the workspace's stream slots. A full set is checked once: streams that ended (or whose
 * worker died) give their slot back, and the write is tried again.
 */
async function takeSlot(workspaceId: string, streamId: string): Promise<void> {
  if (await addToSlots(workspaceId, streamId)) return;
  const slots = await getItem<ItemKey & { live?: Set<string> }>(slotsKey(workspaceId), true);
  const holders = [...(slots?.live ?? [])];
  let live = 0;
  for (const holder of holders) {
    const record = await getItem<StreamRecord>(recordKey(workspaceId, holder), true);
    if (record && isLive(await endIfStale(record))) live++;
    else await releaseSlot(workspaceId, holder);
  }
  if (live < holders.length && (await addToSlots(workspaceId, streamId))) return;
  throw tooManyStreams(live);
}

/** The create of the `service` mode: the slot, the record, then the handoff to a worker. */
export async function startServiceStream(spec: StreamSpec, avatarId: string): Promise<StreamState> {
  const state = newStreamState(spec, avatarId);
  await takeSlot(spec.workspaceId, spec.streamId);
  const now = Date.now();
  const record: StreamRecord = {
    ...recordKey(spec.workspaceId, spec.streamId),
    stream_id: state.streamId,
    workspace_id: state.workspaceId,
    type: state.type,
    avatar_id: state.avatarId,
    voice_id: state.voiceId,
    status: state.status,
    end_reason: null,
    error_message: null,
    created_at: state.createdAt,
    ended_at: null,
    duration_ms: 0,
    final_received: state.finalReceived,
    text: [],
    end_requested: null,
    last_activity_at: now,
    owner: '',
    heartbeat_at: now,
    word_blocks: 0,
    expires_at: expiresAt(),
  };
  try {
    await putNewItem({ ...record });
    await sqsClient().send(
      new SendMessageCommand({ QueueUrl: config().realtimeQueueUrl, MessageBody: JSON.stringify(spec) }),
    );
  } catch (error) {
    // No worker will ever run it: it must not hold a slot or look live.
    await updateExistingItem(keyOf(record), {
      status: STREAM_STATUS.failed,
      end_reason: END_REASONS.error,
      error_message: 'The stream could not be handed to the streaming service.',
      ended_at: nowSeconds(),
    }).catch(() => undefined);
    await releaseSlot(spec.workspaceId, spec.streamId);
    throw error;
  }
  return state;
}

export async function getServiceStream(workspaceId: string, streamId: string): Promise<StreamState> {
  return stateOf(await readRecord(workspaceId, streamId));
}

/** Appends a delta to the record, in order; the condition refuses text after `final` or the end. */
export async function appendServiceText(
  workspaceId: string,
  streamId: string,
  delta: string,
  final: boolean,
): Promise<StreamState> {
  requireTextAccepted(stateOf(await readRecord(workspaceId, streamId)));
  try {
    const result = await documents().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: recordKey(workspaceId, streamId),
        UpdateExpression:
          'SET #text = list_append(if_not_exists(#text, :none), :delta), final_received = :final, last_activity_at = :now',
        ConditionExpression: '#status IN (:starting, :live) AND final_received = :notFinal',
        ExpressionAttributeNames: { '#text': 'text', '#status': 'status' },
        ExpressionAttributeValues: {
          ':none': [],
          ':delta': [delta],
          ':final': final,
          ':now': Date.now(),
          ':starting': STREAM_STATUS.starting,
          ':live': STREAM_STATUS.live,
          ':notFinal': false,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return stateOf(result.Attributes as StreamRecord);
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    // It ended, or got its `final`, since it was read: say which.
    const record = await readRecord(workspaceId, streamId);
    requireTextAccepted(stateOf(record));
    throw error;
  }
}

/** DELETE: asks the stream's worker to end it; the worker ends it at its next look at the record. */
export async function endServiceStream(workspaceId: string, streamId: string): Promise<StreamState> {
  const record = await readRecord(workspaceId, streamId);
  if (!isLive(record)) return stateOf(record);
  const asked = await updateExistingItem<StreamRecord>(
    keyOf(record),
    { end_requested: END_REASONS.deleted },
    [],
    {
      status: record.status,
    },
  );
  return stateOf(asked ?? (await readRecord(workspaceId, streamId)));
}

/** The words route of the `service` mode: the words items in order, polled until the record ends. */
export async function* serviceWordEvents(
  workspaceId: string,
  streamId: string,
  afterWord: number,
): AsyncGenerator<Uint8Array> {
  const partition = keys.workspacePartition(workspaceId);
  let nextBlock = 0;
  let index = 0;
  for (;;) {
    const record = await readRecord(workspaceId, streamId);
    const blocks = await queryItems<WordsItem>({
      partition,
      sortKey: { from: wordsSortKey(streamId, nextBlock), to: wordsSortKey(streamId, '~') },
      attributes: ['words'],
      consistent: true,
    });
    for (const block of blocks) {
      for (const word of block.words) {
        if (index > afterWord) yield wordEvent(word, index);
        index++;
      }
    }
    nextBlock += blocks.length;
    // Read before the words: every word of an ended stream was published before it ended.
    if (!isLive(record)) {
      yield endEvent(stateOf(record));
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, config().realtimePollMs));
  }
}

/** Makes `owner` the worker of a stream no worker has taken yet; false when another has, or it ended. */
export async function claimStream(spec: StreamSpec, owner: string): Promise<boolean> {
  const claimed = await updateExistingItem(
    recordKey(spec.workspaceId, spec.streamId),
    { owner, heartbeat_at: Date.now() },
    [],
    { owner: '', status: STREAM_STATUS.starting },
  );
  return claimed !== undefined;
}

/**
 * The channel of a stream a service worker runs: the record, read every `realtimePollMs`. From its
 * claim to its end the stream is marked alive every `realtimeHeartbeatMs` by a timer of its own, so a
 * long block (a long sentence, the presenter's preparation) never looks like a dead worker. Every write
 * is conditioned on `owner` and the status the worker last wrote: a stream ended as stale stays ended,
 * and its worker stops at its next look at the record. `stopping` is the worker's shutdown (a deploy,
 * a scale-in): its streams end as failed with a message that says so.
 */
export function tableChannel(spec: StreamSpec, owner: string, stopping: () => boolean): StreamChannel {
  const key = recordKey(spec.workspaceId, spec.streamId);
  let textTaken = 0;
  let wordBlocks = 0;
  let status: StreamStatus = STREAM_STATUS.starting;
  let lostAt: number | undefined;
  const lost = () =>
    new Error('the stream was ended while this worker ran it (its heartbeat was late, or it was deleted)');
  // The heartbeat names no status: it may run while `live` is written, and it cannot revive an ended
  // stream (it writes no status, and the next `receive` sees the end).
  const ownWrite = async (
    set: Record<string, unknown>,
    condition: Record<string, unknown> = { owner, status },
  ) => {
    const updated = await updateExistingItem<StreamRecord>(key, set, [], condition);
    if (!updated) {
      lostAt ??= Date.now();
      throw lost();
    }
    return updated;
  };
  const heartbeat = setInterval(() => {
    ownWrite({ heartbeat_at: Date.now() }, { owner }).catch((error: unknown) => {
      if (lostAt === undefined) logger.warn('A realtime heartbeat was not written', { error });
    });
  }, config().realtimeHeartbeatMs);
  heartbeat.unref();
  return {
    receive: async () => {
      if (stopping()) {
        throw new JobFailure(
          'engine_unavailable',
          'The streaming service stopped the worker running this stream (a deploy or a scale-in); start a new stream.',
        );
      }
      const record = await getItem<StreamRecord>(key, true);
      if (lostAt !== undefined || !record || record.owner !== owner || !isLive(record)) throw lost();
      const text = record.text.slice(textTaken);
      textTaken = record.text.length;
      return {
        text,
        final: record.final_received,
        endRequested: record.end_requested,
        lastActivityAt: record.last_activity_at,
      };
    },
    wait: (ms) =>
      new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(ms, config().realtimePollMs)))),
    live: async () => {
      await ownWrite({ status: STREAM_STATUS.live, heartbeat_at: Date.now() });
      status = STREAM_STATUS.live;
    },
    published: async (producedMs, words) => {
      if (words.length > 0) {
        await putItem({
          pk: key.pk,
          sk: wordsSortKey(spec.streamId, wordBlocks),
          words: [...words],
          expires_at: expiresAt(),
        });
        wordBlocks++;
      }
      await ownWrite({ duration_ms: producedMs, word_blocks: wordBlocks, heartbeat_at: Date.now() });
    },
    ended: async (end) => {
      clearInterval(heartbeat);
      try {
        await ownWrite({
          status: end.status,
          end_reason: end.endReason,
          error_message: end.errorMessage,
          duration_ms: end.producedMs,
          ended_at: nowSeconds(),
        });
      } finally {
        // Also when it was ended as stale meanwhile: removing a set member twice is harmless.
        await releaseSlot(spec.workspaceId, spec.streamId);
      }
    },
  };
}
