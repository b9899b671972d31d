/**
 * The batch worker: one function consuming the batch queue (one message per batch item), with
 * partial batch failures, so only failed items are retried and, after the queue's receive limit, go
 * to its dead-letter queue (alarmed). Items may hash and move large media, hence the longer timeout;
 * the queue's visibility timeout is six times longer, as Lambda recommends for SQS sources.
 */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { type IManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { EventSourceMapping, type Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Grant } from '../../lambdas/core/grants.js';
import { BATCH_ITEM_GRANTS, FUNCTION_GRANTS } from '../access/function-access.js';
import { QUEUES } from '../messaging-topology.js';
import { type GrantTargets, grantToRole } from './grant-statements.js';
import type { HandlerBundles } from './handler-bundles.js';
import { createServiceFunction } from './service-function.js';

/** The worker's entry under `lambdas/`. */
export const BATCH_WORKER_MODULE = 'workers/batch-items';

/** How long one batch of items may take: the batch queue's consumer timeout (`lib/messaging-topology.ts`). */
export const BATCH_WORKER_TIMEOUT = Duration.seconds(QUEUES.batch.consumerTimeoutSeconds);

export interface BatchWorkerProps {
  bundles: HandlerBundles;
  environment: Readonly<Record<string, string>>;
  /** The shared policies of `BATCH_ITEM_GRANTS` (lib/access/function-access.ts). */
  managedPolicies: readonly IManagedPolicy[];
  /** The batch queue, and what the worker's own grant (consuming it) names. */
  grantTargets: GrantTargets;
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
    // Its own grants beyond the shared policies: consuming the batch queue.
    const shared = new Set<Grant>(BATCH_ITEM_GRANTS);
    grantToRole(
      role,
      FUNCTION_GRANTS.batchWorker.filter((grant) => !shared.has(grant)),
      props.grantTargets,
    );
    this.function = createServiceFunction(this, 'Function', {
      code: props.bundles.codeFor(this, BATCH_WORKER_MODULE),
      runs: { bundle: BATCH_WORKER_MODULE },
      role,
      environment: props.environment,
      description: 'Batch worker: one message per batch item',
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      timeout: BATCH_WORKER_TIMEOUT,
      memorySize: 1024,
    });
    // A mapping of its own rather than SqsEventSource, whose grants include an unconditioned
    // kms:Decrypt on the queue's key (`consumeBatchItems` grants what polling needs).
    new EventSourceMapping(this, 'QueueSource', {
      target: this.function,
      eventSourceArn: props.grantTargets.batchQueue.queue.queueArn,
      // One item per invocation: an item may verify and copy a large file, and must not share the
      // function's time with nine others.
      batchSize: 1,
      reportBatchItemFailures: true,
    });
  }
}
