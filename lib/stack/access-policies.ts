/**
 * The customer-managed policies API functions are granted: one per capability of `area-access.ts`. Written as explicit statements rather than CDK `grant*`
 * helpers, which add wildcard actions (`kms:GenerateDataKey*`, `s3:GetObject*`) and resources
 * (`<table>/index/*`) this service does not need.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { EventBus } from 'aws-cdk-lib/aws-events';
import { type IManagedPolicy, ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Key } from 'aws-cdk-lib/aws-kms';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { TABLE_SCHEMA } from '../../lambdas/core/table-schema.js';
import {
  CUSTOMER_KEYS_FINDING,
  CUSTOMER_KEYS_REASON,
  customerKeyArns,
  ENVELOPE_KEY_ACTIONS,
  SPEECH_SYNTHESIS_WILDCARD_REASON,
  speechSynthesisStatements,
  viaS3Condition,
} from './access-statements.js';
import { CAPABILITIES, type Capability } from './area-access.js';
import type { SpeechEngine } from './service-options.js';

export interface AccessPoliciesProps {
  table: Table;
  stackKey: Key;
  cursorKey: Key;
  mediaBucket: Bucket;
  eventBus: EventBus;
  batchQueue: Queue;
  webhookQueue: Queue;
  /** State machines API functions may start. */
  stateMachines: readonly StateMachine[];
  /** With `polly`, the speech synthesis capability is Amazon Polly; other engines need no grant. */
  speechEngine: SpeechEngine;
}

/** Item-level table access: what the repository, rate limiter and idempotency store call. */
export const TABLE_ITEM_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
] as const;

export function tableResources(table: Table): string[] {
  return [table.tableArn, `${table.tableArn}/index/${TABLE_SCHEMA.gsi1.indexName}`];
}

export class AccessPolicies extends Construct {
  /** Per capability; absent when there is nothing to grant (no state machine yet, no Polly). */
  readonly byCapability: ReadonlyMap<Capability, IManagedPolicy>;

  constructor(scope: Construct, id: string, props: AccessPoliciesProps) {
    super(scope, id);
    const byCapability = new Map<Capability, IManagedPolicy>();
    const add = (capability: Capability, description: string, statements: PolicyStatement[]) => {
      byCapability.set(capability, new ManagedPolicy(this, capability, { description, statements }));
    };
    const useStackKeyForEnvelopes = new PolicyStatement({
      actions: [...ENVELOPE_KEY_ACTIONS],
      resources: [props.stackKey.keyArn],
    });

    add(CAPABILITIES.tableItems, 'API functions: table items and pagination cursor MACs', [
      new PolicyStatement({ actions: [...TABLE_ITEM_ACTIONS], resources: tableResources(props.table) }),
      new PolicyStatement({ actions: ['kms:GenerateMac'], resources: [props.cursorKey.keyArn] }),
    ]);
    add(CAPABILITIES.webhookSecrets, 'API functions sealing webhook endpoint secrets', [
      new PolicyStatement({
        actions: ['kms:Encrypt', 'kms:Decrypt'],
        resources: [props.stackKey.keyArn],
        // Only for secrets: every such call names the endpoint in its encryption context.
        conditions: { Null: { 'kms:EncryptionContext:webhook_endpoint_id': 'false' } },
      }),
    ]);

    add(CAPABILITIES.media, 'API functions handling media: objects of the media bucket', [
      new PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
        resources: [props.mediaBucket.arnForObjects('*')],
      }),
      // Lets HeadObject on a missing key answer 404 instead of 403.
      new PolicyStatement({ actions: ['s3:ListBucket'], resources: [props.mediaBucket.bucketArn] }),
      useStackKeyForEnvelopes,
      // Workspaces with their own key: every media write checks the key's state first
      // (lambdas/media/encryption-policy.ts), and S3 uses the key on the function's behalf.
      new PolicyStatement({ actions: ['kms:DescribeKey'], resources: [customerKeyArns()] }),
      new PolicyStatement({
        actions: [...ENVELOPE_KEY_ACTIONS],
        resources: [customerKeyArns()],
        conditions: viaS3Condition(),
      }),
    ]);
    const mediaPolicy = byCapability.get(CAPABILITIES.media);
    if (mediaPolicy) {
      const bucketLogicalId = Stack.of(this).getLogicalId(props.mediaBucket.node.defaultChild as CfnBucket);
      Validations.of(mediaPolicy).acknowledge(
        {
          id: `AwsSolutions-IAM5[Resource::<${bucketLogicalId}.Arn>/*]`,
          reason:
            "Object keys are created at run time (one prefix per workspace and resource), so object access is granted on bucket/*; the bucket holds only this service's media.",
        },
        { id: CUSTOMER_KEYS_FINDING, reason: CUSTOMER_KEYS_REASON },
      );
    }
    add(CAPABILITIES.publishEvents, 'API functions publishing domain events', [
      new PolicyStatement({ actions: ['events:PutEvents'], resources: [props.eventBus.eventBusArn] }),
    ]);
    add(CAPABILITIES.sendBatchItems, 'API functions enqueuing batch items', [
      new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [props.batchQueue.queueArn] }),
      useStackKeyForEnvelopes,
    ]);
    add(CAPABILITIES.sendWebhooks, 'API functions enqueuing webhook deliveries', [
      new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [props.webhookQueue.queueArn] }),
      useStackKeyForEnvelopes,
    ]);
    if (props.stateMachines.length > 0) {
      add(CAPABILITIES.startWorkflows, 'API functions starting job workflows', [
        new PolicyStatement({
          actions: ['states:StartExecution'],
          resources: props.stateMachines.map((stateMachine) => stateMachine.stateMachineArn),
        }),
      ]);
    }
    if (props.speechEngine === 'polly') {
      add(CAPABILITIES.synthesizeSpeech, 'API functions synthesizing speech with Amazon Polly', [
        ...speechSynthesisStatements(),
      ]);
      const speechPolicy = byCapability.get(CAPABILITIES.synthesizeSpeech);
      if (speechPolicy) {
        Validations.of(speechPolicy).acknowledge({
          id: 'AwsSolutions-IAM5[Resource::*]',
          reason: SPEECH_SYNTHESIS_WILDCARD_REASON,
        });
      }
    }
    this.byCapability = byCapability;
  }
}
