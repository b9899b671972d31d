/**
 * THE text-to-speech pipeline of both speech routes (`POST /v3/voices/speech`, `lambdas/voices/speech.ts`;
 * `POST /v3/models/audio/tts` and `/tts/stream`, `lambdas/model-audio/`): a request is a list of steps
 * (text for the engine, or a pause); each text is synthesized, its audio decoded (and resampled when
 * the route has a fixed output rate), pauses become silence, and every word timing is moved to its
 * place in the whole audio. The audio is handed on chunk by chunk, in order, with the engine working
 * ahead; a buffered answer collects the chunks into one stored WAV file.
 */

import { resamplePcm16, silence } from '../engines/speech/pcm.js';
import type { SpeechEngine, SynthesisRequest } from '../engines/speech/speech-engine.js';
import { decodeWavPcm16, encodeWavPcm16 } from '../engines/speech/wav.js';
import { presignMediaDownload, putMediaObject } from '../media/media-store.js';

export type SpeechStep =
  | { kind: 'pause'; ms: number }
  | {
      kind: 'speech';
      request: SynthesisRequest;
      /** Offset of the step's text in the request's text (word offsets are relative to the step). */
      textOffset: number;
    };

export interface SpokenWord {
  word: string;
  /** Milliseconds from the start of the whole audio. */
  startMs: number;
  endMs: number;
  /** Offset of the word in the request's text. */
  textOffset: number;
}

/** One piece of the audio, ready to send: mono 16-bit samples and the words they hold. */
export interface SpokenChunk {
  samples: Int16Array;
  sampleRate: number;
  words: SpokenWord[];
}

export interface SpeechPipelineOptions {
  /**
   * The output's sample rate: a fixed rate the engine's audio is resampled to, or the engine's own
   * (which must then stay the same for the whole request).
   */
  sampleRate: number | 'engine';
  /** Steps at the engine at once: the one being handed on and those queued behind it. */
  inFlight: number;
  /** What an engine's refusal becomes for the route (a service error, or the error as it is). */
  engineError(error: unknown): never;
}

/** A step's outcome: its pause, or its audio as the engine spoke it (word times from its own start). */
type StepAudio = { kind: 'pause'; ms: number } | ({ kind: 'speech' } & SpokenChunk);

/**
 * The audio of `steps`, chunk by chunk, in order. A chunk is yielded as soon as it and those before
 * it are ready. A pause's silence is yielded as soon as its length is known: at once at a fixed
 * rate; at the engine's rate, with the speech after it (pauses in a row as one silence), and not at
 * all when nothing was spoken (the caller decides what audio without speech means).
 */
export async function* speakSteps(
  engine: SpeechEngine,
  steps: readonly SpeechStep[],
  options: SpeechPipelineOptions,
): AsyncGenerator<SpokenChunk> {
  const run = (step: SpeechStep): Promise<StepAudio> => {
    if (step.kind === 'pause') return Promise.resolve(step);
    return engine.synthesize(step.request).then((result) => {
      const wav = decodeWavPcm16(result.audio);
      return {
        kind: 'speech',
        samples: wav.samples,
        sampleRate: wav.sampleRate,
        words: result.words.map((word) => ({
          word: word.word,
          startMs: word.startMs,
          endMs: word.endMs,
          textOffset: step.textOffset + word.textOffset,
        })),
      };
    }, options.engineError);
  };
  const queued: Promise<StepAudio>[] = [];
  const enqueue = (index: number) => {
    const step = steps[index];
    if (!step) return;
    const audio = run(step);
    // Handled where it is awaited; a consumer that stops early must not leave it unhandled.
    audio.catch(() => undefined);
    queued.push(audio);
  };
  for (let index = 0; index < options.inFlight; index++) enqueue(index);

  let sampleRate = options.sampleRate === 'engine' ? undefined : options.sampleRate;
  let elapsedSamples = 0;
  let pendingPauseMs = 0;
  const chunk = (samples: Int16Array, rate: number, words: SpokenWord[]): SpokenChunk => {
    elapsedSamples += samples.length;
    return { samples, sampleRate: rate, words };
  };
  for (let index = 0; index < steps.length; index++) {
    const audio = await (queued.shift() as Promise<StepAudio>);
    enqueue(index + options.inFlight);
    if (audio.kind === 'pause') {
      pendingPauseMs += audio.ms;
      if (options.sampleRate !== 'engine') {
        yield chunk(silence(pendingPauseMs, options.sampleRate), options.sampleRate, []);
        pendingPauseMs = 0;
      }
      continue;
    }
    sampleRate ??= audio.sampleRate;
    if (options.sampleRate === 'engine' && audio.sampleRate !== sampleRate)
      throw new Error('the speech engine changed its sample rate mid-request');
    if (pendingPauseMs > 0) {
      yield chunk(silence(pendingPauseMs, sampleRate), sampleRate, []);
      pendingPauseMs = 0;
    }
    const offsetMs = (elapsedSamples * 1000) / sampleRate;
    yield chunk(
      resamplePcm16(audio.samples, audio.sampleRate, sampleRate),
      sampleRate,
      audio.words.map((word) => ({
        ...word,
        startMs: Math.round(offsetMs + word.startMs),
        endMs: Math.round(offsetMs + word.endMs),
      })),
    );
  }
  if (pendingPauseMs > 0 && sampleRate !== undefined)
    yield chunk(silence(pendingPauseMs, sampleRate), sampleRate, []);
}

export interface WordTimestamp {
  word: string;
  /** Seconds from the start of the audio. */
  start: number;
  end: number;
}

/** A buffered answer: the whole audio, or no sample rate when nothing was spoken. */
export interface SpokenAudio {
  samples: Int16Array;
  sampleRate: number | undefined;
  words: WordTimestamp[];
}

export async function collectSpeech(chunks: AsyncIterable<SpokenChunk>): Promise<SpokenAudio> {
  const parts: Int16Array[] = [];
  const words: WordTimestamp[] = [];
  let sampleRate: number | undefined;
  for await (const chunk of chunks) {
    sampleRate = chunk.sampleRate;
    parts.push(chunk.samples);
    for (const word of chunk.words)
      words.push({ word: word.word, start: word.startMs / 1000, end: word.endMs / 1000 });
  }
  const samples = new Int16Array(parts.reduce((total, part) => total + part.length, 0));
  let at = 0;
  for (const part of parts) {
    samples.set(part, at);
    at += part.length;
  }
  return { samples, sampleRate, words };
}

/** Stores spoken audio as a WAV file of the workspace's media and answers its URL, duration and words. */
export async function storeSpeech(
  workspaceId: string,
  key: string,
  fileName: string,
  audio: SpokenAudio & { sampleRate: number },
): Promise<{ audio_url: string; duration: number; word_timestamps: WordTimestamp[] }> {
  await putMediaObject(workspaceId, key, encodeWavPcm16(audio.samples, audio.sampleRate), 'audio/wav');
  return {
    audio_url: await presignMediaDownload(key, { contentType: 'audio/wav', fileName }),
    duration: Math.round((audio.samples.length / audio.sampleRate) * 1000) / 1000,
    word_timestamps: audio.words,
  };
}
