/**
 * The one place grants (`lambdas/core/grants.ts`) become IAM statements, with the cdk-nag
 * acknowledgements their wildcards need. Written as explicit statements rather than CDK `grant*`
 * helpers, which add wildcard actions (`kms:GenerateDataKey*`, `s3:GetObject*`) and resources
 * (`<table>/index/*`) this service does not need.
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
import { Aws, Stack, Validations } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { CATALOG_PREFIX } from '../../lambdas/catalog/catalog-keys.js';
import { GRANTS, type Grant } from '../../lambdas/core/grants.js';
import { TABLE_SCHEMA } from '../../lambdas/core/table-schema.js';
import { encryptionCheckPrefix, SETUP_CHECK_PURPOSE } from '../../lambdas/encryption/setup-steps.js';
import type { QueueWithDeadLetters } from './messaging.js';
import { TRACING_WILDCARD_ACKNOWLEDGEMENT, withWildcardReasons } from './service-function.js';
import type { SpeechEngine } from './service-options.js';

/** The resources grants name. */
export interface GrantTargets {
  table: Table;
  /** Encrypts the queues, media without a workspace key, and webhook endpoint secrets. */
  stackKey: IKey;
  /** Signs pagination cursors. */
  cursorKey: IKey;
  mediaBucket: Bucket;
  eventBus: IEventBus;
  batchQueue: QueueWithDeadLetters;
  webhookQueue: QueueWithDeadLetters;
  /** The job workflows; empty for functions the workflows are built from (nothing to start). */
  jobWorkflows: readonly IStateMachine[];
  /** With `polly`, `synthesizeSpeech` is Amazon Polly; other engines need no grant. */
  speechEngine: SpeechEngine;
}

/** What S3 and SQS need from the caller to use the stack key on its behalf (SSE-KMS). */
const ENVELOPE_KEY_ACTIONS = ['kms:GenerateDataKey', 'kms:Decrypt'];

/** Every customer-managed key a workspace may name: keys of the stack's region, in any account. */
const customerKeyArns = () => `arn:${Aws.PARTITION}:kms:${Aws.REGION}:*:key/*`;

/** Only through the named service of the stack's region: how S3 and SQS use a key for the caller. */
const via = (service: 's3' | 'sqs') => ({
  StringEquals: { 'kms:ViaService': `${service}.${Aws.REGION}.${Aws.URL_SUFFIX}` },
});

/** Every webhook secret's ciphertext names its endpoint in the encryption context. */
const WEBHOOK_SECRET_CONTEXT = { Null: { 'kms:EncryptionContext:webhook_endpoint_id': 'false' } };

/** Every workspace's media lives under `workspaces/<workspace_id>/` (lambdas/media/media-keys.ts). */
const WORKSPACE_MEDIA_PREFIX = 'workspaces/';

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

const statement = (
  actions: readonly string[],
  resources: readonly string[],
  conditions?: Record<string, Record<string, unknown>>,
) =>
  new PolicyStatement({
    actions: [...actions],
    resources: [...resources],
    ...(conditions ? { conditions } : {}),
  });

/** Workspaces with their own key: each media write checks the key's state first, and S3 uses it. */
const customerKeysThroughS3 = () => [
  statement(['kms:DescribeKey'], [customerKeyArns()]),
  statement(ENVELOPE_KEY_ACTIONS, [customerKeyArns()], via('s3')),
];

export function grantStatements(grant: Grant, targets: GrantTargets): PolicyStatement[] {
  const { table, stackKey, mediaBucket } = targets;
  const stackKeyEnvelopes = statement(ENVELOPE_KEY_ACTIONS, [stackKey.keyArn]);
  switch (grant) {
    case GRANTS.tableItems:
      return [
        statement(TABLE_ITEM_ACTIONS, [
          table.tableArn,
          `${table.tableArn}/index/${TABLE_SCHEMA.gsi1.indexName}`,
        ]),
        statement(['kms:GenerateMac'], [targets.cursorKey.keyArn]),
      ];
    case GRANTS.workspaceItems:
      return [statement(['dynamodb:GetItem', 'dynamodb:UpdateItem'], [table.tableArn])];
    case GRANTS.jobItems:
      // The table only, not its index: steps address items by key; TransactWriteItems (credits) is
      // authorized per item by the actions of its parts.
      return [statement([...TABLE_ITEM_ACTIONS, 'dynamodb:ConditionCheckItem'], [table.tableArn])];
    case GRANTS.webhookDeliveryItems:
      // BatchWriteItem: a fan-out records its deliveries and marks its event done in one batch
      // (`recordDeliveries` / `completeFanOut` in lambdas/webhooks/deliveries.ts); it only puts, and
      // IAM authorizes a batch's puts by this action alone.
      return [
        statement(
          [
            'dynamodb:GetItem',
            'dynamodb:Query',
            'dynamodb:PutItem',
            'dynamodb:UpdateItem',
            'dynamodb:BatchWriteItem',
          ],
          [table.tableArn],
        ),
      ];
    case GRANTS.webhookSecrets:
      return [statement(['kms:Encrypt', 'kms:Decrypt'], [stackKey.keyArn], WEBHOOK_SECRET_CONTEXT)];
    case GRANTS.openWebhookSecrets:
      return [statement(['kms:Decrypt'], [stackKey.keyArn], WEBHOOK_SECRET_CONTEXT)];
    case GRANTS.media:
      return [
        statement(
          ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
          [mediaBucket.arnForObjects('*')],
        ),
        // Lets HeadObject on a missing key answer 404 instead of 403.
        statement(['s3:ListBucket'], [mediaBucket.bucketArn]),
        stackKeyEnvelopes,
        ...customerKeysThroughS3(),
      ];
    case GRANTS.jobMedia:
      return [
        statement(
          ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
          [mediaBucket.arnForObjects(`${WORKSPACE_MEDIA_PREFIX}*`)],
        ),
        // Stock avatar portraits (the catalog publisher writes them).
        statement(['s3:GetObject'], [mediaBucket.arnForObjects(`${CATALOG_PREFIX}*`)]),
        statement(['s3:ListBucket'], [mediaBucket.bucketArn], {
          StringLike: { 's3:prefix': [`${WORKSPACE_MEDIA_PREFIX}*`] },
        }),
        // Media of workspaces without a key of their own, and the catalog: the stack key.
        stackKeyEnvelopes,
        ...customerKeysThroughS3(),
      ];
    case GRANTS.catalogMedia:
      return [
        // HeadObject (is the object there at its current version?) is authorized as s3:GetObject.
        statement(['s3:GetObject', 's3:PutObject'], [mediaBucket.arnForObjects(`${CATALOG_PREFIX}*`)]),
        // Without it, HeadObject on a missing object answers 403 instead of 404, and the first
        // publish could not tell "missing" from "forbidden".
        statement(['s3:ListBucket'], [mediaBucket.bucketArn]),
        stackKeyEnvelopes,
      ];
    case GRANTS.mediaPrefixCheck:
      return [
        statement(
          ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'],
          [mediaBucket.arnForObjects(`${encryptionCheckPrefix('*')}*`)],
        ),
        // S3 generates the object's data key under the customer key on the caller's behalf.
        statement(['kms:GenerateDataKey'], [customerKeyArns()], via('s3')),
      ];
    case GRANTS.describeCustomerKeys:
      return [statement(['kms:DescribeKey'], [customerKeyArns()])];
    case GRANTS.checkCustomerKeys:
      return [
        statement(['kms:GenerateDataKey', 'kms:Encrypt', 'kms:Decrypt'], [customerKeyArns()], {
          StringEquals: { 'kms:EncryptionContext:purpose': SETUP_CHECK_PURPOSE },
        }),
      ];
    case GRANTS.publishEvents:
      return [statement(['events:PutEvents'], [targets.eventBus.eventBusArn])];
    case GRANTS.startWorkflows:
      return targets.jobWorkflows.length === 0
        ? []
        : [
            statement(
              ['states:StartExecution'],
              targets.jobWorkflows.map((workflow) => workflow.stateMachineArn),
            ),
          ];
    case GRANTS.sendBatchItems:
      return [statement(['sqs:SendMessage'], [targets.batchQueue.queue.queueArn]), stackKeyEnvelopes];
    case GRANTS.consumeBatchItems:
      return queueConsumerStatements(targets.batchQueue, stackKey);
    case GRANTS.sendWebhooks:
      return [statement(['sqs:SendMessage'], [targets.webhookQueue.queue.queueArn]), stackKeyEnvelopes];
    case GRANTS.consumeWebhooks:
      return [
        statement(
          ['sqs:SendMessage'],
          [targets.webhookQueue.queue.queueArn, targets.webhookQueue.deadLetterQueue.queueArn],
        ),
        ...queueConsumerStatements(targets.webhookQueue, stackKey),
      ];
    case GRANTS.synthesizeSpeech:
      // What the Amazon Polly speech engine calls (lambdas/engines/speech/polly-engine.ts).
      return targets.speechEngine === 'polly'
        ? [statement(['polly:SynthesizeSpeech', 'polly:DescribeVoices'], ['*'])]
        : [];
  }
}

/**
 * A queue's event source mapping polls with the function's role. Messages are encrypted with the
 * stack key; SQS uses it for the role, and nothing else may (unlike the unconditioned kms:Decrypt
 * `SqsEventSource` grants, which would let the function decrypt anything the stack key holds).
 */
function queueConsumerStatements({ queue }: QueueWithDeadLetters, stackKey: IKey): PolicyStatement[] {
  return [
    statement(QUEUE_CONSUMER_ACTIONS, [queue.queueArn]),
    statement(ENVELOPE_KEY_ACTIONS, [stackKey.keyArn], via('sqs')),
  ];
}

const CUSTOMER_KEYS_REASON =
  "Workspaces bring their own KMS keys (set at run time by an administrator, possibly in another account), so no key ARN is known at deploy time; the resource is limited to keys of the stack's region and every use but the metadata-only kms:DescribeKey is conditioned (kms:ViaService S3, or the setup check's encryption context). Each key's own key policy must also allow this account.";

const SPEECH_SYNTHESIS_WILDCARD_REASON =
  'Amazon Polly: polly:SynthesizeSpeech and polly:DescribeVoices act on no resource (the service uses no pronunciation lexicons), so IAM only accepts "*" for them.';

interface Acknowledgement {
  id: string;
  reason: string;
}

/** Why the wildcards of these grants' statements are what they are (cdk-nag `AwsSolutions-IAM5`). */
export function grantAcknowledgements(grants: readonly Grant[], targets: GrantTargets): Acknowledgement[] {
  const bucket = Stack.of(targets.mediaBucket).getLogicalId(
    targets.mediaBucket.node.defaultChild as CfnBucket,
  );
  const objects = (prefix: string) => `AwsSolutions-IAM5[Resource::<${bucket}.Arn>/${prefix}*]`;
  const byFinding = new Map<string, string>();
  const acknowledge = (id: string, reason: string) => byFinding.set(id, reason);
  const customerKeys = () =>
    acknowledge(
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:kms:<AWS::Region>:*:key/*]',
      CUSTOMER_KEYS_REASON,
    );
  const catalogReads = () =>
    acknowledge(
      objects(CATALOG_PREFIX),
      'Read only: the stock catalog media (avatar portraits) every job may use, published by the catalog custom resource.',
    );
  for (const grant of grants) {
    switch (grant) {
      case GRANTS.media:
        acknowledge(
          objects(''),
          "Object keys are created at run time (one prefix per workspace and resource), so object access is granted on bucket/*; the bucket holds only this service's media.",
        );
        customerKeys();
        break;
      case GRANTS.jobMedia:
        acknowledge(
          objects(WORKSPACE_MEDIA_PREFIX),
          "A job reads its inputs and writes its work files and outputs under its workspace's prefix (workspaces/<id>/...), keys made at run time; nothing outside workspaces' media.",
        );
        catalogReads();
        customerKeys();
        break;
      case GRANTS.catalogMedia:
        acknowledge(
          objects(CATALOG_PREFIX),
          'The catalog is a fixed set of objects under catalog/ (one per stock look and voice, listed in lambdas/catalog/); the wildcard stays inside that folder, which belongs to no workspace.',
        );
        break;
      case GRANTS.mediaPrefixCheck:
        acknowledge(
          objects(encryptionCheckPrefix('*')),
          "The setup's check objects live under each workspace's media prefix (workspaces/<id>/.encryption-check/<setup>), created at run time; the wildcards stay inside that check folder.",
        );
        customerKeys();
        break;
      case GRANTS.describeCustomerKeys:
      case GRANTS.checkCustomerKeys:
        customerKeys();
        break;
      case GRANTS.synthesizeSpeech:
        if (targets.speechEngine === 'polly')
          acknowledge('AwsSolutions-IAM5[Resource::*]', SPEECH_SYNTHESIS_WILDCARD_REASON);
        break;
      default:
        break;
    }
  }
  return [...byFinding].map(([id, reason]) => ({ id, reason }));
}

/**
 * Gives a function's own role its grants as inline statements, and acknowledges their wildcards
 * together with Lambda tracing's (cdk-nag reports `Resource::*` once per role, so one reason must
 * name every cause).
 */
export function grantToRole(role: Role, grants: readonly Grant[], targets: GrantTargets): void {
  for (const grant of grants) {
    for (const granted of grantStatements(grant, targets)) role.addToPrincipalPolicy(granted);
  }
  const acknowledgements = grantAcknowledgements(grants, targets);
  const wildcard = acknowledgements.find(({ id }) => id === TRACING_WILDCARD_ACKNOWLEDGEMENT.id);
  Validations.of(role).acknowledge(
    wildcard
      ? withWildcardReasons(TRACING_WILDCARD_ACKNOWLEDGEMENT, wildcard.reason)
      : TRACING_WILDCARD_ACKNOWLEDGEMENT,
    ...acknowledgements.filter((acknowledgement) => acknowledgement !== wildcard),
  );
}
