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
 */
import { Aws, Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { encryptionCheckPrefix, SETUP_CHECK_PURPOSE } from '../../lambdas/encryption/setup-steps.js';
import {
  TASK_ACCESS,
  TASK_FUNCTIONS,
  type TaskAccess,
  type TaskFunctionName,
} from '../../lambdas/workflows/task-functions.js';
import type { HandlerBundles } from './handler-bundles.js';
import { createServiceFunction, TRACING_WILDCARD_ACKNOWLEDGEMENT } from './service-function.js';

/** Every customer-managed key a workspace may name: keys of the stack's region, in any account. */
export function customerKeyArns(): string {
  return `arn:${Aws.PARTITION}:kms:${Aws.REGION}:*:key/*`;
}

/** Only through S3 of the stack's region: how media writes and reads use a customer key. */
export function viaS3Condition(): Record<string, Record<string, string>> {
  return { StringEquals: { 'kms:ViaService': `s3.${Aws.REGION}.${Aws.URL_SUFFIX}` } };
}

/** The cdk-nag finding id of a statement on {@link customerKeyArns}. */
export const CUSTOMER_KEYS_FINDING =
  'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:kms:<AWS::Region>:*:key/*]';

export const CUSTOMER_KEYS_REASON =
  "Workspaces bring their own KMS keys (set at run time by an administrator, possibly in another account), so no key ARN is known at deploy time; the resource is limited to keys of the stack's region and every use but the metadata-only kms:DescribeKey is conditioned (kms:ViaService S3, or the setup check's encryption context). Each key's own key policy must also allow this account.";

/** Access that names customer keys. */
const CUSTOMER_KEY_ACCESS: ReadonlySet<TaskAccess> = new Set([
  TASK_ACCESS.describeCustomerKeys,
  TASK_ACCESS.checkCustomerKeys,
  TASK_ACCESS.mediaPrefixCheck,
]);

/** Task modules for `HandlerBundles`. */
export const TASK_FUNCTION_MODULES: readonly string[] = Object.values(TASK_FUNCTIONS).map(
  (definition) => definition.module,
);

export interface WorkflowTaskFunctionsProps {
  bundles: HandlerBundles;
  /** Environment of every task function (what `lambdas/core/config.ts` reads). */
  environment: Readonly<Record<string, string>>;
  table: Table;
  mediaBucket: Bucket;
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
    for (const [name, definition] of Object.entries(TASK_FUNCTIONS) as [
      TaskFunctionName,
      (typeof TASK_FUNCTIONS)[TaskFunctionName],
    ][]) {
      const role = new Role(this, `${name}Role`, {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
        description: definition.description,
      });
      for (const access of definition.access) {
        for (const statement of this.statementsFor(access, props)) role.addToPrincipalPolicy(statement);
      }
      functions[name] = createServiceFunction(this, name, {
        code: props.bundles.codeFor(this, definition.module),
        role,
        environment: props.environment,
        description: definition.description,
        logRetention: props.logRetention,
        removalPolicy: props.removalPolicy,
        timeout: Duration.seconds(30),
      });
      this.acknowledge(role, definition.access, props);
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
    }
  }

  private acknowledge(role: Role, access: readonly TaskAccess[], props: WorkflowTaskFunctionsProps): void {
    const acknowledgements = [TRACING_WILDCARD_ACKNOWLEDGEMENT];
    if (access.some((candidate) => CUSTOMER_KEY_ACCESS.has(candidate))) {
      acknowledgements.push({ id: CUSTOMER_KEYS_FINDING, reason: CUSTOMER_KEYS_REASON });
    }
    if (access.includes(TASK_ACCESS.mediaPrefixCheck)) {
      const bucketLogicalId = Stack.of(this).getLogicalId(props.mediaBucket.node.defaultChild as CfnBucket);
      acknowledgements.push({
        id: `AwsSolutions-IAM5[Resource::<${bucketLogicalId}.Arn>/${encryptionCheckPrefix('*')}*]`,
        reason:
          "The setup's check objects live under each workspace's media prefix (workspaces/<id>/.encryption-check/<setup>), created at run time; the wildcards stay inside that check folder.",
      });
    }
    Validations.of(role).acknowledge(...acknowledgements);
  }
}
