/**
 * `transcribe`: Amazon Transcribe on the recording's object in the media bucket (deployed engine).
 *
 * One batch job per run: StartTranscriptionJob names it after the run (`vcs-<runId>`), points it at
 * `s3://<bucket>/<key>` and writes its JSON result into the same bucket under the run's work prefix
 * (`<workPrefix>transcribe-<job name>.json`, encrypted by the bucket's default key). A step that runs
 * again finds its job already there (`ConflictException`) and waits for it instead of starting another.
 * GetTranscriptionJob is polled every `TRANSCRIBE_POLL_INTERVAL_MS` until COMPLETED or FAILED, for at
 * most `TRANSCRIBE_TIMEOUT_MS`. Words come from the result's `items` of type `pronunciation`
 * (`start_time`/`end_time` in seconds, `alternatives[0].content` and `confidence`); punctuation items
 * stay in `text` only. The language is the one given (`LanguageCode`) or identified (`IdentifyLanguage`).
 *
 * Errors: a refused request (`BadRequestException`) or a job that failed on its media → `invalid_input`;
 * throttling, quotas, access and credentials → `engine_unavailable`; a failed job, an unreadable result or
 * the timeout → `recognition_failed`.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import {
  GetTranscriptionJobCommand,
  type LanguageCode,
  type MediaFormat,
  StartTranscriptionJobCommand,
  TranscribeClient,
  type TranscriptionJob,
} from '@aws-sdk/client-transcribe';
import { configuredClient, s3Client } from '../../core/aws-clients.js';
import {
  orderedWords,
  type RecognitionFailureCode,
  type RecognitionRequest,
  type RecognitionResult,
  type RecognizedWord,
  type SpeechRecognitionEngine,
  SpeechRecognitionError,
} from './speech-recognition-engine.js';

export const TRANSCRIBE_ENGINE = 'transcribe';

export interface TranscribeEngineOptions {
  /** @default a configured `TranscribeClient`, created on first use */
  client?: TranscribeClient;
  /** Wait between GetTranscriptionJob calls, in milliseconds. */
  pollIntervalMs: number;
  /** Longest wait for the job to end, in milliseconds. */
  timeoutMs: number;
}

/** Media formats Transcribe takes, by file extension and media subtype. */
const MEDIA_FORMATS: Readonly<Record<string, MediaFormat>> = {
  mp3: 'mp3',
  mpeg: 'mp3',
  mp4: 'mp4',
  m4a: 'm4a',
  wav: 'wav',
  'x-wav': 'wav',
  wave: 'wav',
  flac: 'flac',
  ogg: 'ogg',
  amr: 'amr',
  webm: 'webm',
};

function mediaFormatOf(request: RecognitionRequest): MediaFormat | undefined {
  const extension = request.media.key.match(/\.([a-z0-9]+)$/i)?.[1]?.toLowerCase();
  const subtype = request.media.mediaType.split('/')[1]?.toLowerCase();
  return (extension && MEDIA_FORMATS[extension]) || (subtype && MEDIA_FORMATS[subtype]) || undefined;
}

/** Transcribe job names: `[0-9a-zA-Z._-]`, at most 200 characters, unique in the account and region. */
export function transcriptionJobName(runId: string): string {
  return `vcs-${runId.replace(/[^0-9a-zA-Z._-]/g, '-')}`.slice(0, 200);
}

/** The S3 key Transcribe writes the run's result to. */
export function transcriptionResultKey(request: RecognitionRequest): string {
  return `${request.workPrefix}transcribe-${transcriptionJobName(request.runId)}.json`;
}

function codeOfSdkError(error: unknown): RecognitionFailureCode {
  const name = (error as { name?: string }).name ?? '';
  if (name === 'BadRequestException') return 'invalid_input';
  if (/Throttl|LimitExceeded|AccessDenied|Credential|Unrecognized|ExpiredToken|NotAuthorized/i.test(name)) {
    return 'engine_unavailable';
  }
  return 'recognition_failed';
}

const describe = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

interface TranscribeItem {
  type?: string;
  start_time?: string;
  end_time?: string;
  alternatives?: { content?: string; confidence?: string }[];
}

interface TranscribeOutput {
  results?: { transcripts?: { transcript?: string }[]; items?: TranscribeItem[]; language_code?: string };
}

/** The words of a Transcribe result: pronunciation items, in milliseconds. */
export function transcribeWords(output: TranscribeOutput): RecognizedWord[] {
  return orderedWords(
    (output.results?.items ?? []).flatMap((item) => {
      const best = item.alternatives?.[0];
      if (item.type !== 'pronunciation' || !best?.content || item.start_time === undefined) return [];
      const confidence = Number(best.confidence);
      return [
        {
          word: best.content,
          startMs: Number(item.start_time) * 1000,
          endMs: Number(item.end_time ?? item.start_time) * 1000,
          ...(Number.isFinite(confidence) ? { confidence } : {}),
        },
      ];
    }),
  );
}

class TranscribeRecognitionEngine implements SpeechRecognitionEngine {
  readonly name = TRANSCRIBE_ENGINE;
  private client: TranscribeClient | undefined;

  constructor(private readonly options: TranscribeEngineOptions) {
    this.client = options.client;
  }

  private transcribe(): TranscribeClient {
    this.client ??= configuredClient(new TranscribeClient({}));
    return this.client;
  }

  async recognize(request: RecognitionRequest): Promise<RecognitionResult> {
    const jobName = transcriptionJobName(request.runId);
    const outputKey = transcriptionResultKey(request);
    const format = mediaFormatOf(request);
    try {
      await this.transcribe().send(
        new StartTranscriptionJobCommand({
          TranscriptionJobName: jobName,
          Media: { MediaFileUri: `s3://${request.media.bucket}/${request.media.key}` },
          ...(format ? { MediaFormat: format } : {}),
          ...(request.language
            ? { LanguageCode: request.language as LanguageCode }
            : { IdentifyLanguage: true }),
          OutputBucketName: request.media.bucket,
          OutputKey: outputKey,
        }),
      );
    } catch (error) {
      // The same run started it before (a retried step): wait for that job.
      if ((error as { name?: string }).name !== 'ConflictException') {
        throw new SpeechRecognitionError(
          codeOfSdkError(error),
          `Amazon Transcribe did not start the transcription (${describe(error)})`,
          { cause: error },
        );
      }
    }
    const job = await this.waitFor(jobName);
    const output = await this.readResult(request.media.bucket, outputKey);
    const words = transcribeWords(output);
    return {
      engine: this.name,
      language: job.LanguageCode ?? output.results?.language_code ?? request.language ?? 'und',
      text:
        output.results?.transcripts
          ?.map(({ transcript }) => transcript ?? '')
          .join(' ')
          .trim() ?? '',
      words,
    };
  }

  private async waitFor(jobName: string): Promise<TranscriptionJob> {
    const deadline = Date.now() + this.options.timeoutMs;
    for (;;) {
      let job: TranscriptionJob | undefined;
      try {
        job = (
          await this.transcribe().send(new GetTranscriptionJobCommand({ TranscriptionJobName: jobName }))
        ).TranscriptionJob;
      } catch (error) {
        throw new SpeechRecognitionError(
          codeOfSdkError(error),
          `Amazon Transcribe could not report on the transcription ${jobName} (${describe(error)})`,
          { cause: error },
        );
      }
      if (job?.TranscriptionJobStatus === 'COMPLETED') return job;
      if (job?.TranscriptionJobStatus === 'FAILED') {
        const reason = job.FailureReason ?? 'no reason given';
        // Transcribe fails a job on media it cannot use (format, sample rate, length, no speech found).
        const code = /format|media|sample rate|duration|length|corrupt|no speech|invalid/i.test(reason)
          ? 'invalid_input'
          : 'recognition_failed';
        throw new SpeechRecognitionError(code, `Amazon Transcribe could not transcribe the media: ${reason}`);
      }
      if (Date.now() + this.options.pollIntervalMs > deadline) {
        throw new SpeechRecognitionError(
          'recognition_failed',
          `Amazon Transcribe did not finish the transcription ${jobName} within ${this.options.timeoutMs} ms`,
        );
      }
      await sleep(this.options.pollIntervalMs);
    }
  }

  private async readResult(bucket: string, key: string): Promise<TranscribeOutput> {
    try {
      const object = await s3Client().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return JSON.parse((await object.Body?.transformToString('utf8')) ?? '') as TranscribeOutput;
    } catch (error) {
      throw new SpeechRecognitionError(
        'recognition_failed',
        `Amazon Transcribe finished, but its result ${key} could not be read (${describe(error)})`,
        { cause: error },
      );
    }
  }
}

/** A new Amazon Transcribe engine; its client is created on first use. */
export function createTranscribeRecognitionEngine(options: TranscribeEngineOptions): SpeechRecognitionEngine {
  return new TranscribeRecognitionEngine(options);
}
