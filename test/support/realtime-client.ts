/**
 * A client of `/v3/avatar-realtime` for the integration tests, as a player and an SSE reader use a
 * stream: the create, the playlist as it grows, a local copy of the stream read by ffmpeg, the words
 * as Server-Sent Events. Shared by the in-process tests and the streaming service's.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { STOCK_LOOKS } from '../../lambdas/catalog/stock-avatars.js';
import { ffmpegPath, runProcess } from '../../lambdas/engines/composition/ffmpeg-binaries.js';
import { type MediaInfo, probeMedia } from '../../lambdas/engines/composition/probe.js';
import type { TestStack } from './test-stack.js';

export const look = STOCK_LOOKS[0];

export interface Stream {
  stream_id: string;
  status: string;
  hls_url: string;
  end_reason: string | null;
  error_message: string | null;
  duration: number;
}
export interface Word {
  word: string;
  start: number;
  end: number;
  utterance: number;
}

/**
 * The helpers over the stack and the scratch directory `current` gives when they are called (both are
 * made in the test file's `beforeAll`).
 */
export function realtimeClient(current: () => { api: TestStack; scratch: string }) {
  async function createStream(body: Record<string, unknown>, key?: string): Promise<Stream> {
    const created = await current().api.call<{ data: Stream }>('POST', '/v3/avatar-realtime', {
      body: { avatar_id: look?.id, ...body },
      ...(key ? { key } : {}),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    return created.body.data;
  }

  async function getStream(streamId: string, key?: string) {
    return current().api.call<{ data: Stream }>('GET', `/v3/avatar-realtime/${streamId}`, key ? { key } : {});
  }

  async function waitUntil<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function waitForEnd(streamId: string, timeoutMs = 30_000): Promise<Stream> {
    return waitUntil(async () => {
      const { body } = await getStream(streamId);
      return body.data.status === 'ended' || body.data.status === 'failed' ? body.data : undefined;
    }, timeoutMs);
  }

  async function playlist(
    stream: Stream,
  ): Promise<{ text: string; segments: string[]; durations: number[] }> {
    const response = await fetch(stream.hls_url);
    if (response.status !== 200) return { text: '', segments: [], durations: [] };
    const text = await response.text();
    const lines = text.split('\n');
    return {
      text,
      segments: lines.filter((line) => line.startsWith('http')),
      durations: lines
        .filter((line) => line.startsWith('#EXTINF:'))
        .map((line) => Number.parseFloat(line.slice(8))),
    };
  }

  /**
   * A copy of the stream as a player fetches it: the playlist and every segment it names, the playlist
   * rewritten to the local files.
   */
  async function mirror(stream: Stream): Promise<string> {
    const list = await playlist(stream);
    const dir = join(current().scratch, `mirror-${stream.stream_id}-${Date.now()}`);
    await mkdir(dir);
    let local = list.text;
    await Promise.all(
      list.segments.map(async (url, index) => {
        const response = await fetch(url);
        expect(response.status).toBe(200);
        const name = `segment-${index}.ts`;
        await writeFile(join(dir, name), new Uint8Array(await response.arrayBuffer()));
        local = local.replace(url, name);
      }),
    );
    const file = join(dir, 'playlist.m3u8');
    // A snapshot of a live stream is read as it stands (ffmpeg would otherwise wait for more segments).
    await writeFile(file, local.includes('#EXT-X-ENDLIST') ? local : `${local}#EXT-X-ENDLIST\n`);
    return file;
  }

  /** Reads the word events of a stream as they come, until its `end` event. */
  /** `lastEventId`: as a reconnecting EventSource sends it. */
  function readWords(streamId: string, key = current().api.apiKey, lastEventId?: string) {
    const words: { word: Word; receivedAt: number; id: string | undefined }[] = [];
    const done = (async () => {
      const response = await fetch(`${current().api.baseUrl}/v3/avatar-realtime/${streamId}/words`, {
        headers: { 'X-Api-Key': key, ...(lastEventId === undefined ? {} : { 'Last-Event-ID': lastEventId }) },
      });
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const reader = response.body?.getReader();
      if (!reader) throw new Error('no body');
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { value, done: finished } = await reader.read();
        if (finished) throw new Error('the event stream ended without an end event');
        buffer += decoder.decode(value, { stream: true });
        let boundary = buffer.indexOf('\n\n');
        while (boundary >= 0) {
          const event = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const type = /^event: (.*)$/m.exec(event)?.[1];
          const data = JSON.parse(/^data: (.*)$/m.exec(event)?.[1] ?? 'null');
          if (type === 'word') {
            words.push({ word: data as Word, receivedAt: Date.now(), id: /^id: (.*)$/m.exec(event)?.[1] });
          }
          if (type === 'end') {
            await reader.cancel();
            return data as { end_reason: string };
          }
          boundary = buffer.indexOf('\n\n');
        }
      }
    })();
    return { words, done };
  }

  /**
   * ffmpeg reads the stream through its playlist, as a player does, and copies it into one MP4 that
   * ffprobe measures (this ffprobe build crashes on any MPEG-TS input, so it reads the copy).
   */
  async function probeStream(playlistFile: string): Promise<MediaInfo> {
    const whole = playlistFile.replace(/\.m3u8$/, '.mp4');
    await runProcess(
      ffmpegPath(),
      ['-nostdin', '-v', 'error', '-y', '-i', playlistFile, '-c', 'copy', whole],
      {
        timeoutMs: 60_000,
      },
    );
    return probeMedia(whole);
  }

  /** The stream's audio as 16 kHz mono samples on the stream's timeline, decoded by ffmpeg from the playlist. */
  async function streamAudio(playlistFile: string): Promise<Int16Array> {
    const out = join(current().scratch, `audio-${Date.now()}.pcm`);
    await runProcess(
      ffmpegPath(),
      [
        ...['-nostdin', '-v', 'error', '-y', '-i', playlistFile, '-vn'],
        // Samples placed by their timestamps, as a player plays them (each segment's AAC priming and
        // padding would otherwise shift everything after it).
        ...['-af', 'aresample=async=1:first_pts=0', '-ac', '1', '-ar', '16000', '-f', 's16le', out],
      ],
      { timeoutMs: 60_000 },
    );
    const bytes = await readFile(out);
    return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2);
  }

  /** RMS of each 10 ms window. */
  function loudness(samples: Int16Array): number[] {
    const windows: number[] = [];
    for (let start = 0; start + 160 <= samples.length; start += 160) {
      let sum = 0;
      for (let index = start; index < start + 160; index++) sum += (samples[index] as number) ** 2;
      windows.push(Math.sqrt(sum / 160));
    }
    return windows;
  }

  return {
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
  };
}
