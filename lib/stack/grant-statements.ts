/**
 * Where grants become CDK `PolicyStatement`s: the statements themselves are described once, as data,
 * in `lib/access/grant-policies.ts` (which the local stack enforces too); this module hands them the
 * stack's resources and adds the cdk-nag acknowledgements their wildcards need.
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
import { encryptionCheckPrefix } from '../../lambdas/encryption/setup-steps.js';
import { type GrantResources, grantPolicy, WORKSPACE_MEDIA_PREFIX } from '../access/grant-policies.js';
import type { QueueWithDeadLetters } from './messaging.js';
import { TRACING_WILDCARD_ACKNOWLEDGEMENT, withWildcardReasons } from './service-function.js';
import type { ModelEngineOptions, SpeechEngine } from './service-options.js';

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
  realtimeQueue: QueueWithDeadLetters;
  /** The job workflows; empty for functions the workflows are built from (nothing to start). */
  jobWorkflows: readonly IStateMachine[];
  /** With `polly`, `synthesizeSpeech` is Amazon Polly; other engines need no grant. */
  speechEngine: SpeechEngine;
  /** The model capabilities' engines (see `GrantResources.modelEngines`). @default every capability off */
  modelEngines?: ModelEngineOptions;
}

/** The grants' resources as the stack's ARNs (CloudFormation tokens), for `grant-policies.ts`. */
export function grantResourcesOf(targets: GrantTargets): GrantResources {
  return {
    partition: Aws.PARTITION,
    region: Aws.REGION,
    urlSuffix: Aws.URL_SUFFIX,
    tableArn: targets.table.tableArn,
    stackKeyArn: targets.stackKey.keyArn,
    cursorKeyArn: targets.cursorKey.keyArn,
    mediaBucketArn: targets.mediaBucket.bucketArn,
    eventBusArn: targets.eventBus.eventBusArn,
    batchQueueArn: targets.batchQueue.queue.queueArn,
    webhookQueueArn: targets.webhookQueue.queue.queueArn,
    webhookDeadLetterQueueArn: targets.webhookQueue.deadLetterQueue.queueArn,
    realtimeQueueArn: targets.realtimeQueue.queue.queueArn,
    jobWorkflowArns: targets.jobWorkflows.map((workflow) => workflow.stateMachineArn),
    speechEngine: targets.speechEngine,
    ...(targets.modelEngines ? { modelEngines: targets.modelEngines } : {}),
    account: Aws.ACCOUNT_ID,
  };
}

/** The IAM statements of `grant` (`lib/access/grant-policies.ts`) for the stack's resources. */
export function grantStatements(grant: Grant, targets: GrantTargets): PolicyStatement[] {
  return grantPolicy(grant, grantResourcesOf(targets)).map(
    ({ actions, resources, conditions }) =>
      new PolicyStatement({
        actions: [...actions],
        resources: [...resources],
        ...(conditions ? { conditions: conditions as Record<string, unknown> } : {}),
      }),
  );
}

const CUSTOMER_KEYS_REASON =
  "Workspaces bring their own KMS keys (set at run time by an administrator, possibly in another account), so no key ARN is known at deploy time; the resource is limited to keys of the stack's region and every use but the metadata-only kms:DescribeKey is conditioned (kms:ViaService S3, or the setup check's encryption context). Each key's own key policy must also allow this account.";

const SPEECH_SYNTHESIS_WILDCARD_REASON =
  'Amazon Polly: polly:SynthesizeSpeech and polly:DescribeVoices act on no resource (the service uses no pronunciation lexicons), so IAM only accepts "*" for them.';

const MODEL_ENGINE_WILDCARD_REASONS: Partial<Record<Grant, string>> = {
  [GRANTS.recognizeSpeech]:
    'Amazon Transcribe: transcribe:StartTranscriptionJob and transcribe:GetTranscriptionJob take no resource-level permissions, so IAM only accepts "*" for them; the media they read and write is limited by the job media grant.',
  [GRANTS.translateText]:
    'Amazon Translate: translate:TranslateText names no resource of its own, so IAM only accepts "*" for it; the glossary terminologies it may import and read are limited to the vcs-glossary- prefix.',
};

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
      case GRANTS.recognizeSpeech:
      case GRANTS.translateText:
        if (grantStatements(grant, targets).some((statement) => statement.resources.includes('*'))) {
          const reason = MODEL_ENGINE_WILDCARD_REASONS[grant] as string;
          const earlier = byFinding.get('AwsSolutions-IAM5[Resource::*]');
          acknowledge('AwsSolutions-IAM5[Resource::*]', earlier ? `${earlier} ${reason}` : reason);
        }
        break;
      case GRANTS.generateMedia:
        if (grantStatements(grant, targets).length > 0)
          acknowledge(
            'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:async-invoke/*]',
            "Amazon Bedrock names each Nova Reel invocation (async-invoke/<id>) when it starts it, so reading its status cannot name it in advance; the wildcard stays inside this account's and region's invocations, and starting one is limited to the configured model.",
          );
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
