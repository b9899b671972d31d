/**
 * A realtime stream as the routes, the in-process worker and the streaming service all see it: its
 * types, statuses and end reasons, the channel between a worker loop and whoever serves the routes,
 * the stream's media keys, and the answers every mode gives alike (404, 410, 429, the SSE events).
 * realtime-streams.ts (in process) and stream-records.ts (the table, for the streaming service) both
 * build on it.
 */
import type { MediaInput } from '../assets/media-inputs.js';
import type { LookPresenterMedia } from '../avatars/look-presenters.js';
import { config } from '../core/config.js';
import { InvalidParameterError, NotFoundError, QuotaExceededError, ServiceError } from '../core/errors.js';
import { nowSeconds } from '../core/ids.js';
import type { ResolvedVoice } from '../voices/voice-resolution.js';

export const STREAM_TYPES = ['tts', 'audio', 'text_stream'] as const;
export type StreamType = (typeof STREAM_TYPES)[number];

export const STREAM_STATUS = {
  /** The presenter and voice are being prepared; no segment yet. */
  starting: 'starting',
  live: 'live',
  ended: 'ended',
  failed: 'failed',
} as const;
export type StreamStatus = (typeof STREAM_STATUS)[keyof typeof STREAM_STATUS];

export const END_REASONS = {
  /** Everything sent before `final` (or given at creation) was spoken. */
  completed: 'completed',
  /** `DELETE /v3/avatar-realtime/{stream_id}`. */
  deleted: 'deleted',
  idleTimeout: 'idle_timeout',
  maxDuration: 'max_duration',
  /** The stream failed: `error_message` says why. */
  error: 'error',
} as const;
export type EndReason = (typeof END_REASONS)[keyof typeof END_REASONS];

/** A word as it is spoken: seconds on the stream's timeline (the playlist's, from its first segment). */
export interface StreamWord {
  word: string;
  start: number;
  end: number;
  /** Which utterance (0, 1, ...) of the stream it belongs to. */
  utterance: number;
}

export interface CreateStreamRequest {
  type: StreamType;
  avatar_id: string;
  voice_id?: string | undefined;
  text?: string | undefined;
  audio?: MediaInput | undefined;
  speed?: number | undefined;
  pitch?: number | undefined;
  backdrop_color?: string | undefined;
}

/** A stream as the routes answer it, wherever it runs. */
export interface StreamState {
  streamId: string;
  workspaceId: string;
  type: StreamType;
  avatarId: string;
  voiceId: string | null;
  status: StreamStatus;
  endReason: EndReason | null;
  errorMessage: string | null;
  createdAt: number;
  endedAt: number | null;
  /** `final` was received: nothing more will be said. */
  finalReceived: boolean;
  /** Length of the stream's timeline so far, in ms. */
  producedMs: number;
}

/**
 * What a worker needs to run a stream, decided when it is created (the look and voice resolved, the
 * request checked): plain data, the realtime queue's message in the `service` mode.
 */
export interface StreamSpec {
  streamId: string;
  workspaceId: string;
  type: StreamType;
  look: LookPresenterMedia;
  voice: ResolvedVoice | null;
  speed?: number | undefined;
  pitch?: number | undefined;
  backdropColor?: string | undefined;
  /** A tts stream's text. */
  text?: string | undefined;
  /** An audio stream's recording. */
  audioObjectKey?: string | undefined;
}

/** What the stream was told since the worker last asked. */
export interface StreamInput {
  /** Text deltas received since the last call, in order. */
  text: string[];
  /** `final` was received. */
  final: boolean;
  /** DELETE was received. */
  endRequested: EndReason | null;
  /** Wall time (ms) of the last text, for the idle timeout. */
  lastActivityAt: number;
}

/** How a stream's end is recorded. */
export interface StreamEnd {
  status: StreamStatus;
  endReason: EndReason;
  errorMessage: string | null;
  producedMs: number;
}

/** Between a stream's worker loop and whoever serves the stream's routes. */
export interface StreamChannel {
  receive(): Promise<StreamInput>;
  /** Waits up to `ms`; returns earlier when input may have arrived. */
  wait(ms: number): Promise<void>;
  /** The presenter is ready: the stream is live. */
  live(): Promise<void>;
  /** A block was published: the stream's new length and the block's words. */
  published(producedMs: number, words: readonly StreamWord[]): Promise<void>;
  ended(end: StreamEnd): Promise<void>;
}

export const streamNotFound = (streamId: string) =>
  new NotFoundError(`Stream ${streamId} not found.`, 'not_found', 'stream_id');

/** What names a stream's media: its workspace and id. */
export type StreamPath = Pick<StreamState, 'workspaceId' | 'streamId'>;

export const realtimeMediaKeys = {
  prefix: (stream: StreamPath) => `workspaces/${stream.workspaceId}/avatar-realtime/${stream.streamId}/`,
  playlist: (stream: StreamPath) => `${realtimeMediaKeys.prefix(stream)}playlist.m3u8`,
  segment: (stream: StreamPath, index: number) =>
    `${realtimeMediaKeys.prefix(stream)}segment-${String(index).padStart(5, '0')}.ts`,
};

export const isLive = (stream: Pick<StreamState, 'status'>) =>
  stream.status === STREAM_STATUS.starting || stream.status === STREAM_STATUS.live;

/** The limit a workspace reached, as its 429 says it. */
export function tooManyStreams(live: number): QuotaExceededError {
  const limit = config().realtimeMaxConcurrentStreams;
  return new QuotaExceededError(
    `This workspace already has ${live} live realtime streams, the most it may hold at once (${limit}); end one (DELETE /v3/avatar-realtime/{stream_id}) or wait for one to end.`,
  );
}

/** A new stream's state, before its worker starts. */
export function newStreamState(spec: StreamSpec, avatarId: string): StreamState {
  return {
    streamId: spec.streamId,
    workspaceId: spec.workspaceId,
    type: spec.type,
    avatarId,
    voiceId: spec.voice?.voiceId ?? null,
    status: STREAM_STATUS.starting,
    endReason: null,
    errorMessage: null,
    createdAt: nowSeconds(),
    endedAt: null,
    // tts and audio streams get everything at creation: they end once it is said.
    finalReceived: spec.type !== 'text_stream',
    producedMs: 0,
  };
}

/** Refuses text the stream cannot take: 400 for a stream of another type, 410 once it ended or got `final`. */
export function requireTextAccepted(stream: StreamState): void {
  if (stream.type !== 'text_stream') {
    throw new InvalidParameterError(
      `Stream ${stream.streamId} is a ${stream.type} stream: only text_stream streams take text.`,
      'stream_id',
    );
  }
  if (stream.finalReceived || !isLive(stream)) {
    throw new ServiceError(
      410,
      'stream_ended',
      stream.finalReceived
        ? `Stream ${stream.streamId} already received its final text; start a new stream to say more.`
        : `Stream ${stream.streamId} has ended (${stream.endReason ?? stream.status}); start a new stream to say more.`,
    );
  }
}

const encoder = new TextEncoder();
/** A word event; its `id` is the word's place in the stream (0, 1, ...), for `Last-Event-ID`. */
export const wordEvent = (word: StreamWord, index: number) =>
  encoder.encode(`id: ${index}\nevent: word\ndata: ${JSON.stringify(word)}\n\n`);
export const endEvent = (stream: StreamState) =>
  encoder.encode(
    `event: end\ndata: ${JSON.stringify({ status: stream.status, end_reason: stream.endReason, error_message: stream.errorMessage })}\n\n`,
  );
