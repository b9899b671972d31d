/**
 * Realtime avatar streams (`/v3/avatar-realtime`): a look speaking text as it arrives, as a live HLS
 * stream in the media bucket.
 *
 * A stream is a worker loop (`runStream`) that owns the stream's timeline. It keeps the stream about
 * one segment ahead of the wall clock with idle segments (the presenter breathing and blinking,
 * silent) and, whenever an utterance is waiting, synthesizes it (the speech engine gives the audio,
 * the word timings and the mouth shapes) and renders it as the next segments (presenter-segments.ts).
 * Each block's segments are uploaded, then the playlist object is rewritten with them (hls-playlist.ts)
 * and the words of the block are published, with their times on the stream's timeline.
 *
 * The loop reads its inputs (text, `final`, DELETE) and tells what it published through a
 * {@link StreamChannel}, so the same loop runs in two places (`REALTIME_WORKER`):
 * - `in_process`: in the process that created the stream (the local stack). The streams of the
 *   process are held in memory here, and the channel is that memory.
 * - `service`: in a worker of the streaming service (realtime-service.ts, the stack's Fargate
 *   service). The API writes the stream's record in the table and hands the stream over on the
 *   realtime queue; the channel is that record, polled (stream-records.ts).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { resolveMediaInput } from '../assets/media-inputs.js';
import {
  type LookPresenterMedia,
  requireUsableLook,
  resolveLookPresenter,
} from '../avatars/look-presenters.js';
import { config } from '../core/config.js';
import { InvalidParameterError, JobFailure, ServiceError } from '../core/errors.js';
import { newId, nowSeconds } from '../core/ids.js';
import { onProcessReset } from '../core/process-state.js';
import { decodeMonoPcm16 } from '../engines/composition/audio-decode.js';
import { ffmpegPath, runProcess } from '../engines/composition/ffmpeg-binaries.js';
import { speechEngine } from '../engines/speech/index.js';
import { type VisemeCue, visemesFromAudio } from '../engines/speech/visemes.js';
import { downloadMediaObject, presignMediaDownload, putMediaObject } from '../media/media-store.js';
import { voiceError } from '../voices/speech.js';
import {
  combinedSettings,
  type ResolvedVoice,
  resolveVoice,
  VoiceResolutionError,
} from '../voices/voice-resolution.js';
import { livePlaylist, type PlaylistSegment } from './hls-playlist.js';
import {
  type PresenterBlock,
  renderPresenterBlock,
  type StreamFrame,
  type StreamPresenter,
} from './presenter-segments.js';
import {
  type CreateStreamRequest,
  END_REASONS,
  type EndReason,
  endEvent,
  isLive,
  newStreamState,
  realtimeMediaKeys,
  requireTextAccepted,
  STREAM_STATUS,
  type StreamChannel,
  type StreamEnd,
  type StreamPath,
  type StreamSpec,
  type StreamState,
  type StreamStatus,
  type StreamWord,
  streamNotFound,
  tooManyStreams,
  wordEvent,
} from './stream-model.js';
import {
  appendServiceText,
  endServiceStream,
  getServiceStream,
  serviceWordEvents,
  startServiceStream,
} from './stream-records.js';
import { takeSentences } from './utterances.js';

/** Text waiting to be spoken, or a recording (type `audio`) waiting to be shown. */
type Utterance = { kind: 'text'; text: string } | { kind: 'audio'; objectKey: string };

/** A stream of this process (`in_process`): its state and its channel's memory. */
interface LiveStream extends StreamState {
  /** Text received and not yet taken by the worker. */
  inbox: string[];
  words: StreamWord[];
  lastActivityAt: number;
  /** Wakes the worker early (new text, DELETE) while it waits. */
  wakeWorker: (() => void) | undefined;
  /** Word listeners waiting for the next words or the end. */
  listeners: Set<() => void>;
  endRequested: EndReason | null;
}

const streams = new Map<string, LiveStream>();

// A process that resets (the local stack starting again) ends its streams, as DELETE does, and forgets
// them: their media store may be gone.
onProcessReset(() => {
  for (const stream of streams.values()) {
    if (!isLive(stream)) continue;
    stream.endRequested = END_REASONS.deleted;
    stream.wakeWorker?.();
  }
  streams.clear();
});

const PLAYLIST_TYPE = 'application/vnd.apple.mpegurl';
const SEGMENT_TYPE = 'video/mp2t';

/** The stream `streamId` of `workspaceId` in this process; another workspace's stream is not found. */
function requireStream(workspaceId: string, streamId: string): LiveStream {
  const stream = streams.get(streamId);
  if (!stream || stream.workspaceId !== workspaceId) throw streamNotFound(streamId);
  return stream;
}

/**
 * Starts a stream: checks the workspace's concurrency, the look and the voice (4xx naming the field),
 * then leaves the rest to the stream's worker, which runs until the stream ends.
 */
export async function createStream(workspaceId: string, request: CreateStreamRequest): Promise<StreamState> {
  const settings = config();
  if (settings.realtimeWorker === 'unavailable') {
    throw new JobFailure(
      'engine_unavailable',
      'Realtime avatar streams need the streaming service, which this deployment does not run (docs/architecture.md, "Realtime avatars").',
    );
  }
  if (settings.realtimeWorker === 'in_process') {
    const live = [...streams.values()].filter(
      (stream) => stream.workspaceId === workspaceId && isLive(stream),
    );
    if (live.length >= settings.realtimeMaxConcurrentStreams) throw tooManyStreams(live.length);
  }
  const spec = await streamSpec(workspaceId, newId(), request);
  if (settings.realtimeWorker === 'service') return startServiceStream(spec, request.avatar_id);

  const stream: LiveStream = {
    ...newStreamState(spec, request.avatar_id),
    inbox: [],
    words: [],
    lastActivityAt: Date.now(),
    wakeWorker: undefined,
    listeners: new Set(),
    endRequested: null,
  };
  streams.set(stream.streamId, stream);
  void runStream(spec, memoryChannel(stream));
  return stream;
}

/** Checks a create (the look, the voice, the type's input) and resolves what its worker needs. */
async function streamSpec(
  workspaceId: string,
  streamId: string,
  request: CreateStreamRequest,
): Promise<StreamSpec> {
  await requireUsableLook(workspaceId, request.avatar_id, 'avatar_id');
  const look = await resolveLookPresenter(workspaceId, request.avatar_id);
  if (!look.usable) throw new InvalidParameterError(look.message, 'avatar_id');
  let voice: ResolvedVoice | null = null;
  const voiceId = request.voice_id ?? look.media.defaultVoiceId;
  if (request.type !== 'audio') {
    if (!voiceId) throw new InvalidParameterError('Name the voice that speaks the text.', 'voice_id');
    try {
      voice = await resolveVoice(workspaceId, voiceId);
    } catch (error) {
      if (error instanceof VoiceResolutionError) throw voiceError(error);
      throw error;
    }
  }
  const spec: StreamSpec = {
    streamId,
    workspaceId,
    type: request.type,
    look: look.media,
    voice,
    speed: request.speed,
    pitch: request.pitch,
    backdropColor: request.backdrop_color,
  };
  if (request.type === 'tts') {
    if (!request.text?.trim())
      throw new InvalidParameterError('A tts stream speaks `text`: give it.', 'text');
    spec.text = request.text;
  } else if (request.type === 'audio') {
    if (!request.audio) throw new InvalidParameterError('An audio stream shows `audio`: give it.', 'audio');
    const audio = await resolveMediaInput(workspaceId, request.audio, { param: 'audio', accept: ['audio'] });
    spec.audioObjectKey = audio.objectKey;
  } else if (request.text !== undefined) {
    throw new InvalidParameterError(
      'A text_stream stream takes its text from POST /v3/avatar-realtime/{stream_id}/text; leave `text` out.',
      'text',
    );
  }
  return spec;
}

/** Adds text to a `text_stream` stream: complete sentences start being spoken at once. */
export async function appendText(
  workspaceId: string,
  streamId: string,
  delta: string,
  final: boolean,
): Promise<StreamState> {
  if (config().realtimeWorker === 'service') return appendServiceText(workspaceId, streamId, delta, final);
  const stream = requireStream(workspaceId, streamId);
  requireTextAccepted(stream);
  stream.inbox.push(delta);
  stream.finalReceived = final;
  stream.lastActivityAt = Date.now();
  stream.wakeWorker?.();
  return stream;
}

/** Ends a stream now (DELETE); an ended stream stays readable. */
export async function endStream(workspaceId: string, streamId: string): Promise<StreamState> {
  if (config().realtimeWorker === 'service') return endServiceStream(workspaceId, streamId);
  const stream = requireStream(workspaceId, streamId);
  if (isLive(stream)) {
    stream.endRequested = END_REASONS.deleted;
    stream.wakeWorker?.();
  }
  return stream;
}

export async function getStream(workspaceId: string, streamId: string): Promise<StreamState> {
  if (config().realtimeWorker === 'service') return getServiceStream(workspaceId, streamId);
  return requireStream(workspaceId, streamId);
}

/** A stream as every route answers it; `hls_url` is presigned afresh. */
export async function streamView(stream: StreamState) {
  return {
    stream_id: stream.streamId,
    type: stream.type,
    status: stream.status,
    avatar_id: stream.avatarId,
    voice_id: stream.voiceId,
    hls_url: await presignMediaDownload(realtimeMediaKeys.playlist(stream), { contentType: PLAYLIST_TYPE }),
    duration: stream.producedMs / 1000,
    error_message: stream.errorMessage,
    end_reason: stream.endReason,
    created_at: stream.createdAt,
    ended_at: stream.endedAt,
  };
}

/**
 * The stream's words as Server-Sent Events: every word already spoken after `afterWord` (the client's
 * `Last-Event-ID`, so a reconnecting client misses none and gets none twice), then each block's words
 * as its segments are published (`event: word`), then `event: end` with the end reason when the stream
 * ends.
 */
export async function* streamWordEvents(
  workspaceId: string,
  streamId: string,
  afterWord = -1,
): AsyncGenerator<Uint8Array> {
  if (config().realtimeWorker === 'service') {
    yield* serviceWordEvents(workspaceId, streamId, afterWord);
    return;
  }
  const stream = requireStream(workspaceId, streamId);
  let sent = afterWord + 1;
  for (;;) {
    while (sent < stream.words.length) {
      yield wordEvent(stream.words[sent] as StreamWord, sent);
      sent++;
    }
    if (!isLive(stream)) break;
    await new Promise<void>((resolve) => {
      const listener = () => {
        stream.listeners.delete(listener);
        resolve();
      };
      stream.listeners.add(listener);
    });
  }
  yield endEvent(stream);
}

function notifyListeners(stream: LiveStream): void {
  for (const listener of [...stream.listeners]) listener();
}

/** The channel of a stream of this process: its memory. */
function memoryChannel(stream: LiveStream): StreamChannel {
  return {
    receive: async () => ({
      text: stream.inbox.splice(0),
      final: stream.finalReceived,
      endRequested: stream.endRequested,
      lastActivityAt: stream.lastActivityAt,
    }),
    wait: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.max(0, ms));
        function done() {
          clearTimeout(timer);
          stream.wakeWorker = undefined;
          resolve();
        }
        stream.wakeWorker = done;
      }),
    live: async () => {
      stream.status = STREAM_STATUS.live;
    },
    published: async (producedMs, words) => {
      stream.producedMs = producedMs;
      if (words.length === 0) return;
      stream.words.push(...words);
      notifyListeners(stream);
    },
    ended: async (end) => {
      stream.status = end.status;
      stream.endReason = end.endReason;
      stream.errorMessage = end.errorMessage;
      stream.producedMs = end.producedMs;
      stream.endedAt = nowSeconds();
      notifyListeners(stream);
      // An ended stream stays readable (its status, its words) as long as its URLs live, then is forgotten.
      setTimeout(() => streams.delete(stream.streamId), config().mediaUrlTtlSeconds * 1000).unref();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The worker

/** The backdrop behind the presenter when the request names none. */
const DEFAULT_BACKDROP = '#e8eaed';
/** The longest one ffmpeg run of a block may take before the stream fails. */
const BLOCK_TIMEOUT_MS = 120_000;
/** Most segments of a recording rendered in one block (type `audio`): its first seconds show early. */
const AUDIO_BLOCK_SEGMENTS = 3;
/** Rate a recording's loudness is measured at for its mouth shapes (the lipsync `speed` mode's). */
const ANALYSIS_RATE = 16_000;

/** 16:9 at the stream's height (`realtimeMaxHeight`, at most 720p), even sides. */
function streamFrame(backdrop: string): StreamFrame {
  const height = 2 * Math.floor(Math.min(720, config().realtimeMaxHeight) / 2);
  return { width: 2 * Math.round((height * 16) / 9 / 2), height, backdrop };
}

/** The look's portrait and its sprites, cut from its sheet, as files of `workDir`. */
async function preparePresenter(
  workDir: string,
  portraitKey: string,
  sheet: LookPresenterMedia['spriteSheet'],
): Promise<StreamPresenter> {
  // sharp is in the media image, where the streaming worker runs.
  const { default: sharp } = await import('sharp');
  const portraitPath = await downloadMediaObject(portraitKey, join(workDir, 'portrait.png'));
  const sheetPath = await downloadMediaObject(sheet.key, join(workDir, 'sprites.png'));
  const meta = await sharp(portraitPath).metadata();
  const sprites: StreamPresenter['sprites'] = { mouths: {} };
  await Promise.all(
    sheet.sprites.map(async ({ sprite, box, sheet_top }) => {
      const imagePath = join(workDir, `sprite-${sprite}.png`);
      await sharp(sheetPath)
        .extract({ left: 0, top: sheet_top, width: box.width, height: box.height })
        .toFile(imagePath);
      if (sprite === 'blink') sprites.blink = { imagePath, box };
      else sprites.mouths[sprite as keyof typeof sprites.mouths] = { imagePath, box };
    }),
  );
  return {
    portraitPath,
    portraitSize: { width: meta.width ?? 1, height: meta.height ?? 1 },
    sprites,
  };
}

/**
 * Runs one stream to its end: takes its inputs from `channel` and tells it every published block and
 * the end, on every way out (ended, deleted, timed out, failed).
 */
export async function runStream(spec: StreamSpec, channel: StreamChannel): Promise<void> {
  const settings = config();
  const segmentMs = settings.realtimeSegmentMs;
  const { voice } = spec;
  const segments: PlaylistSegment[] = [];
  let producedMs = 0;
  let utterances = 0;
  let status: StreamStatus = STREAM_STATUS.starting;
  // What the stream was told: utterances waiting, `final`, DELETE, the last text's time.
  const queue: Utterance[] = spec.audioObjectKey ? [{ kind: 'audio', objectKey: spec.audioObjectKey }] : [];
  if (spec.type === 'tts' && spec.text)
    queue.push(...takeSentences(spec.text, true).utterances.map(textUtterance));
  let pendingText = '';
  let finalReceived = spec.type !== 'text_stream';
  let endRequested: EndReason | null = null;
  let lastActivityAt = Date.now();
  const receive = async () => {
    const input = await channel.receive();
    if (input.text.length > 0 || (input.final && !finalReceived)) {
      const taken = takeSentences(pendingText + input.text.join(''), input.final);
      pendingText = taken.rest;
      queue.push(...taken.utterances.map(textUtterance));
    }
    finalReceived ||= input.final;
    endRequested ??= input.endRequested;
    lastActivityAt = Math.max(lastActivityAt, input.lastActivityAt);
  };
  const finish = async (endReason: EndReason, errorMessage: string | null = null) => {
    const end: StreamEnd = {
      status: endReason === END_REASONS.error ? STREAM_STATUS.failed : STREAM_STATUS.ended,
      endReason,
      errorMessage,
      producedMs,
    };
    try {
      await writePlaylist(spec, segments, true);
    } finally {
      status = end.status;
      await channel.ended(end);
    }
  };

  let workDir: string | undefined;
  let blocks = 0;
  // Everything inside: a stream whose work directory cannot be made still ends, saying why.
  try {
    await mkdir(settings.mediaWorkDir, { recursive: true });
    const work = await mkdtemp(join(settings.mediaWorkDir, `realtime-${spec.streamId}-`));
    workDir = work;
    const { look } = spec;
    const [presenter] = await Promise.all([
      preparePresenter(work, look.portraitKey, look.spriteSheet),
      // The speech engine's first synthesis starts its worker and loads the voice: done now, it is
      // not paid by the first utterance (the time to the first speaking segment).
      voice ? speechEngine().synthesize({ text: 'Hello.', voiceId: voice.engineVoiceId }) : undefined,
    ]);
    const frame = streamFrame(spec.backdropColor ?? DEFAULT_BACKDROP);
    const startedAt = Date.now();
    await channel.live();
    status = STREAM_STATUS.live;
    // Idle time counts from when the stream can be watched, not from the create.
    lastActivityAt = Math.max(lastActivityAt, startedAt);

    const publish = async (
      block: Omit<
        PresenterBlock,
        'presenter' | 'frame' | 'startMs' | 'segmentMs' | 'outDir' | 'timeoutMs' | 'blinkSeed'
      >,
      words: Omit<StreamWord, 'utterance'>[],
    ) => {
      const outDir = join(work, `block-${blocks++}`);
      const files = await renderPresenterBlock({
        ...block,
        presenter,
        frame,
        startMs: producedMs,
        segmentMs,
        outDir,
        timeoutMs: BLOCK_TIMEOUT_MS,
        blinkSeed: blocks,
      });
      for (const file of files) {
        const key = realtimeMediaKeys.segment(spec, segments.length);
        await putMediaObject(spec.workspaceId, key, await readFile(file), SEGMENT_TYPE);
        segments.push({
          uri: await presignMediaDownload(key, { contentType: SEGMENT_TYPE }),
          durationMs: segmentMs,
        });
      }
      const blockStart = producedMs;
      producedMs += files.length * segmentMs;
      await writePlaylist(spec, segments, false);
      await rm(outDir, { recursive: true, force: true });
      const utterance = words.length > 0 ? utterances++ : utterances;
      await channel.published(
        producedMs,
        words.map((word) => ({
          word: word.word,
          start: (blockStart + word.start) / 1000,
          end: (blockStart + word.end) / 1000,
          utterance,
        })),
      );
    };

    const idle = () => publish({ segments: 1, visemes: [] }, []);

    const speak = async (utterance: Utterance) => {
      if (utterance.kind === 'text') {
        if (!voice) throw new Error('a text utterance without a voice');
        const spoken = await speechEngine().synthesize({
          text: utterance.text,
          voiceId: voice.engineVoiceId,
          ...combinedSettings(voice, spec),
        });
        const audioPath = join(work, `utterance-${blocks}.wav`);
        await writeFile(audioPath, spoken.audio);
        await publish(
          {
            segments: Math.max(1, Math.ceil(spoken.durationMs / segmentMs)),
            audioPath,
            visemes: spoken.visemes,
          },
          spoken.words.map((word) => ({ word: word.word, start: word.startMs, end: word.endMs })),
        );
        return;
      }
      await showRecording(utterance.objectKey);
    };

    // A recording shows in blocks of a few segments, its mouth from its loudness.
    const showRecording = async (objectKey: string) => {
      const audioPath = await downloadMediaObject(objectKey, join(work, 'recording'));
      const samples = await decodeMonoPcm16(audioPath, { sampleRate: ANALYSIS_RATE, workDir: work });
      const durationMs = Math.round((samples.length * 1000) / ANALYSIS_RATE);
      const visemes = visemesFromAudio(samples, ANALYSIS_RATE);
      const blockMs = AUDIO_BLOCK_SEGMENTS * segmentMs;
      for (let fromMs = 0; fromMs < durationMs && !endRequested; fromMs += blockMs) {
        const lengthMs = Math.min(blockMs, durationMs - fromMs);
        const clip = join(work, `recording-${fromMs}.wav`);
        await runProcess(
          ffmpegPath(),
          [
            '-nostdin',
            '-v',
            'error',
            '-y',
            '-ss',
            (fromMs / 1000).toFixed(3),
            '-t',
            (lengthMs / 1000).toFixed(3),
            '-i',
            audioPath,
            clip,
          ],
          { timeoutMs: BLOCK_TIMEOUT_MS },
        );
        await publish(
          {
            segments: Math.ceil(lengthMs / segmentMs),
            audioPath: clip,
            visemes: shiftedCues(visemes, fromMs, lengthMs),
          },
          [],
        );
        await receive();
      }
    };

    for (;;) {
      await receive();
      const now = Date.now();
      if (endRequested) return await finish(endRequested);
      if (now - startedAt >= settings.realtimeMaxDurationMs || producedMs >= settings.realtimeMaxDurationMs) {
        return await finish(END_REASONS.maxDuration);
      }
      const next = queue.shift();
      if (next) {
        await speak(next);
        // Time spent speaking is not idle time.
        lastActivityAt = Math.max(lastActivityAt, Date.now());
        continue;
      }
      if (finalReceived) return await finish(END_REASONS.completed);
      if (now - lastActivityAt >= settings.realtimeIdleTimeoutMs) {
        return await finish(END_REASONS.idleTimeout);
      }
      // Keep one segment ahead of the wall clock, so a player never runs dry between utterances.
      const aheadMs = producedMs - (now - startedAt);
      if (aheadMs < segmentMs) {
        await idle();
        continue;
      }
      await channel.wait(
        Math.min(aheadMs - segmentMs + 1, settings.realtimeIdleTimeoutMs - (now - lastActivityAt)),
      );
    }
  } catch (error) {
    const errorMessage =
      error instanceof JobFailure || error instanceof ServiceError
        ? error.message
        : `The stream failed: ${error instanceof Error ? error.message : String(error)}`;
    // Already ended (the channel's own end failed): nothing more to tell.
    if (isLive({ status })) await finish(END_REASONS.error, errorMessage).catch(() => undefined);
  } finally {
    if (workDir) await rm(workDir, { recursive: true, force: true });
  }
}

const textUtterance = (text: string): Utterance => ({ kind: 'text', text });

/** The cues of `[fromMs, fromMs + lengthMs)`, from 0. */
function shiftedCues(cues: readonly VisemeCue[], fromMs: number, lengthMs: number): VisemeCue[] {
  return cues
    .filter((cue) => cue.endMs > fromMs && cue.startMs < fromMs + lengthMs)
    .map((cue) => ({
      ...cue,
      startMs: Math.max(0, cue.startMs - fromMs),
      endMs: Math.min(lengthMs, cue.endMs - fromMs),
    }));
}

async function writePlaylist(
  stream: StreamPath,
  segments: readonly PlaylistSegment[],
  ended: boolean,
): Promise<void> {
  const playlist = livePlaylist(segments, config().realtimeSegmentMs, ended);
  await putMediaObject(
    stream.workspaceId,
    realtimeMediaKeys.playlist(stream),
    new TextEncoder().encode(playlist),
    PLAYLIST_TYPE,
  );
}
