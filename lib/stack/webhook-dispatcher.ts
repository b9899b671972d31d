/**
 * Webhook dispatch: an EventBridge rule sends every domain event of the service to the webhook queue,
 * and the dispatcher function consumes it (partial batch failures), fanning each event out to its
 * endpoints and callback and sending the attempts. Deliveries waiting for a retry go back on the same
 * queue with a delay; exhausted ones are sent to its dead-letter queue, whose alarm is the
 * exhausted-deliveries alarm.
 *
 * The function's role holds exactly what the dispatcher calls: single-item reads and writes and
 * queries of the table (its own records under workspace partitions, endpoints, callback secrets),
 * KMS Decrypt of webhook secrets only (the encryption context names the endpoint), and SendMessage to
 * the queue (retries) and its dead-letter queue (exhausted deliveries).
 */
import { Aws, Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import {
  type IEventBus,
  type IRule,
  type IRuleTarget,
  Rule,
  type RuleTargetConfig,
} from 'aws-cdk-lib/aws-events';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { EventSourceMapping, type Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { BUS_RULES, QUEUES } from '../messaging-topology.js';
import { ENVELOPE_KEY_ACTIONS } from './access-statements.js';
import type { HandlerBundles } from './handler-bundles.js';
import { createServiceFunction, TRACING_WILDCARD_ACKNOWLEDGEMENT } from './service-function.js';

/** The dispatcher's entry under `lambdas/`. */
export const WEBHOOK_DISPATCHER_MODULE = 'workers/webhook-dispatcher';

/**
 * How long one batch may take: its records run concurrently, each at most one attempt (10 s deadline)
 * or one fan-out whose first attempts run concurrently, plus a wait of up to 1 s for a due retry. The
 * webhook queue's visibility timeout is six times longer, as Lambda recommends for SQS sources.
 */
export const WEBHOOK_DISPATCHER_TIMEOUT = Duration.seconds(30);

/** Table actions of the dispatcher: no deletes, no index. */
export const WEBHOOK_DISPATCHER_TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
] as const;

/**
 * The rule's target: the webhook queue, with its dead-letter queue for events the bus cannot hand
 * over. Unlike `aws-events-targets`' SqsQueue (which, for a KMS-encrypted queue, lets EventBridge
 * send to the queue and use the key on behalf of any rule, to avoid a dependency cycle), EventBridge
 * may send to these queues only for this rule, and use the key only from this account.
 */
class ConfinedQueueTarget implements IRuleTarget {
  constructor(
    private readonly queue: IQueue,
    private readonly deadLetterQueue: IQueue,
  ) {}

  bind(rule: IRule): RuleTargetConfig {
    const events = new ServicePrincipal('events.amazonaws.com');
    for (const queue of [this.queue, this.deadLetterQueue]) {
      queue.addToResourcePolicy(
        new PolicyStatement({
          principals: [events],
          actions: ['sqs:SendMessage'],
          resources: [queue.queueArn],
          conditions: { ArnEquals: { 'aws:SourceArn': rule.ruleArn } },
        }),
      );
    }
    return { arn: this.queue.queueArn, deadLetterConfig: { arn: this.deadLetterQueue.queueArn } };
  }
}

/** SQS on the caller's behalf: the only way the dispatcher uses the queues' key for messages. */
function viaSqs(): Record<string, Record<string, string>> {
  return { StringEquals: { 'kms:ViaService': `sqs.${Aws.REGION}.${Aws.URL_SUFFIX}` } };
}

export interface WebhookDispatcherProps {
  bundles: HandlerBundles;
  eventBus: IEventBus;
  queue: IQueue;
  deadLetterQueue: IQueue;
  table: Table;
  /** Encrypts the queues and the endpoint secrets. */
  stackKey: IKey;
  environment: Readonly<Record<string, string>>;
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
}

export class WebhookDispatcher extends Construct {
  readonly function: LambdaFunction;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: WebhookDispatcherProps) {
    super(scope, id);
    const { webhookDispatch } = BUS_RULES;
    const ruleName = `${Stack.of(this).stackName}-${webhookDispatch.name}`;
    this.rule = new Rule(this, 'DomainEvents', {
      ruleName,
      eventBus: props.eventBus,
      description: webhookDispatch.description,
      eventPattern: { source: [...webhookDispatch.eventPattern.source] },
      // An event the bus cannot put on the queue lands in its dead-letter queue (alarmed).
      targets: [new ConfinedQueueTarget(props.queue, props.deadLetterQueue)],
    });
    // EventBridge encrypts what it sends with the queues' key. The rule's ARN is spelled out rather
    // than referenced: the key policy cannot depend on the rule, which depends on the queue, which
    // depends on the key.
    props.stackKey.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('events.amazonaws.com')],
        actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
        resources: ['*'],
        conditions: {
          ArnEquals: {
            'aws:SourceArn': Stack.of(this).formatArn({
              service: 'events',
              resource: 'rule',
              resourceName: `${props.eventBus.eventBusName}/${ruleName}`,
            }),
          },
        },
      }),
    );

    const role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    role.addToPolicy(
      new PolicyStatement({
        actions: [...WEBHOOK_DISPATCHER_TABLE_ACTIONS],
        resources: [props.table.tableArn],
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        actions: ['kms:Decrypt'],
        resources: [props.stackKey.keyArn],
        // Only webhook secrets: every such ciphertext names its endpoint in the encryption context.
        conditions: { Null: { 'kms:EncryptionContext:webhook_endpoint_id': 'false' } },
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        actions: ['sqs:SendMessage'],
        resources: [props.queue.queueArn, props.deadLetterQueue.queueArn],
      }),
    );
    // The event source mapping polls with the function's role.
    role.addToPolicy(
      new PolicyStatement({
        actions: [
          'sqs:ReceiveMessage',
          'sqs:DeleteMessage',
          'sqs:ChangeMessageVisibility',
          'sqs:GetQueueAttributes',
        ],
        resources: [props.queue.queueArn],
      }),
    );
    // Messages are encrypted with the stack key; SQS uses it for the role, and nothing else may.
    role.addToPolicy(
      new PolicyStatement({
        actions: [...ENVELOPE_KEY_ACTIONS],
        resources: [props.stackKey.keyArn],
        conditions: viaSqs(),
      }),
    );

    this.function = createServiceFunction(this, 'Function', {
      code: props.bundles.codeFor(this, WEBHOOK_DISPATCHER_MODULE),
      role,
      environment: {
        ...props.environment,
        [QUEUES.webhook.urlVariable]: props.queue.queueUrl,
        [QUEUES.webhook.deadLetterUrlVariable]: props.deadLetterQueue.queueUrl,
      },
      description: 'Webhook dispatcher: fans domain events out to endpoints and callbacks',
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      timeout: WEBHOOK_DISPATCHER_TIMEOUT,
    });
    Validations.of(role).acknowledge(TRACING_WILDCARD_ACKNOWLEDGEMENT);
    // A mapping of its own rather than SqsEventSource, whose grants include an unconditioned
    // kms:Decrypt on the queue's key: that would let the function decrypt anything the stack key holds.
    new EventSourceMapping(this, 'QueueSource', {
      target: this.function,
      eventSourceArn: props.queue.queueArn,
      batchSize: 10,
      reportBatchItemFailures: true,
    });
  }
}
