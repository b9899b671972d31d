/**
 * `openai`: an OpenAI-compatible transcription server (`POST <base>/audio/transcriptions`: hosted
 * OpenAI, or the whisper servers self-hosters run, such as faster-whisper-server, whisper.cpp's server
 * or LocalAI). The recording is uploaded as multipart/form-data with `model`,
 * `response_format=verbose_json` and `timestamp_granularities[]=word` (and `language` when known); the
 * answer's `words` (seconds) become milliseconds and its `language` a BCP-47 tag. A server that gives no
 * word timestamps fails the request rather than inventing them.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { s3Client } from '../../core/aws-clients.js';
import type { ModelServerConfig } from '../../core/config.js';
import {
  type MODEL_SERVER_FAILURES,
  modelServerClient,
  type OpenAiCompatibleClient,
} from '../openai-compatible/index.js';
import {
  languageTag,
  orderedWords,
  type RecognitionFailureCode,
  type RecognitionRequest,
  type RecognitionResult,
  type SpeechRecognitionEngine,
  SpeechRecognitionError,
} from './speech-recognition-engine.js';

export const OPENAI_RECOGNITION_ENGINE = 'openai';

const FAILURE_CODES: Readonly<
  Record<(typeof MODEL_SERVER_FAILURES)[keyof typeof MODEL_SERVER_FAILURES], RecognitionFailureCode>
> = {
  unavailable: 'engine_unavailable',
  invalid_input: 'invalid_input',
  failed: 'recognition_failed',
};

interface VerboseTranscription {
  text?: unknown;
  language?: unknown;
  words?: unknown;
}

/** The file name sent with the upload: servers pick the decoder by its extension. */
function uploadName(request: RecognitionRequest): string {
  const base = request.media.key.split('/').pop() || 'media';
  return /\.[a-z0-9]{2,4}$/i.test(base) ? base : `${base}.${request.media.mediaType.split('/')[1] ?? 'bin'}`;
}

class OpenAiRecognitionEngine implements SpeechRecognitionEngine {
  readonly name = OPENAI_RECOGNITION_ENGINE;
  private readonly client: OpenAiCompatibleClient;

  constructor(server: ModelServerConfig) {
    this.client = modelServerClient(server, {
      capability: 'Speech recognition',
      prefix: 'SPEECH_RECOGNITION',
      failure: (kind, message, cause) => new SpeechRecognitionError(FAILURE_CODES[kind], message, { cause }),
    });
  }

  async recognize(request: RecognitionRequest): Promise<RecognitionResult> {
    const bytes = request.media.bytes ?? (await this.read(request));
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: request.media.mediaType }), uploadName(request));
    form.append('model', this.client.model);
    form.append('response_format', 'verbose_json');
    form.append('timestamp_granularities[]', 'word');
    if (request.language) form.append('language', request.language.split('-')[0] as string);
    const answer = (await this.client.postMultipart('/audio/transcriptions', form)) as VerboseTranscription;
    if (!Array.isArray(answer.words)) {
      throw new SpeechRecognitionError(
        'recognition_failed',
        `Speech recognition failed: the server at ${new URL(this.client.baseUrl).host} gave no word timestamps (it must support response_format=verbose_json with timestamp_granularities[]=word).`,
      );
    }
    const words = orderedWords(
      answer.words.flatMap((entry: unknown) => {
        const { word, start, end } = (entry ?? {}) as { word?: unknown; start?: unknown; end?: unknown };
        return typeof word === 'string' && typeof start === 'number' && typeof end === 'number'
          ? [{ word, startMs: start * 1000, endMs: end * 1000 }]
          : [];
      }),
    );
    const text =
      typeof answer.text === 'string' ? answer.text.trim() : words.map(({ word }) => word).join(' ');
    const language =
      typeof answer.language === 'string' && answer.language
        ? languageTag(answer.language)
        : (request.language ?? 'und');
    return { engine: this.name, language, text, words };
  }

  private async read(request: RecognitionRequest): Promise<Uint8Array> {
    try {
      const object = await s3Client().send(
        new GetObjectCommand({ Bucket: request.media.bucket, Key: request.media.key }),
      );
      if (!object.Body) throw new Error('the object has no body');
      return await object.Body.transformToByteArray();
    } catch (error) {
      throw new SpeechRecognitionError(
        'recognition_failed',
        `Speech recognition could not read the media ${request.media.key}`,
        {
          cause: error,
        },
      );
    }
  }
}

/** A recognition engine for the configured OpenAI-compatible server. */
export function createOpenAiRecognitionEngine(server: ModelServerConfig): SpeechRecognitionEngine {
  return new OpenAiRecognitionEngine(server);
}
