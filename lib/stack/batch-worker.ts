/**
 * The batch worker: one function consuming the batch queue (one message per batch item), with
 * partial batch failures, so only failed items are retried and, after the queue's receive limit, go
 * to its dead-letter queue (alarmed). Items may hash and move large media, hence the longer timeout;
 * the queue's visibility timeout is longer still.
 */
import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { type IManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { HandlerBundles } from './handler-bundles.js';
import { createServiceFunction, TRACING_WILDCARD_ACKNOWLEDGEMENT } from './service-function.js';

/** The worker's entry under `lambdas/`. */
export const BATCH_WORKER_MODULE = 'workers/batch-items';

/** How long one batch of items may take. The batch queue's visibility timeout must exceed it. */
export const BATCH_WORKER_TIMEOUT = Duration.minutes(5);

export interface BatchWorkerProps {
  bundles: HandlerBundles;
  queue: IQueue;
  environment: Readonly<Record<string, string>>;
  /** What the items need: table items, media, events. */
  managedPolicies: readonly IManagedPolicy[];
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
}

export class BatchWorker extends Construct {
  readonly function: LambdaFunction;

  constructor(scope: Construct, id: string, props: BatchWorkerProps) {
    super(scope, id);
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      managedPolicies: [...props.managedPolicies],
    });
    this.function = createServiceFunction(this, 'Function', {
      code: props.bundles.codeFor(this, BATCH_WORKER_MODULE),
      role,
      environment: props.environment,
      description: 'Batch worker: one message per batch item',
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      timeout: BATCH_WORKER_TIMEOUT,
      memorySize: 1024,
    });
    Validations.of(role).acknowledge(TRACING_WILDCARD_ACKNOWLEDGEMENT);
    this.function.addEventSource(
      // One item per invocation: an item may verify and copy a large file, and must not share the
      // function's time with nine others.
      new SqsEventSource(props.queue, { batchSize: 1, reportBatchItemFailures: true }),
    );
  }
}
