/**
 * The model capabilities' deploy options (speechRecognition, translation, textGeneration,
 * mediaGeneration): validated like every option, turned into the runtime's environment variables, and
 * into least-privilege grants that only exist when the option enables an AWS engine (or names an API
 * key secret).
 */
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { GRANTS } from '../../lambdas/core/grants.js';
import { sdkCommandsOf } from '../../lib/access/bundle-calls.js';
import { type GrantResources, grantPolicy } from '../../lib/access/grant-policies.js';
import { matchesWildcard } from '../../lib/access/policy-evaluation.js';
import { requiredActions } from '../../lib/access/sdk-calls.js';
import { MODEL_ENGINE_GRANTS, modelEngineEnvironment } from '../../lib/stack/model-engines.js';
import { NO_MODEL_ENGINES, serviceOptionsFromContext } from '../../lib/stack/service-options.js';

const optionsFrom = (context: Record<string, unknown>) =>
  serviceOptionsFromContext(new App({ context }).node);

const RESOURCES: GrantResources = {
  partition: 'aws',
  region: 'eu-west-1',
  urlSuffix: 'amazonaws.com',
  account: '111122223333',
  tableArn: 'arn:aws:dynamodb:eu-west-1:111122223333:table/t',
  stackKeyArn: 'arn:aws:kms:eu-west-1:111122223333:key/stack',
  cursorKeyArn: 'arn:aws:kms:eu-west-1:111122223333:key/cursor',
  mediaBucketArn: 'arn:aws:s3:::media',
  eventBusArn: 'arn:aws:events:eu-west-1:111122223333:event-bus/bus',
  batchQueueArn: 'arn:aws:sqs:eu-west-1:111122223333:batch',
  webhookQueueArn: 'arn:aws:sqs:eu-west-1:111122223333:webhook',
  webhookDeadLetterQueueArn: 'arn:aws:sqs:eu-west-1:111122223333:webhook-dlq',
  realtimeQueueArn: 'arn:aws:sqs:eu-west-1:111122223333:realtime',
  jobWorkflowArns: [],
  speechEngine: 'espeak',
};

describe('model engine options', () => {
  it('are all off by default', () => {
    expect(optionsFrom({}).modelEngines).toEqual(NO_MODEL_ENGINES);
  });

  it('read objects, JSON strings from -c, and bare engine names', () => {
    const { modelEngines } = optionsFrom({
      speechRecognition: { engine: 'transcribe' },
      translation:
        '{"engine": "openai", "baseUrl": "https://llm.example.com/v1", "model": "qwen2.5", "apiKeySecret": "video/llm-key"}',
      textGeneration: 'bedrock',
      mediaGeneration: { engine: 'bedrock', videoModel: 'amazon.nova-reel-v1:0' },
    });
    expect(modelEngines.speechRecognition.engine).toBe('transcribe');
    expect(modelEngines.translation).toMatchObject({
      engine: 'openai',
      baseUrl: 'https://llm.example.com/v1',
      model: 'qwen2.5',
      apiKeySecret: 'video/llm-key',
    });
    expect(modelEngines.textGeneration.engine).toBe('bedrock');
    expect(modelEngines.mediaGeneration).toMatchObject({
      engine: 'bedrock',
      videoModel: 'amazon.nova-reel-v1:0',
    });
  });

  it('report every problem at once, by option and field', () => {
    expect(() =>
      optionsFrom({
        speechRecognition: { engine: 'whisper' },
        translation: { engine: 'apertium' },
        textGeneration: { engine: 'openai', baseUrl: 'http://10.0.0.4:8000/v1' },
        mediaGeneration: { engine: 'bedrock', baseUrl: 'https://x.example.com', colour: 'red' },
      }),
    ).toThrow(
      [
        '  - speechRecognition.engine must be one of none, openai, transcribe, got "whisper"',
        '  - translation.engine must be one of none, openai, translate, got "apertium" (the Lambda runtime has no apertium binary)',
        '  - textGeneration.baseUrl must be the https:// URL of the OpenAI-compatible server when textGeneration.engine is openai, got "http://10.0.0.4:8000/v1"',
        '  - mediaGeneration.colour is not an option (engine, baseUrl, model, apiKeySecret, imageModel, videoModel)',
        '  - mediaGeneration.baseUrl and mediaGeneration.apiKeySecret only apply to engine openai',
      ].join('\n'),
    );
    expect(() => optionsFrom({ textGeneration: { engine: 'test-double' } })).toThrow(
      /textGeneration\.engine must be one of/,
    );
  });

  it('become the environment variables the runtime reads, for the capabilities a function uses', () => {
    const { modelEngines } = optionsFrom({
      speechRecognition: {
        engine: 'openai',
        baseUrl: 'https://whisper.example.com/v1',
        apiKeySecret: 'video/whisper',
      },
      mediaGeneration: { engine: 'bedrock' },
    });
    expect(modelEngineEnvironment(modelEngines, ['speechRecognition', 'mediaGeneration'])).toEqual({
      SPEECH_RECOGNITION_ENGINE: 'openai',
      SPEECH_RECOGNITION_BASE_URL: 'https://whisper.example.com/v1',
      SPEECH_RECOGNITION_API_KEY_SECRET: 'video/whisper',
      MEDIA_GENERATION_ENGINE: 'bedrock',
    });
    expect(modelEngineEnvironment(modelEngines, ['translation'])).toEqual({ TRANSLATION_ENGINE: 'none' });
  });
});

describe('model engine grants', () => {
  const policy = (context: Record<string, unknown>, capability: keyof typeof MODEL_ENGINE_GRANTS) =>
    grantPolicy(MODEL_ENGINE_GRANTS[capability], {
      ...RESOURCES,
      modelEngines: optionsFrom(context).modelEngines,
    });

  it('allow nothing while a capability is off, or when it needs no AWS call', () => {
    for (const capability of Object.keys(MODEL_ENGINE_GRANTS) as (keyof typeof MODEL_ENGINE_GRANTS)[]) {
      expect(policy({}, capability), capability).toEqual([]);
    }
    expect(policy({ textGeneration: 'local' }, 'textGeneration')).toEqual([]);
    expect(
      policy(
        { textGeneration: { engine: 'openai', baseUrl: 'https://llm.example.com/v1' } },
        'textGeneration',
      ),
    ).toEqual([]);
    expect(grantPolicy(GRANTS.generateMedia, RESOURCES)).toEqual([]);
  });

  it('Transcribe: start and read transcription jobs', () => {
    expect(policy({ speechRecognition: 'transcribe' }, 'speechRecognition')).toEqual([
      { actions: ['transcribe:StartTranscriptionJob', 'transcribe:GetTranscriptionJob'], resources: ['*'] },
    ]);
  });

  it('Translate: translate, and import and read only the glossary terminologies', () => {
    expect(policy({ translation: 'translate' }, 'translation')).toEqual([
      { actions: ['translate:TranslateText'], resources: ['*'] },
      {
        actions: ['translate:GetTerminology', 'translate:ImportTerminology'],
        resources: ['arn:aws:translate:eu-west-1:111122223333:terminology/vcs-glossary-*'],
      },
    ]);
  });

  it('Bedrock: invoke only the configured models, and read only async invocations', () => {
    expect(policy({ textGeneration: 'bedrock' }, 'textGeneration')).toEqual([
      {
        actions: ['bedrock:InvokeModel'],
        resources: ['arn:aws:bedrock:eu-west-1::foundation-model/amazon.nova-lite-v1:0'],
      },
    ]);
    expect(
      policy({ textGeneration: { engine: 'bedrock', model: 'eu.amazon.nova-pro-v1:0' } }, 'textGeneration'),
    ).toEqual([
      {
        actions: ['bedrock:InvokeModel'],
        resources: [
          'arn:aws:bedrock:eu-west-1:111122223333:inference-profile/eu.amazon.nova-pro-v1:0',
          'arn:aws:bedrock:*::foundation-model/amazon.nova-pro-v1:0',
        ],
      },
    ]);
    expect(policy({ mediaGeneration: 'bedrock' }, 'mediaGeneration')).toEqual([
      {
        actions: ['bedrock:InvokeModel'],
        resources: [
          'arn:aws:bedrock:eu-west-1::foundation-model/amazon.nova-canvas-v1:0',
          'arn:aws:bedrock:eu-west-1::foundation-model/amazon.nova-reel-v1:1',
        ],
      },
      {
        actions: ['bedrock:GetAsyncInvoke'],
        resources: ['arn:aws:bedrock:eu-west-1:111122223333:async-invoke/*'],
      },
    ]);
  });

  it('an OpenAI-compatible server key: only the named secret', () => {
    expect(
      policy(
        {
          translation: {
            engine: 'openai',
            baseUrl: 'https://llm.example.com/v1',
            apiKeySecret: 'video/llm-key',
          },
        },
        'translation',
      ),
    ).toEqual([
      {
        actions: ['secretsmanager:GetSecretValue'],
        resources: ['arn:aws:secretsmanager:eu-west-1:111122223333:secret:video/llm-key-??????'],
      },
    ]);
    // An OpenAI-compatible images server: its key's secret, and no Bedrock at all.
    expect(
      policy(
        {
          mediaGeneration: {
            engine: 'openai',
            baseUrl: 'https://images.example.com/v1',
            apiKeySecret: 'video/images-key',
          },
        },
        'mediaGeneration',
      ),
    ).toEqual([
      {
        actions: ['secretsmanager:GetSecretValue'],
        resources: ['arn:aws:secretsmanager:eu-west-1:111122223333:secret:video/images-key-??????'],
      },
    ]);
  });
});

describe('what the engines can call, against their grants', () => {
  // What the deploy preflight does for a function that runs these engines (lib/preflight/role-coverage.ts).
  const cases = [
    {
      capability: 'speechRecognition',
      module: 'engines/recognition/index',
      exportName: 'speechRecognitionEngine',
      engine: 'transcribe',
    },
    {
      capability: 'translation',
      module: 'engines/translation/index',
      exportName: 'translationEngine',
      engine: 'translate',
    },
    {
      capability: 'textGeneration',
      module: 'engines/text-generation/index',
      exportName: 'textGenerationEngine',
      engine: 'bedrock',
    },
    {
      capability: 'mediaGeneration',
      module: 'engines/generation/index',
      exportName: 'generationEngine',
      engine: 'bedrock',
    },
  ] as const;

  it.each(cases)(
    '$capability: every AWS call of its engines but S3 is allowed by its grant',
    ({ capability, module, exportName, engine }) => {
      const commands = sdkCommandsOf(process.cwd(), { module, exportName }).filter(
        ({ service }) => service !== 's3',
      );
      expect(commands.length).toBeGreaterThan(0);
      const allowed = grantPolicy(MODEL_ENGINE_GRANTS[capability], {
        ...RESOURCES,
        modelEngines: { ...NO_MODEL_ENGINES, [capability]: { ...NO_MODEL_ENGINES[capability], engine } },
      }).flatMap(({ actions }) => actions);
      for (const { service, operation, command } of commands) {
        for (const anyOf of requiredActions(service, operation)) {
          expect(
            anyOf.some((action) => allowed.some((granted) => matchesWildcard(granted, action, true))),
            command,
          ).toBe(true);
        }
      }
    },
  );
});
