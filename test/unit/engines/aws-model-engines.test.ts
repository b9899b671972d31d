/**
 * The AWS engines of the model capabilities against mocked SDK clients (aws-sdk-client-mock): what each
 * sends (Transcribe's job, Translate's text and terminology, Bedrock's Converse messages, Nova Canvas's
 * body, Nova Reel's asynchronous start), how each waits (polling until the job or invocation ends) and
 * what the user reads when AWS refuses or fails.
 */
import { Readable } from 'node:stream';
import {
  BedrockRuntimeClient,
  ConverseCommand,
  GetAsyncInvokeCommand,
  InvokeModelCommand,
  StartAsyncInvokeCommand,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  BadRequestException,
  ConflictException,
  GetTranscriptionJobCommand,
  StartTranscriptionJobCommand,
  TranscribeClient,
} from '@aws-sdk/client-transcribe';
import {
  GetTerminologyCommand,
  ImportTerminologyCommand,
  ResourceNotFoundException,
  TranslateClient,
  TranslateTextCommand,
  UnsupportedLanguagePairException,
} from '@aws-sdk/client-translate';
import { sdkStreamMixin } from '@smithy/core/serde';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { resetConfig, resetModelEnginesConfig } from '../../../lambdas/core/config.js';
import { resetBedrockRuntimeClient } from '../../../lambdas/engines/bedrock-runtime.js';
import { createBedrockGenerationEngine } from '../../../lambdas/engines/generation/bedrock-generation-engine.js';
import {
  createGenerationEngine,
  resetGenerationEngine,
  videoGenerationConfigured,
} from '../../../lambdas/engines/generation/index.js';
import type { RecognitionRequest } from '../../../lambdas/engines/recognition/index.js';
import { createTranscribeRecognitionEngine } from '../../../lambdas/engines/recognition/transcribe-recognition-engine.js';
import { createBedrockTextGenerationEngine } from '../../../lambdas/engines/text-generation/bedrock-text-generation-engine.js';
import {
  createAmazonTranslateEngine,
  terminologyCsv,
  terminologyName,
} from '../../../lambdas/engines/translation/amazon-translate-engine.js';

const s3 = mockClient(S3Client);
const transcribe = mockClient(TranscribeClient);
const translate = mockClient(TranslateClient);
const bedrock = mockClient(BedrockRuntimeClient);

const body = (text: string) => sdkStreamMixin(Readable.from([Buffer.from(text)]));

beforeEach(() => {
  vi.stubEnv('TABLE_NAME', 'table');
  vi.stubEnv('AWS_REGION', 'us-east-1');
  resetConfig();
  resetModelEnginesConfig();
  resetBedrockRuntimeClient();
  for (const mock of [s3, transcribe, translate, bedrock]) mock.reset();
});

afterEach(() => {
  vi.unstubAllEnvs();
  resetConfig();
  resetModelEnginesConfig();
  resetGenerationEngine();
});

describe('Amazon Transcribe', () => {
  const request: RecognitionRequest = {
    media: { bucket: 'media-bucket', key: 'workspaces/w/assets/a/talk.mp4', mediaType: 'video/mp4' },
    runId: 'clip_123',
    workPrefix: 'workspaces/w/clips/clip_123/work/',
  };
  const RESULT = {
    jobName: 'vcs-clip_123',
    results: {
      language_code: 'en-US',
      transcripts: [{ transcript: 'Hello there, friend.' }],
      items: [
        {
          type: 'pronunciation',
          start_time: '0.04',
          end_time: '0.41',
          alternatives: [{ content: 'Hello', confidence: '0.99' }],
        },
        {
          type: 'pronunciation',
          start_time: '0.41',
          end_time: '0.8',
          alternatives: [{ content: 'there', confidence: '0.97' }],
        },
        { type: 'punctuation', alternatives: [{ content: ',', confidence: '0.0' }] },
        {
          type: 'pronunciation',
          start_time: '0.9',
          end_time: '1.35',
          alternatives: [{ content: 'friend', confidence: '0.95' }],
        },
        { type: 'punctuation', alternatives: [{ content: '.', confidence: '0.0' }] },
      ],
    },
  };

  it('starts one job on the media object, polls it until COMPLETED and reads the words from its result', async () => {
    transcribe.on(StartTranscriptionJobCommand).resolves({});
    transcribe
      .on(GetTranscriptionJobCommand)
      .resolvesOnce({ TranscriptionJob: { TranscriptionJobStatus: 'QUEUED' } })
      .resolvesOnce({ TranscriptionJob: { TranscriptionJobStatus: 'IN_PROGRESS' } })
      .resolves({ TranscriptionJob: { TranscriptionJobStatus: 'COMPLETED', LanguageCode: 'en-US' } });
    s3.on(GetObjectCommand).resolves({ Body: body(JSON.stringify(RESULT)) });

    const result = await createTranscribeRecognitionEngine({ pollIntervalMs: 5, timeoutMs: 2000 }).recognize(
      request,
    );

    expect(result).toEqual({
      engine: 'transcribe',
      language: 'en-US',
      text: 'Hello there, friend.',
      words: [
        { word: 'Hello', startMs: 40, endMs: 410, confidence: 0.99 },
        { word: 'there', startMs: 410, endMs: 800, confidence: 0.97 },
        { word: 'friend', startMs: 900, endMs: 1350, confidence: 0.95 },
      ],
    });
    expect(transcribe.commandCalls(StartTranscriptionJobCommand)[0]?.args[0].input).toEqual({
      TranscriptionJobName: 'vcs-clip_123',
      Media: { MediaFileUri: 's3://media-bucket/workspaces/w/assets/a/talk.mp4' },
      MediaFormat: 'mp4',
      IdentifyLanguage: true,
      OutputBucketName: 'media-bucket',
      OutputKey: 'workspaces/w/clips/clip_123/work/transcribe-vcs-clip_123.json',
    });
    expect(transcribe.commandCalls(GetTranscriptionJobCommand)).toHaveLength(3);
    expect(s3.commandCalls(GetObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'media-bucket',
      Key: 'workspaces/w/clips/clip_123/work/transcribe-vcs-clip_123.json',
    });
  });

  it('names the language when it is known, and waits for the job a retried step already started', async () => {
    transcribe
      .on(StartTranscriptionJobCommand)
      .rejects(new ConflictException({ message: 'exists', $metadata: {} }));
    transcribe
      .on(GetTranscriptionJobCommand)
      .resolves({ TranscriptionJob: { TranscriptionJobStatus: 'COMPLETED' } });
    s3.on(GetObjectCommand).resolves({ Body: body(JSON.stringify(RESULT)) });

    const result = await createTranscribeRecognitionEngine({ pollIntervalMs: 5, timeoutMs: 2000 }).recognize({
      ...request,
      language: 'es-ES',
    });

    expect(result.words).toHaveLength(3);
    expect(transcribe.commandCalls(StartTranscriptionJobCommand)[0]?.args[0].input).toMatchObject({
      LanguageCode: 'es-ES',
    });
    expect(transcribe.commandCalls(StartTranscriptionJobCommand)[0]?.args[0].input).not.toHaveProperty(
      'IdentifyLanguage',
    );
  });

  it('fails with Transcribe reason when the job FAILED, and gives up after its timeout', async () => {
    transcribe.on(StartTranscriptionJobCommand).resolves({});
    transcribe.on(GetTranscriptionJobCommand).resolves({
      TranscriptionJob: {
        TranscriptionJobStatus: 'FAILED',
        FailureReason: 'The media format provided does not match the detected media format.',
      },
    });
    const engine = createTranscribeRecognitionEngine({ pollIntervalMs: 5, timeoutMs: 40 });
    await expect(engine.recognize(request)).rejects.toMatchObject({
      failureCode: 'invalid_input',
      message:
        'Amazon Transcribe could not transcribe the media: The media format provided does not match the detected media format.',
    });

    transcribe
      .on(GetTranscriptionJobCommand)
      .resolves({ TranscriptionJob: { TranscriptionJobStatus: 'IN_PROGRESS' } });
    await expect(engine.recognize(request)).rejects.toMatchObject({
      failureCode: 'recognition_failed',
      message: 'Amazon Transcribe did not finish the transcription vcs-clip_123 within 40 ms',
    });
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
  });

  it('reports a request Transcribe refuses as invalid input', async () => {
    transcribe
      .on(StartTranscriptionJobCommand)
      .rejects(new BadRequestException({ message: 'bad media uri', $metadata: {} }));
    await expect(
      createTranscribeRecognitionEngine({ pollIntervalMs: 5, timeoutMs: 40 }).recognize(request),
    ).rejects.toMatchObject({
      failureCode: 'invalid_input',
      message: expect.stringContaining('bad media uri'),
    });
  });
});

describe('Amazon Translate', () => {
  const glossary = { doNotTranslate: ['Acme'], terms: [{ source: 'dashboard', target: 'panel de control' }] };

  it('translates each segment in order with the glossary as a terminology named after its content', async () => {
    translate
      .on(GetTerminologyCommand)
      .rejects(new ResourceNotFoundException({ message: 'none', $metadata: {} }));
    translate.on(ImportTerminologyCommand).resolves({});
    translate.on(TranslateTextCommand).callsFake(async ({ Text }: { Text: string }) => ({
      TranslatedText: Text.replace('Open the dashboard', 'Abre el panel de control').replace(
        'Welcome to Acme',
        'Bienvenido a Acme',
      ),
    }));

    const result = await createAmazonTranslateEngine().translate({
      segments: ['Open the dashboard.', '', 'Welcome to Acme.'],
      sourceLanguage: 'en',
      targetLanguage: 'es',
      glossary,
    });

    expect(result).toEqual({
      engine: 'translate',
      segments: ['Abre el panel de control.', '', 'Bienvenido a Acme.'],
      glossaryViolations: [],
    });
    const csv = 'en,es\ndashboard,panel de control\nAcme,Acme';
    expect(terminologyCsv(glossary, 'en', 'es')).toBe(csv);
    const name = terminologyName(csv);
    expect(name).toMatch(/^vcs-glossary-[0-9a-f]{32}$/);
    const imported = translate.commandCalls(ImportTerminologyCommand)[0]?.args[0].input;
    expect(imported).toMatchObject({
      Name: name,
      MergeStrategy: 'OVERWRITE',
      TerminologyData: { Format: 'CSV', Directionality: 'UNI' },
    });
    expect(new TextDecoder().decode(imported?.TerminologyData?.File)).toBe(csv);
    // The empty segment is not sent; the others name the terminology.
    expect(translate.commandCalls(TranslateTextCommand).map(({ args }) => args[0].input)).toEqual([
      {
        Text: 'Open the dashboard.',
        SourceLanguageCode: 'en',
        TargetLanguageCode: 'es',
        TerminologyNames: [name],
      },
      {
        Text: 'Welcome to Acme.',
        SourceLanguageCode: 'en',
        TargetLanguageCode: 'es',
        TerminologyNames: [name],
      },
    ]);
  });

  it('reuses a terminology that exists: imported once per glossary, not per call', async () => {
    translate.on(GetTerminologyCommand).resolves({ TerminologyProperties: { Name: 'x' } });
    translate.on(TranslateTextCommand).resolves({ TranslatedText: 'Hola Acme' });
    const engine = createAmazonTranslateEngine();
    const request = { segments: ['Hello Acme'], sourceLanguage: 'en', targetLanguage: 'es', glossary };

    await engine.translate(request);
    await engine.translate(request);

    expect(translate.commandCalls(ImportTerminologyCommand)).toHaveLength(0);
    // Looked up once: the process remembers the terminologies it has seen.
    expect(translate.commandCalls(GetTerminologyCommand)).toHaveLength(1);
    // Another glossary is another terminology.
    expect(terminologyName(terminologyCsv({ doNotTranslate: ['Acme'] }, 'en', 'es') ?? '')).not.toBe(
      terminologyName(terminologyCsv(glossary, 'en', 'es') ?? ''),
    );
  });

  it('says which language pair Translate cannot do', async () => {
    translate.on(TranslateTextCommand).rejects(
      new UnsupportedLanguagePairException({
        message: 'Unsupported language pair: en to xx',
        $metadata: {},
      }),
    );
    await expect(
      createAmazonTranslateEngine().translate({
        segments: ['Hello'],
        sourceLanguage: 'en',
        targetLanguage: 'tlh',
      }),
    ).rejects.toMatchObject({
      failureCode: 'language_pair_unsupported',
      message: expect.stringContaining('cannot translate from en to tlh'),
    });
  });
});

describe('Amazon Bedrock Converse', () => {
  it('sends the system text, the prompt as the one user message and the token budget, and reads the answer', async () => {
    bedrock.on(ConverseCommand).resolves({
      output: { message: { role: 'assistant', content: [{ text: '{"title": ' }, { text: '"Launch"}' }] } },
      stopReason: 'end_turn',
      usage: { inputTokens: 30, outputTokens: 8, totalTokens: 38 },
      metrics: { latencyMs: 10 },
    });

    const result = await createBedrockTextGenerationEngine({ modelId: 'amazon.nova-lite-v1:0' }).generate({
      system: 'You write titles.',
      prompt: 'A title for our launch video.',
      maxTokens: 64,
      json: z.object({ title: z.string() }),
    });

    expect(result).toMatchObject({
      engine: 'bedrock',
      model: 'amazon.nova-lite-v1:0',
      json: { title: 'Launch' },
      truncated: false,
    });
    const input = bedrock.commandCalls(ConverseCommand)[0]?.args[0].input;
    expect(input?.modelId).toBe('amazon.nova-lite-v1:0');
    expect(input?.messages).toEqual([{ role: 'user', content: [{ text: 'A title for our launch video.' }] }]);
    expect(input?.inferenceConfig).toEqual({ maxTokens: 64 });
    expect(input?.system?.[0]).toEqual({ text: 'You write titles.' });
    expect(JSON.stringify(input?.system?.[1])).toContain('JSON Schema');
  });

  it('marks an answer cut at the budget, and turns refusals and throttling into what the user can act on', async () => {
    const engine = createBedrockTextGenerationEngine({ modelId: 'amazon.nova-lite-v1:0' });
    bedrock.on(ConverseCommand).resolves({
      output: { message: { role: 'assistant', content: [{ text: 'Once upon' }] } },
      stopReason: 'max_tokens',
    });
    expect(await engine.generate({ prompt: 'Tell a story', maxTokens: 2 })).toMatchObject({
      text: 'Once upon',
      truncated: true,
    });

    bedrock.on(ConverseCommand).resolves({
      output: { message: { role: 'assistant', content: [] } },
      stopReason: 'guardrail_intervened',
    });
    await expect(engine.generate({ prompt: 'x' })).rejects.toMatchObject({
      failureCode: 'invalid_input',
      message: expect.stringContaining('guardrail'),
    });

    bedrock
      .on(ConverseCommand)
      .rejects(new ThrottlingException({ message: 'Too many requests', $metadata: {} }));
    await expect(engine.generate({ prompt: 'x' })).rejects.toMatchObject({
      failureCode: 'engine_unavailable',
      status: 503,
    });
  });
});

describe('Amazon Nova Canvas and Nova Reel', () => {
  const options = {
    imageModel: 'amazon.nova-canvas-v1:0',
    videoModel: 'amazon.nova-reel-v1:1',
    pollIntervalMs: 5,
    videoTimeoutMs: 2000,
  };

  it('asks Nova Canvas for TEXT_IMAGE with the size, count and seed, and returns its PNGs', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    bedrock.on(InvokeModelCommand).resolves({
      body: new TextEncoder().encode(
        JSON.stringify({ images: [png.toString('base64'), png.toString('base64')] }),
      ) as never,
      contentType: 'application/json',
    });

    const result = await createBedrockGenerationEngine(options).generateImage({
      prompt: 'A lighthouse at dawn',
      negativePrompt: 'people',
      width: 1024,
      height: 576,
      count: 2,
      seed: 42,
    });

    expect(result).toMatchObject({
      engine: 'bedrock',
      model: 'amazon.nova-canvas-v1:0',
      mediaType: 'image/png',
      width: 1024,
      height: 576,
    });
    expect(result.images.map((image) => Buffer.from(image))).toEqual([png, png]);
    const input = bedrock.commandCalls(InvokeModelCommand)[0]?.args[0].input;
    expect(input).toMatchObject({
      modelId: 'amazon.nova-canvas-v1:0',
      contentType: 'application/json',
      accept: 'application/json',
    });
    expect(JSON.parse(new TextDecoder().decode(input?.body as Uint8Array))).toEqual({
      taskType: 'TEXT_IMAGE',
      textToImageParams: { text: 'A lighthouse at dawn', negativeText: 'people' },
      imageGenerationConfig: {
        numberOfImages: 2,
        width: 1024,
        height: 576,
        seed: 42,
        quality: 'standard',
        cfgScale: 6.5,
      },
    });
  });

  it('asks Nova Canvas for an IMAGE_VARIATION of the pictures it is conditioned on, each fitted to its limits', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    bedrock.on(InvokeModelCommand).resolves({
      body: new TextEncoder().encode(JSON.stringify({ images: [png.toString('base64')] })) as never,
      contentType: 'application/json',
    });
    const { default: sharp } = await import('sharp');
    const picture = async (width: number, height: number) => ({
      bytes: new Uint8Array(
        await sharp({ create: { width, height, channels: 3, background: { r: 90, g: 90, b: 200 } } })
          .jpeg()
          .toBuffer(),
      ),
      mediaType: 'image/jpeg',
    });
    await createBedrockGenerationEngine(options).generateImage({
      prompt: 'The person of the portraits in the scene',
      width: 896,
      height: 1120,
      seed: 7,
      conditioning: [await picture(3000, 2000), await picture(100, 150)],
    });
    const body = JSON.parse(
      new TextDecoder().decode(bedrock.commandCalls(InvokeModelCommand)[0]?.args[0].input.body as Uint8Array),
    );
    expect(body).toMatchObject({
      taskType: 'IMAGE_VARIATION',
      imageVariationParams: { text: 'The person of the portraits in the scene', similarityStrength: 0.8 },
      imageGenerationConfig: { numberOfImages: 1, width: 896, height: 1120, seed: 7 },
    });
    const sizes = await Promise.all(
      (body.imageVariationParams.images as string[]).map(async (image) => {
        const { width, height, format } = await sharp(Buffer.from(image, 'base64')).metadata();
        return { width, height, format };
      }),
    );
    // Large pictures come down to 1408 a side at most, small ones up to 320 at least; PNG either way.
    expect(sizes).toEqual([
      { width: 1408, height: 939, format: 'png' },
      { width: 320, height: 480, format: 'png' },
    ]);
  });

  it('reports a prompt Nova Canvas refuses, and refuses sizes it cannot make before calling it', async () => {
    bedrock.on(InvokeModelCommand).rejects(
      new ValidationException({
        message: 'This request has been blocked by our content filters.',
        $metadata: {},
      }),
    );
    const engine = createBedrockGenerationEngine(options);
    await expect(engine.generateImage({ prompt: 'x' })).rejects.toMatchObject({
      failureCode: 'invalid_input',
      message: expect.stringContaining('blocked by our content filters'),
    });
    await expect(engine.generateImage({ prompt: 'x', width: 1000 })).rejects.toMatchObject({
      failureCode: 'invalid_input',
      message: 'The image width must be a multiple of 16 from 320 to 4096 pixels.',
    });
    expect(bedrock.commandCalls(InvokeModelCommand)).toHaveLength(1);
  });

  it('starts Nova Reel into the media bucket, polls until Completed and returns the video key', async () => {
    const invocationArn = 'arn:aws:bedrock:us-east-1:111122223333:async-invoke/abc123';
    bedrock.on(StartAsyncInvokeCommand).resolves({ invocationArn });
    bedrock
      .on(GetAsyncInvokeCommand)
      .resolvesOnce({ invocationArn, status: 'InProgress' } as never)
      .resolves({
        invocationArn,
        status: 'Completed',
        outputDataConfig: {
          s3OutputDataConfig: { s3Uri: 's3://media-bucket/workspaces/w/videos/v1/work/generated/abc123' },
        },
      } as never);

    const result = await createBedrockGenerationEngine(options).generateVideo({
      prompt: 'Waves rolling onto a beach at sunset',
      output: { bucket: 'media-bucket', prefix: 'workspaces/w/videos/v1/work/generated/' },
      runId: 'video_v1:scene_0',
      seed: 7,
    });

    expect(result).toEqual({
      engine: 'bedrock',
      model: 'amazon.nova-reel-v1:1',
      bucket: 'media-bucket',
      key: 'workspaces/w/videos/v1/work/generated/abc123/output.mp4',
      mediaType: 'video/mp4',
      durationSeconds: 6,
      width: 1280,
      height: 720,
    });
    expect(bedrock.commandCalls(StartAsyncInvokeCommand)[0]?.args[0].input).toEqual({
      modelId: 'amazon.nova-reel-v1:1',
      clientRequestToken: 'video-v1-scene-0',
      modelInput: {
        taskType: 'TEXT_VIDEO',
        textToVideoParams: { text: 'Waves rolling onto a beach at sunset' },
        videoGenerationConfig: { durationSeconds: 6, fps: 24, dimension: '1280x720', seed: 7 },
      },
      outputDataConfig: {
        s3OutputDataConfig: { s3Uri: 's3://media-bucket/workspaces/w/videos/v1/work/generated' },
      },
    });
    expect(bedrock.commandCalls(GetAsyncInvokeCommand).map(({ args }) => args[0].input)).toEqual([
      { invocationArn },
      { invocationArn },
    ]);
  });

  it('starts a first frame, fitted to 1280x720, as the TEXT_VIDEO image or the first MULTI_SHOT_MANUAL shot', async () => {
    bedrock.on(StartAsyncInvokeCommand).resolves({ invocationArn: 'arn:x' });
    bedrock.on(GetAsyncInvokeCommand).resolves({
      status: 'Completed',
      outputDataConfig: { s3OutputDataConfig: { s3Uri: 's3://b/p/x' } },
    } as never);
    const { default: sharp } = await import('sharp');
    const portrait = await sharp({
      create: { width: 90, height: 160, channels: 3, background: { r: 10, g: 200, b: 30 } },
    })
      .png()
      .toBuffer();
    const firstFrame = { bytes: new Uint8Array(portrait), mediaType: 'image/png' };
    const request = {
      prompt: 'The field sways',
      output: { bucket: 'b', prefix: 'p' },
      runId: 'r',
      firstFrame,
    };
    const engine = createBedrockGenerationEngine(options);
    await engine.generateVideo({ ...request, frame: { width: 1344, height: 768 } });
    await engine.generateVideo({ ...request, durationSeconds: 12, frame: { width: 840, height: 480 } });
    const [single, shots] = bedrock
      .commandCalls(StartAsyncInvokeCommand)
      .map(({ args }) => args[0].input.modelInput as unknown);
    const image = (
      single as { textToVideoParams: { images: { format: string; source: { bytes: string } }[] } }
    ).textToVideoParams.images[0];
    expect(image?.format).toBe('png');
    expect(await sharp(Buffer.from(image?.source.bytes ?? '', 'base64')).metadata()).toMatchObject({
      width: 1280,
      height: 720,
    });
    expect(shots).toMatchObject({
      taskType: 'MULTI_SHOT_MANUAL',
      multiShotManualParams: { shots: [{ text: 'The field sways', image }, { text: 'The field sways' }] },
      videoGenerationConfig: { fps: 24, dimension: '1280x720', seed: 0 },
    });
  });

  it('refuses what Nova Reel cannot film, engine_unavailable before invoking anything', async () => {
    const engine = createBedrockGenerationEngine(options);
    const request = { prompt: 'A kite', output: { bucket: 'b', prefix: 'p' }, runId: 'r' };
    await expect(
      engine.generateVideo({ ...request, references: { images: ['k1'], videos: [], audio: [] } }),
    ).rejects.toMatchObject({
      failureCode: 'engine_unavailable',
      message: expect.stringContaining('no reference-to-video mode'),
    });
    for (const frame of [
      { width: 1890, height: 1080 },
      { width: 768, height: 1344 },
      { width: 1024, height: 768 },
    ]) {
      await expect(engine.generateVideo({ ...request, frame })).rejects.toMatchObject({
        failureCode: 'engine_unavailable',
        message: expect.stringContaining(`a ${frame.width}x${frame.height} frame needs a video engine`),
      });
    }
    expect(bedrock.commandCalls(StartAsyncInvokeCommand)).toHaveLength(0);
  });

  it('fails with Nova Reel reason, or after the timeout', async () => {
    bedrock.on(StartAsyncInvokeCommand).resolves({ invocationArn: 'arn:x' });
    bedrock
      .on(GetAsyncInvokeCommand)
      .resolves({ status: 'Failed', failureMessage: 'Internal error while generating' } as never);
    const request = { prompt: 'Waves', output: { bucket: 'b', prefix: 'p' }, runId: 'r' };
    await expect(createBedrockGenerationEngine(options).generateVideo(request)).rejects.toMatchObject({
      failureCode: 'media_generation_failed',
      message: 'Nova Reel could not make the video: Internal error while generating',
    });
    bedrock.on(GetAsyncInvokeCommand).resolves({ status: 'InProgress' } as never);
    await expect(
      createBedrockGenerationEngine({ ...options, videoTimeoutMs: 30 }).generateVideo(request),
    ).rejects.toMatchObject({
      failureCode: 'media_generation_failed',
      message: expect.stringContaining('did not finish the video within 30 ms'),
    });
  });

  it('is chosen by MEDIA_GENERATION_ENGINE=bedrock, which is what makes video generation configured', () => {
    expect(videoGenerationConfigured()).toBe(false);
    vi.stubEnv('MEDIA_GENERATION_ENGINE', 'bedrock');
    resetModelEnginesConfig();
    expect(createGenerationEngine().name).toBe('bedrock');
    expect(videoGenerationConfigured()).toBe(true);
    vi.stubEnv('MEDIA_GENERATION_VIDEO_MODEL', '');
    resetModelEnginesConfig();
    expect(videoGenerationConfigured()).toBe(false);
  });
});
