/**
 * The two answers of text to speech: a stored WAV file (`POST /v3/models/audio/tts`) and a WAV stream
 * (`POST /v3/models/audio/tts/stream`). Both check the request against the voice first, so every
 * refusal is an error response, and the stream also waits for its first chunk before it answers: a
 * synthesis that cannot start is still a proper error, and once audio flows the status is 200.
 */
import { newId } from '../core/ids.js';
import { speechEngine } from '../engines/speech/index.js';
import { pcm16Bytes, TTS_SAMPLE_RATE, wavHeader } from '../engines/speech/pcm.js';
import {
  collectSpeech,
  type SpokenChunk,
  storeSpeech,
  type WordTimestamp,
} from '../voices/speech-pipeline.js';
import { engineSettingsFor, requireSpeakableVoice, speak } from './text-to-speech.js';
import { planTtsRequest, type TtsBody } from './tts-request.js';

/** Where a text-to-speech file is kept, in the workspace's media. */
export const ttsAudioKey = (workspaceId: string, speechId: string) =>
  `workspaces/${workspaceId}/models/audio/tts/${speechId}.wav`;

async function prepare(workspaceId: string, body: TtsBody) {
  const voice = await requireSpeakableVoice(workspaceId, body.voice_id);
  const plan = planTtsRequest(body, voice.mode);
  const settings = engineSettingsFor(voice, plan, body.language);
  return { chunks: speak(speechEngine(), plan, settings), language: settings.language };
}

export interface SpeechFile {
  data: { audio_url: string; duration: number; word_timestamps: WordTimestamp[] };
  language: string;
}

/** Speaks the whole text, stores it as one WAV file and answers its URL, duration and word timings. */
export async function speakToFile(workspaceId: string, body: TtsBody): Promise<SpeechFile> {
  const { chunks, language } = await prepare(workspaceId, body);
  const audio = await collectSpeech(chunks);
  const speechId = newId();
  return {
    data: await storeSpeech(workspaceId, ttsAudioKey(workspaceId, speechId), `${speechId}.wav`, {
      ...audio,
      // Text with nothing to say is an empty file.
      sampleRate: audio.sampleRate ?? TTS_SAMPLE_RATE,
    }),
    language,
  };
}

export interface SpeechStream {
  /** The WAV header and the first audio, then each further piece as it is spoken. */
  chunks: AsyncIterable<Uint8Array>;
  language: string;
}

async function* streamed(first: SpokenChunk, rest: AsyncIterator<SpokenChunk>): AsyncGenerator<Uint8Array> {
  // Header and first audio in one piece: the first bytes a client gets already play.
  const header = wavHeader(TTS_SAMPLE_RATE);
  const audio = pcm16Bytes(first.samples);
  const opening = new Uint8Array(header.length + audio.length);
  opening.set(header);
  opening.set(audio, header.length);
  yield opening;
  for (let next = await rest.next(); !next.done; next = await rest.next())
    yield pcm16Bytes(next.value.samples);
}

/**
 * Speaks the text as a stream. Resolves once the first piece is spoken (so a failure to start is an
 * error of this call), with the rest still being spoken.
 */
export async function speakToStream(workspaceId: string, body: TtsBody): Promise<SpeechStream> {
  const { chunks, language } = await prepare(workspaceId, body);
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  // Not a request error: text without anything to speak was refused before synthesis (speakable-text.ts).
  if (first.done) throw new Error('Text to speech produced no audio');
  return { chunks: streamed(first.value, iterator), language };
}
