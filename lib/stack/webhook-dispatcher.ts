/**
 * Webhook dispatch: an EventBridge rule sends every domain event of the service to the webhook queue,
 * and the dispatcher function consumes it (partial batch failures), fanning each event out to its
 * endpoints and callback and sending the attempts. Deliveries waiting for a retry go back on the same
 * queue with a delay; exhausted ones are sent to its dead-letter queue, whose alarm is the
 * exhausted-deliveries alarm.
 *
 * The function's role holds exactly what the dispatcher calls (`FUNCTION_GRANTS.webhookDispatcher` of lib/access/function-access.ts).
 */
import { Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import { type IRule, type IRuleTarget, Rule, type RuleTargetConfig } from 'aws-cdk-lib/aws-events';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { EventSourceMapping, type Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { FUNCTION_GRANTS } from '../access/function-access.js';
import { BUS_RULES, QUEUES } from '../messaging-topology.js';
import { type GrantTargets, grantToRole } from './grant-statements.js';
import type { HandlerBundles } from './handler-bundles.js';
import { createServiceFunction } from './service-function.js';

/** The dispatcher's entry under `lambdas/`. */
export const WEBHOOK_DISPATCHER_MODULE = 'workers/webhook-dispatcher';

/** How long one batch may take: the webhook queue's consumer timeout (`lib/messaging-topology.ts`). */
export const WEBHOOK_DISPATCHER_TIMEOUT = Duration.seconds(QUEUES.webhook.consumerTimeoutSeconds);

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

export interface WebhookDispatcherProps {
  bundles: HandlerBundles;
  /** The bus, the webhook queue and the stack key (which encrypts the queues), and what the grants name. */
  grantTargets: GrantTargets;
  environment: Readonly<Record<string, string>>;
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
}

export class WebhookDispatcher extends Construct {
  readonly function: LambdaFunction;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: WebhookDispatcherProps) {
    super(scope, id);
    const { eventBus, stackKey } = props.grantTargets;
    const { queue, deadLetterQueue } = props.grantTargets.webhookQueue;
    const { webhookDispatch } = BUS_RULES;
    const ruleName = `${Stack.of(this).stackName}-${webhookDispatch.name}`;
    this.rule = new Rule(this, 'DomainEvents', {
      ruleName,
      eventBus,
      description: webhookDispatch.description,
      eventPattern: { source: [...webhookDispatch.eventPattern.source] },
      // An event the bus cannot put on the queue lands in its dead-letter queue (alarmed).
      targets: [new ConfinedQueueTarget(queue, deadLetterQueue)],
    });
    // EventBridge encrypts what it sends with the queues' key. The rule's ARN is spelled out rather
    // than referenced: the key policy cannot depend on the rule, which depends on the queue, which
    // depends on the key.
    stackKey.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('events.amazonaws.com')],
        actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
        resources: ['*'],
        conditions: {
          ArnEquals: {
            'aws:SourceArn': Stack.of(this).formatArn({
              service: 'events',
              resource: 'rule',
              resourceName: `${eventBus.eventBusName}/${ruleName}`,
            }),
          },
        },
      }),
    );

    const role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    grantToRole(role, FUNCTION_GRANTS.webhookDispatcher, props.grantTargets);

    this.function = createServiceFunction(this, 'Function', {
      code: props.bundles.codeFor(this, WEBHOOK_DISPATCHER_MODULE),
      runs: { bundle: WEBHOOK_DISPATCHER_MODULE },
      role,
      environment: {
        ...props.environment,
        [QUEUES.webhook.urlVariable]: queue.queueUrl,
        [QUEUES.webhook.deadLetterUrlVariable]: deadLetterQueue.queueUrl,
      },
      description: 'Webhook dispatcher: fans domain events out to endpoints and callbacks',
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      timeout: WEBHOOK_DISPATCHER_TIMEOUT,
    });
    // A mapping of its own rather than SqsEventSource, whose grants include an unconditioned
    // kms:Decrypt on the queue's key (`consumeWebhooks` grants what polling needs).
    new EventSourceMapping(this, 'QueueSource', {
      target: this.function,
      eventSourceArn: queue.queueArn,
      batchSize: 10,
      reportBatchItemFailures: true,
    });
  }
}
