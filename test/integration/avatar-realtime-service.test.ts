/**
 * Realtime avatar streams through the streaming service (`REALTIME_WORKER=service`), as deployed: the
 * API's handlers keep each stream's record in the table and hand the stream over on the realtime
 * queue; a streaming service worker (the loop the stack's Fargate task runs, started by the local
 * stack with the task role's grants) claims it from the queue, runs it, and reads text and DELETE from
 * the record; the words route reads the words items the worker publishes. Nothing but the local
 * DynamoDB and SQS lies between the two sides. The stream is read as a player reads it (ffmpeg through
 * the playlist) and its words with an SSE client.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getItem, putItem } from '../../lambdas/core/repository.js';
import { keys, RESOURCE_TYPES } from '../../lambdas/core/table-schema.js';
import { look, realtimeClient, type Stream } from '../support/realtime-client.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

const SEGMENT_MS = 1000;
const STALE_AFTER_MS = 5000;

let api: TestStack;
let scratch: string;
const { createStream, getStream, waitUntil, waitForEnd, playlist, mirror, readWords, probeStream } =
  realtimeClient(() => ({ api, scratch }));

beforeAll(async () => {
  api = await startTestStack({
    engines: 'reference',
    environment: {
      REALTIME_WORKER: 'service',
      REALTIME_IDLE_TIMEOUT_MS: '3000',
      REALTIME_SEGMENT_MS: String(SEGMENT_MS),
      REALTIME_MAX_CONCURRENT_STREAMS: '3',
      REALTIME_POLL_MS: '50',
      REALTIME_HEARTBEAT_MS: '250',
      REALTIME_STALE_AFTER_MS: String(STALE_AFTER_MS),
      REALTIME_CLAIM_TIMEOUT_MS: '60000',
      REALTIME_QUEUE_WAIT_SECONDS: '1',
    },
  });
  scratch = await mkdtemp(join(tmpdir(), 'avatar-realtime-service-'));
}, 60_000);

afterAll(async () => {
  await api?.stop();
  await rm(scratch, { recursive: true, force: true });
});

interface StreamRecord {
  status: string;
  end_reason: string | null;
  owner: string;
  heartbeat_at: number;
  text: string[];
}

const recordOf = (workspaceId: string, streamId: string) =>
  getItem<StreamRecord & { pk: string; sk: string }>(
    keys.resource(workspaceId, RESOURCE_TYPES.realtimeStream, streamId),
    true,
  );
const liveSlots = async (workspaceId: string) => {
  const slots = await getItem<{ pk: string; sk: string; live?: Set<string> }>(
    { pk: keys.workspacePartition(workspaceId), sk: RESOURCE_TYPES.realtimeStreamSlots },
    true,
  );
  return [...(slots?.live ?? [])];
};

describe('a stream run by the streaming service', () => {
  it('is claimed from the queue, speaks the text sent to its record, and ends its record', async () => {
    const stream = await createStream({ type: 'text_stream', voice_id: look?.defaultVoiceId });
    const words = readWords(stream.stream_id);
    words.done.catch(() => undefined);
    // A worker took it: the record names its owner, and it turns live.
    const claimed = await waitUntil(async () => {
      const record = await recordOf(api.workspaceId, stream.stream_id);
      return record?.status === 'live' ? record : undefined;
    }, 15_000);
    expect(claimed.owner).toMatch(/^realtime-worker-/);
    expect(await liveSlots(api.workspaceId)).toContain(stream.stream_id);
    const idle = await waitUntil(async () => {
      const list = await playlist(stream);
      return list.segments.length > 0 ? list : undefined;
    }, 10_000);
    expect(idle.text).not.toContain('#EXT-X-ENDLIST');

    const firstTextAt = Date.now();
    for (const [delta, final] of [
      ['Hello there. ', false],
      ['See you ', false],
      ['soon.', true],
    ] as const) {
      const sent = await api.call('POST', `/v3/avatar-realtime/${stream.stream_id}/text`, {
        body: { delta, final },
      });
      expect(sent.status).toBe(200);
    }
    expect((await recordOf(api.workspaceId, stream.stream_id))?.text).toEqual([
      'Hello there. ',
      'See you ',
      'soon.',
    ]);
    const end = await words.done;
    expect(end.end_reason).toBe('completed');
    const firstSpeechMs = (words.words[0] as { receivedAt: number }).receivedAt - firstTextAt;
    console.log(`service mode: time from the first text to its first published words: ${firstSpeechMs} ms`);
    expect(words.words.map(({ word }) => word.word)).toEqual(['Hello', 'there', 'See', 'you', 'soon']);
    expect(words.words.map(({ word }) => word.utterance)).toEqual([0, 0, 1, 1, 1]);
    expect(words.words.map(({ id }) => id)).toEqual(['0', '1', '2', '3', '4']);
    // A client that reconnects after the third word gets the rest, once.
    const resumed = readWords(stream.stream_id, api.apiKey, '2');
    expect((await resumed.done).end_reason).toBe('completed');
    expect(resumed.words.map(({ word }) => word.word)).toEqual(['you', 'soon']);

    const ended = await waitForEnd(stream.stream_id);
    expect(ended).toMatchObject({ status: 'ended', end_reason: 'completed', error_message: null });
    expect(await recordOf(api.workspaceId, stream.stream_id)).toMatchObject({
      status: 'ended',
      end_reason: 'completed',
    });
    expect(await liveSlots(api.workspaceId)).not.toContain(stream.stream_id);
    const late = await api.call<{ error: { code: string } }>(
      'POST',
      `/v3/avatar-realtime/${stream.stream_id}/text`,
      { body: { delta: 'More. ' } },
    );
    expect(late.status).toBe(410);
    expect(late.body.error.code).toBe('stream_ended');

    // ffmpeg reads the whole stream through its playlist: 720p H.264 and AAC, as long as its segments.
    const final = await playlist(ended);
    expect(final.text.trimEnd().endsWith('#EXT-X-ENDLIST')).toBe(true);
    const whole = await probeStream(await mirror(ended));
    expect(whole.streams).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'video', codec: 'h264', width: 1280, height: 720 }),
        expect.objectContaining({ type: 'audio', codec: 'aac' }),
      ]),
    );
    expect(Math.abs(whole.durationSeconds - final.segments.length)).toBeLessThan(0.1);
    expect(ended.duration).toBeCloseTo(final.segments.length, 3);
    // The last word is spoken within the stream.
    expect((words.words.at(-1)?.word.end ?? Number.POSITIVE_INFINITY) <= ended.duration).toBe(true);
  }, 90_000);

  it('holds three streams per workspace in the table, refuses a fourth, and DELETE reaches the worker', async () => {
    const workspace = await api.newWorkspace();
    const streams: Stream[] = [];
    for (let index = 0; index < 3; index++) {
      streams.push(await createStream({ type: 'text_stream' }, workspace.apiKey));
    }
    const fourth = await api.call<{ error: { code: string; message: string } }>(
      'POST',
      '/v3/avatar-realtime',
      { key: workspace.apiKey, body: { type: 'text_stream', avatar_id: look?.id } },
    );
    expect(fourth.status).toBe(429);
    expect(fourth.body.error).toMatchObject({ code: 'quota_exceeded' });
    expect(fourth.body.error.message).toContain('3 live realtime streams');
    expect((await liveSlots(workspace.workspaceId)).sort()).toEqual(
      streams.map((stream) => stream.stream_id).sort(),
    );

    const [first, ...others] = streams as [Stream, ...Stream[]];
    const words = readWords(first.stream_id, workspace.apiKey);
    words.done.catch(() => undefined);
    const deleted = await api.call('DELETE', `/v3/avatar-realtime/${first.stream_id}`, {
      key: workspace.apiKey,
    });
    expect(deleted.status).toBe(200);
    expect((await words.done).end_reason).toBe('deleted');
    const ended = await waitForEnd(first.stream_id, 10_000).catch(
      async () => (await getStream(first.stream_id, workspace.apiKey)).body.data,
    );
    expect(ended).toMatchObject({ status: 'ended', end_reason: 'deleted' });
    expect((await playlist(ended)).text).toContain('#EXT-X-ENDLIST');
    expect(await liveSlots(workspace.workspaceId)).not.toContain(first.stream_id);
    // The freed slot takes a new stream.
    const again = await createStream({ type: 'text_stream' }, workspace.apiKey);
    for (const stream of [...others, again]) {
      await api.call('DELETE', `/v3/avatar-realtime/${stream.stream_id}`, { key: workspace.apiKey });
    }
    // Each DELETE reaches the worker through the record: it ends the stream and frees its slot.
    for (const stream of [...others, again]) {
      const record = await waitUntil(async () => {
        const current = await recordOf(workspace.workspaceId, stream.stream_id);
        return current?.status === 'ended' ? current : undefined;
      }, 30_000);
      expect(record.end_reason).toBe('deleted');
    }
    expect(await liveSlots(workspace.workspaceId)).toEqual([]);
  }, 90_000);

  it('ends a stream whose worker stopped answering, and gives its slot back', async () => {
    const workspace = await api.newWorkspace();
    // A stream whose task died: live, owned, its heartbeat older than the staleness limit.
    const streamId = 'stream-of-a-dead-task';
    await putItem({
      ...keys.resource(workspace.workspaceId, RESOURCE_TYPES.realtimeStream, streamId),
      stream_id: streamId,
      workspace_id: workspace.workspaceId,
      type: 'text_stream',
      avatar_id: look?.id,
      voice_id: look?.defaultVoiceId,
      status: 'live',
      end_reason: null,
      error_message: null,
      created_at: Math.floor(Date.now() / 1000) - 60,
      ended_at: null,
      duration_ms: 12_000,
      final_received: false,
      text: [],
      end_requested: null,
      last_activity_at: Date.now() - 20_000,
      owner: 'realtime-worker-gone',
      heartbeat_at: Date.now() - STALE_AFTER_MS - 1000,
      word_blocks: 0,
      expires_at: Math.floor(Date.now() / 1000) + 3600,
    });
    await putItem({
      pk: keys.workspacePartition(workspace.workspaceId),
      sk: RESOURCE_TYPES.realtimeStreamSlots,
      live: new Set([streamId]),
    });
    const read = await getStream(streamId, workspace.apiKey);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ status: 'failed', end_reason: 'error', duration: 12 });
    expect(read.body.data.error_message).toContain('stopped answering');
    expect(await liveSlots(workspace.workspaceId)).toEqual([]);
    const words = readWords(streamId, workspace.apiKey);
    expect(await words.done).toMatchObject({ end_reason: 'error' });
  }, 30_000);
});
