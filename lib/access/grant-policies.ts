/**
 * What each grant (`lambdas/core/grants.ts`) allows, as IAM statements in plain data: the one
 * description both the CDK stack deploys (`lib/stack/grant-statements.ts` wraps each statement in a
 * `PolicyStatement`, the ARNs being CloudFormation tokens) and the local stack enforces
 * (`lib/local/access-enforcement.ts`, the ARNs being the emulators' own).
 *
 * Explicit statements rather than CDK `grant*` helpers, which add wildcard actions
 * (`kms:GenerateDataKey*`, `s3:GetObject*`) and resources (`<table>/index/*`) this service does not need.
 *
 * Customer-managed keys (a workspace's own KMS key) are data: any key of the stack's region may be
 * set by an administrator, in this account or another, so KMS permissions name
 * `arn:<partition>:kms:<region>:*:key/*` and are narrowed by conditions instead of by ARN:
 * - the encryption setup's own KMS calls only with the encryption context
 *   `purpose = workspace-encryption-setup-check`, so those roles cannot decrypt anything else;
 * - S3 uses the key on the role's behalf only through S3 in this region (`kms:ViaService`);
 * - `kms:DescribeKey` (metadata only: state, spec, usage) is the one call without a condition; it has
 *   no context and is not made through another service.
 * The key's own key policy is the second gate: a key of another account must allow this account.
 */
import { CATALOG_PREFIX } from '../../lambdas/catalog/catalog-keys.js';
import {
  DEFAULT_BEDROCK_TEXT_MODEL,
  DEFAULT_NOVA_CANVAS_MODEL,
  DEFAULT_NOVA_REEL_MODEL,
} from '../../lambdas/core/config.js';
import { GRANTS, type Grant } from '../../lambdas/core/grants.js';
import { TABLE_SCHEMA } from '../../lambdas/core/table-schema.js';
import { encryptionCheckPrefix, SETUP_CHECK_PURPOSE } from '../../lambdas/encryption/setup-steps.js';
import type { ModelEngineOptions, SpeechEngine } from '../stack/service-options.js';

/** An IAM condition block: operator → condition key → value(s). */
export type StatementConditions = Readonly<
  Record<string, Readonly<Record<string, string | readonly string[]>>>
>;

/** One `Allow` statement of an identity policy. */
export interface GrantStatement {
  readonly actions: readonly string[];
  readonly resources: readonly string[];
  readonly conditions?: StatementConditions;
}

/**
 * The resources grants name, as ARN strings: CloudFormation tokens in the CDK stack, the emulators'
 * ARNs in the local stack.
 */
export interface GrantResources {
  partition: string;
  region: string;
  /** `amazonaws.com` in the commercial partition: the suffix of service endpoints. */
  urlSuffix: string;
  tableArn: string;
  /** Encrypts the queues, media without a workspace key, and webhook endpoint secrets. */
  stackKeyArn: string;
  /** Signs pagination cursors. */
  cursorKeyArn: string;
  mediaBucketArn: string;
  eventBusArn: string;
  batchQueueArn: string;
  webhookQueueArn: string;
  webhookDeadLetterQueueArn: string;
  realtimeQueueArn: string;
  /** The job workflows; empty for functions the workflows are built from (nothing to start). */
  jobWorkflowArns: readonly string[];
  /** With `polly`, `synthesizeSpeech` is Amazon Polly; other engines need no grant. */
  speechEngine: SpeechEngine;
  /**
   * The model capabilities' engines (`recognizeSpeech`, `translateText`, `generateText`,
   * `generateMedia` grant what these call). @default every capability off: those grants allow nothing
   */
  modelEngines?: ModelEngineOptions;
  /** The account, for ARNs of its own resources (secrets, terminologies). @default '*' */
  account?: string;
}

/** What S3 and SQS need from the caller to use the stack key on its behalf (SSE-KMS). */
export const ENVELOPE_KEY_ACTIONS = ['kms:GenerateDataKey', 'kms:Decrypt'] as const;

/** Every workspace's media lives under `workspaces/<workspace_id>/` (lambdas/media/media-keys.ts). */
export const WORKSPACE_MEDIA_PREFIX = 'workspaces/';

/** Item-level table access: what the repository, rate limiter and idempotency store call. */
const TABLE_ITEM_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
];

/** What an event source mapping calls, with the function's role, to consume a queue. */
const QUEUE_CONSUMER_ACTIONS = [
  'sqs:ReceiveMessage',
  'sqs:DeleteMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueAttributes',
];

/** Every webhook secret's ciphertext names its endpoint in the encryption context. */
const WEBHOOK_SECRET_CONTEXT = { Null: { 'kms:EncryptionContext:webhook_endpoint_id': 'false' } };

const allow = (
  actions: readonly string[],
  resources: readonly string[],
  conditions?: StatementConditions,
): GrantStatement => ({ actions, resources, ...(conditions ? { conditions } : {}) });

/** Every customer-managed key a workspace may name: keys of the stack's region, in any account. */
export const customerKeyArns = ({ partition, region }: GrantResources) =>
  `arn:${partition}:kms:${region}:*:key/*`;

/** Only through the named service of the stack's region: how S3 and SQS use a key for the caller. */
export const viaService = (service: 's3' | 'sqs', { region, urlSuffix }: GrantResources) =>
  `${service}.${region}.${urlSuffix}`;

const via = (service: 's3' | 'sqs', resources: GrantResources): StatementConditions => ({
  StringEquals: { 'kms:ViaService': viaService(service, resources) },
});

export const objectsUnder = (resources: GrantResources, prefix: string) =>
  `${resources.mediaBucketArn}/${prefix}*`;

/** Workspaces with their own key: each media write checks the key's state first, and S3 uses it. */
const customerKeysThroughS3 = (resources: GrantResources) => [
  allow(['kms:DescribeKey'], [customerKeyArns(resources)]),
  allow(ENVELOPE_KEY_ACTIONS, [customerKeyArns(resources)], via('s3', resources)),
];

/**
 * A queue's event source mapping polls with the function's role. Messages are encrypted with the
 * stack key; SQS uses it for the role, and nothing else may (unlike the unconditioned kms:Decrypt
 * `SqsEventSource` grants, which would let the function decrypt anything the stack key holds).
 */
const queueConsumer = (queueArn: string, resources: GrantResources) => [
  allow(QUEUE_CONSUMER_ACTIONS, [queueArn]),
  allow(ENVELOPE_KEY_ACTIONS, [resources.stackKeyArn], via('sqs', resources)),
];

/**
 * The secret an OpenAI-compatible engine reads its API key from: by name, any version of the secret
 * (Secrets Manager adds six random characters to a secret's ARN); by ARN, that secret.
 */
export function apiKeySecretArns(
  secret: string,
  { partition, region, account = '*' }: GrantResources,
): string[] {
  if (secret.startsWith('arn:')) return [secret, `${secret}-??????`];
  return [`arn:${partition}:secretsmanager:${region}:${account}:secret:${secret}-??????`];
}

/**
 * What IAM checks when a Bedrock model is invoked: the foundation model in this region, or for a
 * cross-region inference profile (`us.amazon.nova-lite-v1:0`) the profile and the model in every
 * region it routes to.
 */
export function bedrockModelArns(
  modelId: string,
  { partition, region, account = '*' }: GrantResources,
): string[] {
  if (modelId.startsWith('arn:')) return [modelId];
  const profile = /^(us|us-gov|eu|apac|jp|au|global)\.(.+)$/.exec(modelId);
  if (profile) {
    return [
      `arn:${partition}:bedrock:${region}:${account}:inference-profile/${modelId}`,
      `arn:${partition}:bedrock:*::foundation-model/${profile[2]}`,
    ];
  }
  return [`arn:${partition}:bedrock:${region}::foundation-model/${modelId}`];
}

/** Glossaries become Amazon Translate terminologies named after their content (amazon-translate-engine.ts). */
export const GLOSSARY_TERMINOLOGY_PREFIX = 'vcs-glossary-';

/** The API key secret of an OpenAI-compatible engine, when the capability uses one. */
function modelServerSecret(
  option: { engine: string; apiKeySecret: string },
  resources: GrantResources,
): GrantStatement[] {
  return option.engine === 'openai' && option.apiKeySecret
    ? [allow(['secretsmanager:GetSecretValue'], apiKeySecretArns(option.apiKeySecret, resources))]
    : [];
}

/** What each model capability's engine calls (nothing for `none`, `local`, or a server without a key secret). */
function modelEnginePolicy(grant: Grant, resources: GrantResources): GrantStatement[] {
  const engines = resources.modelEngines;
  if (!engines) return [];
  const { partition, region, account = '*' } = resources;
  switch (grant) {
    case GRANTS.recognizeSpeech:
      // Transcribe's batch jobs take no resource-level permissions. Transcribe reads the media and writes
      // its result with the caller's access to the bucket: the step's `jobMedia` grant.
      return engines.speechRecognition.engine === 'transcribe'
        ? [allow(['transcribe:StartTranscriptionJob', 'transcribe:GetTranscriptionJob'], ['*'])]
        : modelServerSecret(engines.speechRecognition, resources);
    case GRANTS.translateText:
      return engines.translation.engine === 'translate'
        ? [
            // TranslateText names no resource of its own (a terminology only through TerminologyNames).
            allow(['translate:TranslateText'], ['*']),
            allow(
              ['translate:GetTerminology', 'translate:ImportTerminology'],
              [`arn:${partition}:translate:${region}:${account}:terminology/${GLOSSARY_TERMINOLOGY_PREFIX}*`],
            ),
          ]
        : modelServerSecret(engines.translation, resources);
    case GRANTS.generateText:
      return engines.textGeneration.engine === 'bedrock'
        ? [
            // Converse is authorized as bedrock:InvokeModel on the model.
            allow(
              ['bedrock:InvokeModel'],
              bedrockModelArns(engines.textGeneration.model || DEFAULT_BEDROCK_TEXT_MODEL, resources),
            ),
          ]
        : modelServerSecret(engines.textGeneration, resources);
    case GRANTS.generateMedia: {
      const media = engines.mediaGeneration;
      if (media.engine === 'openai') return modelServerSecret(media, resources);
      if (media.engine !== 'bedrock') return [];
      const models = [
        media.imageModel || DEFAULT_NOVA_CANVAS_MODEL,
        media.videoModel || DEFAULT_NOVA_REEL_MODEL,
      ];
      return [
        // InvokeModel (Nova Canvas) and StartAsyncInvoke (Nova Reel, authorized as InvokeModel); Bedrock
        // writes the video with the caller's access to the bucket: the step's `jobMedia` grant.
        allow(
          ['bedrock:InvokeModel'],
          models.flatMap((model) => bedrockModelArns(model, resources)),
        ),
        allow(['bedrock:GetAsyncInvoke'], [`arn:${partition}:bedrock:${region}:${account}:async-invoke/*`]),
      ];
    }
    default:
      return [];
  }
}

export function grantPolicy(grant: Grant, resources: GrantResources): GrantStatement[] {
  const { tableArn, stackKeyArn, mediaBucketArn } = resources;
  const stackKeyEnvelopes = allow(ENVELOPE_KEY_ACTIONS, [stackKeyArn]);
  switch (grant) {
    case GRANTS.readCredentials:
      return [allow(['dynamodb:GetItem'], [tableArn])];
    case GRANTS.tableItems:
      return [
        allow(TABLE_ITEM_ACTIONS, [tableArn, `${tableArn}/index/${TABLE_SCHEMA.gsi1.indexName}`]),
        allow(['kms:GenerateMac'], [resources.cursorKeyArn]),
      ];
    case GRANTS.workspaceItems:
      return [allow(['dynamodb:GetItem', 'dynamodb:UpdateItem'], [tableArn])];
    case GRANTS.jobItems:
      // The table only, not its index: steps address items by key; TransactWriteItems (credits) is
      // authorized per item by the actions of its parts.
      return [allow([...TABLE_ITEM_ACTIONS, 'dynamodb:ConditionCheckItem'], [tableArn])];
    case GRANTS.webhookDeliveryItems:
      // BatchWriteItem: a fan-out records its deliveries and marks its event done in one batch
      // (`recordDeliveries` / `completeFanOut` in lambdas/webhooks/deliveries.ts); it only puts, and
      // IAM authorizes a batch's puts by this action alone.
      return [
        allow(
          [
            'dynamodb:GetItem',
            'dynamodb:Query',
            'dynamodb:PutItem',
            'dynamodb:UpdateItem',
            'dynamodb:BatchWriteItem',
          ],
          [tableArn],
        ),
      ];
    case GRANTS.webhookSecrets:
      return [allow(['kms:Encrypt', 'kms:Decrypt'], [stackKeyArn], WEBHOOK_SECRET_CONTEXT)];
    case GRANTS.openWebhookSecrets:
      return [allow(['kms:Decrypt'], [stackKeyArn], WEBHOOK_SECRET_CONTEXT)];
    case GRANTS.media:
      return [
        allow(
          ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
          [objectsUnder(resources, '')],
        ),
        // Lets HeadObject on a missing key answer 404 instead of 403.
        allow(['s3:ListBucket'], [mediaBucketArn]),
        stackKeyEnvelopes,
        ...customerKeysThroughS3(resources),
      ];
    case GRANTS.jobMedia:
      return [
        allow(
          ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
          [objectsUnder(resources, WORKSPACE_MEDIA_PREFIX)],
        ),
        // Stock avatar portraits (the catalog publisher writes them).
        allow(['s3:GetObject'], [objectsUnder(resources, CATALOG_PREFIX)]),
        allow(['s3:ListBucket'], [mediaBucketArn], {
          StringLike: { 's3:prefix': [`${WORKSPACE_MEDIA_PREFIX}*`] },
        }),
        // Media of workspaces without a key of their own, and the catalog: the stack key.
        stackKeyEnvelopes,
        ...customerKeysThroughS3(resources),
      ];
    case GRANTS.catalogMedia:
      return [
        // HeadObject (is the object there at its current version?) is authorized as s3:GetObject.
        allow(['s3:GetObject', 's3:PutObject'], [objectsUnder(resources, CATALOG_PREFIX)]),
        // Without it, HeadObject on a missing object answers 403 instead of 404, and the first
        // publish could not tell "missing" from "forbidden".
        allow(['s3:ListBucket'], [mediaBucketArn]),
        stackKeyEnvelopes,
      ];
    case GRANTS.mediaPrefixCheck:
      return [
        allow(
          ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'],
          [objectsUnder(resources, encryptionCheckPrefix('*'))],
        ),
        // S3 generates the object's data key under the customer key on the caller's behalf.
        allow(['kms:GenerateDataKey'], [customerKeyArns(resources)], via('s3', resources)),
      ];
    case GRANTS.describeCustomerKeys:
      return [allow(['kms:DescribeKey'], [customerKeyArns(resources)])];
    case GRANTS.checkCustomerKeys:
      return [
        allow(['kms:GenerateDataKey', 'kms:Encrypt', 'kms:Decrypt'], [customerKeyArns(resources)], {
          StringEquals: { 'kms:EncryptionContext:purpose': SETUP_CHECK_PURPOSE },
        }),
      ];
    case GRANTS.publishEvents:
      return [allow(['events:PutEvents'], [resources.eventBusArn])];
    case GRANTS.startWorkflows:
      return resources.jobWorkflowArns.length === 0
        ? []
        : [allow(['states:StartExecution'], resources.jobWorkflowArns)];
    case GRANTS.sendBatchItems:
      return [allow(['sqs:SendMessage'], [resources.batchQueueArn]), stackKeyEnvelopes];
    case GRANTS.consumeBatchItems:
      return queueConsumer(resources.batchQueueArn, resources);
    case GRANTS.sendWebhooks:
      return [allow(['sqs:SendMessage'], [resources.webhookQueueArn]), stackKeyEnvelopes];
    case GRANTS.consumeWebhooks:
      return [
        allow(['sqs:SendMessage'], [resources.webhookQueueArn, resources.webhookDeadLetterQueueArn]),
        ...queueConsumer(resources.webhookQueueArn, resources),
      ];
    case GRANTS.sendRealtimeStreams:
      return [allow(['sqs:SendMessage'], [resources.realtimeQueueArn]), stackKeyEnvelopes];
    case GRANTS.consumeRealtimeStreams:
      // The workers poll the queue themselves (no event source mapping): receive and delete, with the
      // stack key used by SQS on their behalf only.
      return [
        allow(['sqs:ReceiveMessage', 'sqs:DeleteMessage'], [resources.realtimeQueueArn]),
        allow(ENVELOPE_KEY_ACTIONS, [stackKeyArn], via('sqs', resources)),
      ];
    case GRANTS.synthesizeSpeech:
      // What the Amazon Polly speech engine calls (lambdas/engines/speech/polly-engine.ts).
      return resources.speechEngine === 'polly'
        ? [allow(['polly:SynthesizeSpeech', 'polly:DescribeVoices'], ['*'])]
        : [];
    case GRANTS.recognizeSpeech:
    case GRANTS.translateText:
    case GRANTS.generateText:
    case GRANTS.generateMedia:
      return modelEnginePolicy(grant, resources);
  }
}

/** Every statement of a function's grants, in order. */
export function grantsPolicy(grants: readonly Grant[], resources: GrantResources): GrantStatement[] {
  return grants.flatMap((grant) => grantPolicy(grant, resources));
}
