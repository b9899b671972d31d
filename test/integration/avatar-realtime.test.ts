/**
 * Realtime avatar streams over HTTP with real clients: a stock look speaks streamed text as a live HLS
 * stream (eSpeak NG and ffmpeg, 720p). ffprobe reads the playlist while it grows, an SSE client (plain
 * fetch) reads the words, and the stream's decoded audio gets loud where the words say speech starts.
 * The limits are set to milliseconds and small counts, so every way of ending a stream is seen quickly.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineVoiceOf, findStockVoice } from '../../lambdas/catalog/stock-voices.js';
import { createEspeakEngine } from '../../lambdas/engines/speech/espeak-engine.js';
import { look, realtimeClient, type Stream } from '../support/realtime-client.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

const IDLE_TIMEOUT_MS = 3000;
const SEGMENT_MS = 1000;

let api: TestStack;
let scratch: string;
const {
  createStream,
  getStream,
  waitUntil,
  waitForEnd,
  playlist,
  mirror,
  readWords,
  probeStream,
  streamAudio,
  loudness,
} = realtimeClient(() => ({ api, scratch }));

beforeAll(async () => {
  api = await startTestStack({
    engines: 'reference',
    environment: {
      REALTIME_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
      REALTIME_SEGMENT_MS: String(SEGMENT_MS),
      REALTIME_MAX_CONCURRENT_STREAMS: '3',
      REALTIME_MAX_HEIGHT: '720',
    },
  });
  scratch = await mkdtemp(join(tmpdir(), 'avatar-realtime-'));
}, 60_000);

afterAll(async () => {
  await api?.stop();
  await rm(scratch, { recursive: true, force: true });
});

describe('a text_stream stream', () => {
  it('speaks sentences as they arrive in a live HLS stream whose words match its audio', async () => {
    const stream = await createStream({ type: 'text_stream', voice_id: look?.defaultVoiceId });
    expect(stream.status).toMatch(/starting|live/);
    const words = readWords(stream.stream_id);
    // Awaited below; a failure before then must not be an unhandled rejection.
    words.done.catch(() => undefined);

    // Idle segments come before any text: the playlist is live, without an end.
    const idle = await waitUntil(async () => {
      const list = await playlist(stream);
      return list.segments.length > 0 ? list : undefined;
    }, 10_000);
    expect(idle.text).toContain('#EXT-X-PLAYLIST-TYPE:EVENT');
    expect(idle.text).toContain('#EXT-X-TARGETDURATION:1');
    expect(idle.text).not.toContain('#EXT-X-ENDLIST');
    const idleProbe = await probeStream(await mirror(stream));
    expect(idleProbe.streams).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'video', codec: 'h264', width: 1280, height: 720 }),
        expect.objectContaining({ type: 'audio', codec: 'aac' }),
      ]),
    );

    const firstTextAt = Date.now();
    let sent = await api.call('POST', `/v3/avatar-realtime/${stream.stream_id}/text`, {
      body: { delta: 'Hello there. ' },
    });
    expect(sent.status).toBe(200);
    await waitUntil(async () => (words.words.length > 0 ? true : undefined), 10_000).catch(async (error) => {
      console.log(JSON.stringify((await getStream(stream.stream_id)).body));
      throw error;
    });
    const firstSpeechMs = (words.words[0] as { receivedAt: number }).receivedAt - firstTextAt;
    console.log(`time from the first text to its first published segment: ${firstSpeechMs} ms`);
    // The first sentence is published while the rest of the text has not even been sent.
    const growing = await playlist(stream);
    expect(growing.segments.length).toBeGreaterThan(idle.segments.length);
    expect(growing.text).not.toContain('#EXT-X-ENDLIST');
    sent = await api.call('POST', `/v3/avatar-realtime/${stream.stream_id}/text`, {
      body: { delta: 'Maybe we can all go to the ' },
    });
    expect(sent.status).toBe(200);
    sent = await api.call('POST', `/v3/avatar-realtime/${stream.stream_id}/text`, {
      body: { delta: 'park today.', final: true },
    });
    expect(sent.status).toBe(200);

    const end = await words.done;
    expect(end.end_reason).toBe('completed');
    const ended = await waitForEnd(stream.stream_id);
    expect(ended).toMatchObject({ status: 'ended', end_reason: 'completed', error_message: null });
    const after = await api.call<{ error: { code: string } }>(
      'POST',
      `/v3/avatar-realtime/${stream.stream_id}/text`,
      {
        body: { delta: 'More. ' },
      },
    );
    expect(after.status).toBe(410);
    expect(after.body.error.code).toBe('stream_ended');

    const final = await playlist(ended);
    expect(final.text.trimEnd().endsWith('#EXT-X-ENDLIST')).toBe(true);
    expect(final.durations.every((duration) => duration === SEGMENT_MS / 1000)).toBe(true);
    expect(ended.duration).toBeCloseTo(final.segments.length, 3);

    // ffprobe reads the whole stream through its playlist: its length is the segments' sum.
    const copy = await mirror(ended);
    const whole = await probeStream(copy);
    expect(Math.abs(whole.durationSeconds - final.segments.length)).toBeLessThan(0.1);

    expect(words.words.map(({ word }) => word.word)).toEqual([
      'Hello',
      'there',
      'Maybe',
      'we',
      'can',
      'all',
      'go',
      'to',
      'the',
      'park',
      'today',
    ]);
    // Each utterance's first word starts where the stream's audio rises out of silence.
    const levels = loudness(await streamAudio(copy));
    const peak = Math.max(...levels);
    const spoken = words.words.map(({ word }) => word);
    const wordsOf = (utterance: number) => spoken.filter((word) => word.utterance === utterance);
    for (const utterance of [0, 1]) {
      const [first] = wordsOf(utterance);
      if (!first) throw new Error(`no words in utterance ${utterance}`);
      // From 100 ms before the word, or just after the previous utterance's last word.
      const previousEnd = wordsOf(utterance - 1).at(-1)?.end ?? 0;
      const from = Math.max(Math.round((first.start - 0.1) * 100), Math.round(previousEnd * 100) + 3);
      const onset = levels.findIndex((level, index) => index >= from && level > peak * 0.02);
      expect(
        Math.abs(onset / 100 - first.start),
        `${first.word} at ${first.start}s, onset ${onset / 100}s`,
      ).toBeLessThanOrEqual(0.1);
    }
    // Quiet wherever no word is said (idle segments, the ends of utterance blocks).
    const nearAWord = (second: number) =>
      spoken.some((word) => second >= word.start - 0.1 && second <= word.end + 0.1);
    const loudOutsideWords = levels
      .map((level, index) => ({ second: index / 100, level }))
      .filter(({ second, level }) => !nearAWord(second) && level > peak * 0.02);
    expect(loudOutsideWords).toEqual([]);

    expect(firstSpeechMs).toBeLessThanOrEqual(4000);
  }, 90_000);
});

describe('the limits and errors of streams', () => {
  it('ends an idle stream after the idle timeout, with end_reason idle_timeout and a closed playlist', async () => {
    const stream = await createStream({ type: 'text_stream' });
    const ended = await waitForEnd(stream.stream_id, IDLE_TIMEOUT_MS + 10_000);
    expect(ended).toMatchObject({ status: 'ended', end_reason: 'idle_timeout', error_message: null });
    const list = await playlist(ended);
    expect(list.segments.length).toBeGreaterThan(0);
    expect(list.text).toContain('#EXT-X-ENDLIST');
    const refused = await api.call<{ error: { code: string; message: string } }>(
      'POST',
      `/v3/avatar-realtime/${stream.stream_id}/text`,
      { body: { delta: 'Too late. ' } },
    );
    expect(refused.status).toBe(410);
    expect(refused.body.error).toMatchObject({ code: 'stream_ended' });
    expect(refused.body.error.message).toContain('idle_timeout');
  }, 30_000);

  it('holds three live streams per workspace and refuses a fourth with 429; DELETE ends one at once', async () => {
    const workspace = await api.newWorkspace();
    const streams = [];
    for (let index = 0; index < 3; index++) {
      streams.push(await createStream({ type: 'text_stream' }, workspace.apiKey));
    }
    const fourth = await api.call<{ error: { code: string; message: string } }>(
      'POST',
      '/v3/avatar-realtime',
      {
        key: workspace.apiKey,
        body: { type: 'text_stream', avatar_id: look?.id },
      },
    );
    expect(fourth.status).toBe(429);
    expect(fourth.body.error.code).toBe('quota_exceeded');
    expect(fourth.body.error.message).toContain('3 live realtime streams');

    const [first, ...others] = streams as [Stream, ...Stream[]];
    const words = readWords(first.stream_id, workspace.apiKey);
    words.done.catch(() => undefined);
    const deleted = await api.call<{ data: Stream }>('DELETE', `/v3/avatar-realtime/${first.stream_id}`, {
      key: workspace.apiKey,
    });
    expect(deleted.status).toBe(200);
    expect((await words.done).end_reason).toBe('deleted');
    const ended = await waitUntil(async () => {
      const { body } = await getStream(first.stream_id, workspace.apiKey);
      return body.data.status === 'ended' ? body.data : undefined;
    }, 10_000);
    expect(ended.end_reason).toBe('deleted');
    expect((await playlist(ended)).text).toContain('#EXT-X-ENDLIST');
    // A slot is free again.
    const again = await createStream({ type: 'text_stream' }, workspace.apiKey);
    for (const stream of [...others, again]) {
      await api.call('DELETE', `/v3/avatar-realtime/${stream.stream_id}`, { key: workspace.apiKey });
    }
  }, 30_000);

  it('replays a create with the same Idempotency-Key: one stream, holding one of the three', async () => {
    const workspace = await api.newWorkspace();
    const request = {
      key: workspace.apiKey,
      headers: { 'Idempotency-Key': 'realtime-create-1' },
      body: { type: 'text_stream', avatar_id: look?.id },
    };
    const first = await api.call<{ data: Stream }>('POST', '/v3/avatar-realtime', request);
    const again = await api.call<{ data: Stream }>('POST', '/v3/avatar-realtime', request);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body.data.stream_id).toBe(first.body.data.stream_id);
    // The replay started no second stream: two more fit under the limit of three.
    const others = [
      await createStream({ type: 'text_stream' }, workspace.apiKey),
      await createStream({ type: 'text_stream' }, workspace.apiKey),
    ];
    for (const stream of [first.body.data, ...others]) {
      await api.call('DELETE', `/v3/avatar-realtime/${stream.stream_id}`, { key: workspace.apiKey });
    }
  }, 30_000);

  it("answers 404 for another workspace's stream on every route", async () => {
    const stream = await createStream({ type: 'text_stream' });
    const other = await api.newWorkspace();
    const id = stream.stream_id;
    for (const [method, path, body] of [
      ['GET', `/v3/avatar-realtime/${id}`, undefined],
      ['DELETE', `/v3/avatar-realtime/${id}`, undefined],
      ['POST', `/v3/avatar-realtime/${id}/text`, { delta: 'Hi. ' }],
      ['GET', `/v3/avatar-realtime/${id}/words`, undefined],
    ] as const) {
      const result = await api.call<{ error: { code: string; param: string } }>(method, path, {
        key: other.apiKey,
        ...(body ? { body } : {}),
      });
      expect(result.status, `${method} ${path}`).toBe(404);
      expect(result.body.error).toMatchObject({ code: 'not_found', param: 'stream_id' });
    }
    // The owner's stream was left alone: not ended (still preparing its presenter, or live already).
    const owners = (await getStream(id)).body.data;
    expect(['starting', 'live']).toContain(owners.status);
    expect(owners.end_reason).toBeNull();
    await api.call('DELETE', `/v3/avatar-realtime/${id}`);
  }, 30_000);

  it('refuses bad creates naming the field', async () => {
    for (const [body, status, code, param] of [
      [{ type: 'video', avatar_id: look?.id }, 400, 'invalid_parameter', 'type'],
      [{ type: 'tts', avatar_id: look?.id }, 400, 'invalid_parameter', 'text'],
      [{ type: 'text_stream', avatar_id: look?.id, text: 'Hi.' }, 400, 'invalid_parameter', 'text'],
      [{ type: 'audio', avatar_id: look?.id }, 400, 'invalid_parameter', 'audio'],
      [{ type: 'tts', avatar_id: 'no-such-look', text: 'Hi.' }, 404, 'avatar_not_found', 'avatar_id'],
      [
        { type: 'tts', avatar_id: look?.id, voice_id: 'no-such-voice', text: 'Hi.' },
        404,
        'voice_not_found',
        'voice_id',
      ],
    ] as const) {
      const result = await api.call<{ error: { code: string; param: string } }>(
        'POST',
        '/v3/avatar-realtime',
        {
          body,
        },
      );
      expect(result.status, JSON.stringify(body)).toBe(status);
      expect(result.body.error).toMatchObject({ code, param });
    }
  });

  it('speaks a tts stream to its end and refuses text to it', async () => {
    const stream = await createStream({ type: 'tts', text: 'Good morning.' });
    const refused = await api.call('POST', `/v3/avatar-realtime/${stream.stream_id}/text`, {
      body: { delta: 'More. ' },
    });
    expect(refused.status).toBe(400);
    const ended = await waitForEnd(stream.stream_id);
    expect(ended.end_reason).toBe('completed');
    const words = readWords(stream.stream_id);
    expect((await words.done).end_reason).toBe('completed');
    expect(words.words.map(({ word }) => word.word)).toEqual(['Good', 'morning']);
    // A client reconnecting with Last-Event-ID gets only the words after it.
    const rest = readWords(stream.stream_id, api.apiKey, '0');
    expect((await rest.done).end_reason).toBe('completed');
    expect(rest.words.map(({ word }) => word.word)).toEqual(['morning']);
  }, 30_000);
});

describe('an audio stream', () => {
  it('shows the look speaking a recording, as loud as the recording where it speaks, then ends', async () => {
    const voice = findStockVoice(look?.defaultVoiceId ?? '');
    const engineVoice = voice ? engineVoiceOf(voice, 'espeak') : undefined;
    if (!engineVoice) throw new Error('no espeak voice for the look');
    const engine = createEspeakEngine();
    const recording = await engine.synthesize({
      text: 'This recording is shown by the avatar.',
      voiceId: engineVoice,
    });
    await engine.close();
    const stream = await createStream({
      type: 'audio',
      audio: {
        type: 'base64',
        media_type: 'audio/wav',
        data: Buffer.from(recording.audio).toString('base64'),
      },
    });
    expect(stream.stream_id).toBeTruthy();
    const ended = await waitForEnd(stream.stream_id);
    expect(ended).toMatchObject({ status: 'ended', end_reason: 'completed' });
    const copy = await mirror(ended);
    const probe = await probeStream(copy);
    const segments = (await playlist(ended)).segments.length;
    expect(segments).toBeGreaterThanOrEqual(Math.ceil(recording.durationMs / SEGMENT_MS));
    expect(Math.abs(probe.durationSeconds - segments)).toBeLessThan(0.1);
    const levels = loudness(await streamAudio(copy));
    const loud = levels.filter((level) => level > Math.max(...levels) * 0.02).length;
    // About as much speech as the recording has (10 ms windows).
    expect(loud / 100).toBeGreaterThan((recording.durationMs / 1000) * 0.5);
    expect(loud / 100).toBeLessThan(recording.durationMs / 1000 + 0.2);
  }, 60_000);
});
