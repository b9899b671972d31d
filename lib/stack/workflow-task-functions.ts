/**
 * The Lambda functions behind Step Functions Task states, one per entry of
 * `lambdas/workflows/task-functions.ts`, each with its own execution role holding exactly the
 * access its entry names.
 *
 * Customer-managed keys (a workspace's own KMS key) are data: any key of the stack's region may be
 * set by an administrator, in this account or another, so KMS permissions name
 * `arn:<partition>:kms:<region>:*:key/*` and are narrowed by conditions instead of by ARN:
 * - the setup's own KMS calls (GenerateDataKey, Encrypt, Decrypt) only with the encryption context
 *   `purpose = workspace-encryption-setup-check`, so these roles cannot decrypt anything else;
 * - S3 uses the key on the role's behalf only through S3 in this region (`kms:ViaService`);
 * - `kms:DescribeKey` (metadata only: state, spec, usage) is the one call without a condition; it has
 *   no context and is not made through another service.
 * The key's own key policy is the second gate: a key of another account must allow this account.
 *
 * Packaging: a definition's `packaging` is `zip` (a `HandlerBundles` bundle) or `media-image` (the
 * media container image, `media-image.ts`, with the definition's module as its CMD); memory and
 * timeout come from the definition.
 */
import { Duration, type RemovalPolicy, Size, Stack, Validations } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { CATALOG_PREFIX } from '../../lambdas/catalog/catalog-keys.js';
import { encryptionCheckPrefix, SETUP_CHECK_PURPOSE } from '../../lambdas/encryption/setup-steps.js';
import { TASK_ACCESS, TASK_PACKAGING, type TaskAccess } from '../../lambdas/jobs/task-deployment.js';
import {
  TASK_FUNCTIONS,
  type TaskFunctionDefinition,
  type TaskFunctionName,
} from '../../lambdas/workflows/task-functions.js';
import {
  CUSTOMER_KEYS_FINDING,
  CUSTOMER_KEYS_REASON,
  customerKeyArns,
  ENVELOPE_KEY_ACTIONS,
  SPEECH_SYNTHESIS_WILDCARD_REASON,
  speechSynthesisStatements,
  viaS3Condition,
} from './access-statements.js';
import type { HandlerBundles } from './handler-bundles.js';
import type { MediaImage } from './media-image.js';
import {
  createServiceFunction,
  TRACING_WILDCARD_ACKNOWLEDGEMENT,
  withWildcardReasons,
} from './service-function.js';
import type { SpeechEngine } from './service-options.js';

/** Access that names customer keys. */
const CUSTOMER_KEY_ACCESS: ReadonlySet<TaskAccess> = new Set([
  TASK_ACCESS.describeCustomerKeys,
  TASK_ACCESS.checkCustomerKeys,
  TASK_ACCESS.mediaPrefixCheck,
  TASK_ACCESS.jobMedia,
]);

/** Every workspace's media lives under `workspaces/<workspace_id>/` (lambdas/media/media-keys.ts). */
export const WORKSPACE_MEDIA_PREFIX = 'workspaces/';

/** Job items: single-item reads and writes, and the per-item actions of TransactWriteItems. */
export const JOB_ITEM_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:ConditionCheckItem',
] as const;

/** Scratch space of the media image's functions: inputs (uploads up to 1 GiB each) and renders. */
export const MEDIA_IMAGE_EPHEMERAL_STORAGE = Size.gibibytes(10);

const DEFAULT_MEMORY_MB = 256;
const DEFAULT_TIMEOUT_SECONDS = 30;

const definitions = Object.entries(TASK_FUNCTIONS) as [TaskFunctionName, TaskFunctionDefinition][];

function isMediaImage(definition: TaskFunctionDefinition): boolean {
  return definition.packaging === TASK_PACKAGING.mediaImage;
}

/** Task modules bundled as zips, for `HandlerBundles` (a job's steps share their module's bundle). */
export const TASK_FUNCTION_MODULES: readonly string[] = [
  ...new Set(definitions.filter(([, definition]) => !isMediaImage(definition)).map(([, d]) => d.module)),
];

/** Task modules served by the media image, for `MediaImage`. */
export const MEDIA_IMAGE_TASK_MODULES: readonly string[] = [
  ...new Set(definitions.filter(([, definition]) => isMediaImage(definition)).map(([, d]) => d.module)),
];

export interface WorkflowTaskFunctionsProps {
  bundles: HandlerBundles;
  /** Holds every module of {@link MEDIA_IMAGE_TASK_MODULES}. */
  mediaImage: MediaImage;
  /** Environment of every task function (what `lambdas/core/config.ts` reads). */
  environment: Readonly<Record<string, string>>;
  table: Table;
  mediaBucket: Bucket;
  /** The key of media written without a workspace key, and of the bucket's default encryption. */
  stackKey: IKey;
  /** The bus domain events go to (`publishEvents`). */
  eventBus: IEventBus;
  /** Speech-synthesizing tasks get Amazon Polly with `polly`. */
  speechEngine: SpeechEngine;
  logRetention: RetentionDays;
  /** Of the log groups. */
  removalPolicy: RemovalPolicy;
}

export class WorkflowTaskFunctions extends Construct {
  /** By the `<Name>` of `${TaskFunction_<Name>}`. */
  readonly functions: Readonly<Record<TaskFunctionName, LambdaFunction>>;

  constructor(scope: Construct, id: string, props: WorkflowTaskFunctionsProps) {
    super(scope, id);
    const functions: Partial<Record<TaskFunctionName, LambdaFunction>> = {};
    for (const [name, definition] of definitions) {
      const role = new Role(this, `${name}Role`, {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
        description: definition.description,
      });
      for (const access of definition.access) {
        for (const statement of this.statementsFor(access, props)) role.addToPrincipalPolicy(statement);
      }
      const synthesizesSpeech =
        definition.access.includes(TASK_ACCESS.synthesizeSpeech) && props.speechEngine === 'polly';
      const mediaImage = isMediaImage(definition);
      const exportName = definition.exportName ?? 'handler';
      functions[name] = createServiceFunction(this, name, {
        code: mediaImage
          ? props.mediaImage.codeFor(definition.module, exportName)
          : props.bundles.codeFor(this, definition.module),
        exportName,
        role,
        environment: props.environment,
        description: definition.description,
        logRetention: props.logRetention,
        removalPolicy: props.removalPolicy,
        timeout: Duration.seconds(definition.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
        memorySize: definition.memorySize ?? DEFAULT_MEMORY_MB,
        ...(mediaImage ? { ephemeralStorageSize: MEDIA_IMAGE_EPHEMERAL_STORAGE } : {}),
      });
      this.acknowledge(role, definition.access, synthesizesSpeech, props);
    }
    this.functions = functions as Record<TaskFunctionName, LambdaFunction>;
  }

  private statementsFor(access: TaskAccess, props: WorkflowTaskFunctionsProps): PolicyStatement[] {
    switch (access) {
      case TASK_ACCESS.describeCustomerKeys:
        return [new PolicyStatement({ actions: ['kms:DescribeKey'], resources: [customerKeyArns()] })];
      case TASK_ACCESS.checkCustomerKeys:
        return [
          new PolicyStatement({
            actions: ['kms:GenerateDataKey', 'kms:Encrypt', 'kms:Decrypt'],
            resources: [customerKeyArns()],
            conditions: { StringEquals: { 'kms:EncryptionContext:purpose': SETUP_CHECK_PURPOSE } },
          }),
        ];
      case TASK_ACCESS.mediaPrefixCheck:
        return [
          new PolicyStatement({
            actions: ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'],
            resources: [props.mediaBucket.arnForObjects(`${encryptionCheckPrefix('*')}*`)],
          }),
          // S3 generates the object's data key under the customer key on the caller's behalf.
          new PolicyStatement({
            actions: ['kms:GenerateDataKey'],
            resources: [customerKeyArns()],
            conditions: viaS3Condition(),
          }),
        ];
      case TASK_ACCESS.workspaceItems:
        return [
          new PolicyStatement({
            actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
            resources: [props.table.tableArn],
          }),
        ];
      case TASK_ACCESS.jobItems:
        // The table only, not its index: steps address items by key; TransactWriteItems (credits)
        // is authorized per item by the actions of its parts.
        return [new PolicyStatement({ actions: [...JOB_ITEM_ACTIONS], resources: [props.table.tableArn] })];
      case TASK_ACCESS.jobMedia:
        return [
          new PolicyStatement({
            actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
            resources: [props.mediaBucket.arnForObjects(`${WORKSPACE_MEDIA_PREFIX}*`)],
          }),
          // Stock avatar portraits (the catalog publisher writes them).
          new PolicyStatement({
            actions: ['s3:GetObject'],
            resources: [props.mediaBucket.arnForObjects(`${CATALOG_PREFIX}*`)],
          }),
          new PolicyStatement({
            actions: ['s3:ListBucket'],
            resources: [props.mediaBucket.bucketArn],
            conditions: { StringLike: { 's3:prefix': [`${WORKSPACE_MEDIA_PREFIX}*`] } },
          }),
          // Media of workspaces without a key of their own, and the catalog: the stack key.
          new PolicyStatement({
            actions: [...ENVELOPE_KEY_ACTIONS],
            resources: [props.stackKey.keyArn],
          }),
          // Workspaces with their own key: each write checks the key's state first
          // (lambdas/media/encryption-policy.ts), and S3 uses the key on the function's behalf.
          new PolicyStatement({ actions: ['kms:DescribeKey'], resources: [customerKeyArns()] }),
          new PolicyStatement({
            actions: [...ENVELOPE_KEY_ACTIONS],
            resources: [customerKeyArns()],
            conditions: viaS3Condition(),
          }),
        ];
      case TASK_ACCESS.publishEvents:
        return [
          new PolicyStatement({ actions: ['events:PutEvents'], resources: [props.eventBus.eventBusArn] }),
        ];
      case TASK_ACCESS.synthesizeSpeech:
        return props.speechEngine === 'polly' ? speechSynthesisStatements() : [];
    }
  }

  private acknowledge(
    role: Role,
    access: readonly TaskAccess[],
    synthesizesSpeech: boolean,
    props: WorkflowTaskFunctionsProps,
  ): void {
    const acknowledgements = [
      synthesizesSpeech
        ? withWildcardReasons(TRACING_WILDCARD_ACKNOWLEDGEMENT, SPEECH_SYNTHESIS_WILDCARD_REASON)
        : TRACING_WILDCARD_ACKNOWLEDGEMENT,
    ];
    if (access.some((candidate) => CUSTOMER_KEY_ACCESS.has(candidate))) {
      acknowledgements.push({ id: CUSTOMER_KEYS_FINDING, reason: CUSTOMER_KEYS_REASON });
    }
    const bucketLogicalId = Stack.of(this).getLogicalId(props.mediaBucket.node.defaultChild as CfnBucket);
    if (access.includes(TASK_ACCESS.mediaPrefixCheck)) {
      acknowledgements.push({
        id: `AwsSolutions-IAM5[Resource::<${bucketLogicalId}.Arn>/${encryptionCheckPrefix('*')}*]`,
        reason:
          "The setup's check objects live under each workspace's media prefix (workspaces/<id>/.encryption-check/<setup>), created at run time; the wildcards stay inside that check folder.",
      });
    }
    if (access.includes(TASK_ACCESS.jobMedia)) {
      acknowledgements.push(
        {
          id: `AwsSolutions-IAM5[Resource::<${bucketLogicalId}.Arn>/${WORKSPACE_MEDIA_PREFIX}*]`,
          reason:
            "A job reads its inputs and writes its work files and outputs under its workspace's prefix (workspaces/<id>/...), keys made at run time; nothing outside workspaces' media.",
        },
        {
          id: `AwsSolutions-IAM5[Resource::<${bucketLogicalId}.Arn>/${CATALOG_PREFIX}*]`,
          reason:
            'Read only: the stock catalog media (avatar portraits) every job may use, published by the catalog custom resource.',
        },
      );
    }
    Validations.of(role).acknowledge(...acknowledgements);
  }
}
