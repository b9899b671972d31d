/**
 * Powertools logger, metrics and tracer: one instance each per process. Service name and levels come
 * from the standard POWERTOOLS_* environment variables that the stack sets.
 *
 * The tracer is loaded only when POWERTOOLS_TRACE_ENABLED is `true`, which the CDK stack sets: it
 * brings the X-Ray SDK, whose async hooks tax every promise of the process, for traces that only
 * X-Ray can receive.
 *
 * These are the one place outside core/config.ts that reads the environment, on purpose: they are
 * Powertools' own variables (Powertools itself reads them too), and they are needed when this module
 * loads, before any handler runs, where `config()` would demand the service's settings (`TABLE_NAME`)
 * of every process that only wants a logger. They are not reset with the configuration: a logger keeps
 * its settings for the life of the process, as it does in Lambda.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { booleanFrom } from './config.js';

const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? 'video-creation-service';

export const logger = new Logger({ serviceName });

export const metrics = new Metrics({
  serviceName,
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'VideoCreationService',
});

export const REQUEST_OUTCOMES = {
  success: 'Success',
  clientError: 'ClientError',
  serverError: 'ServerError',
} as const;
export type RequestOutcome = (typeof REQUEST_OUTCOMES)[keyof typeof REQUEST_OUTCOMES];

/**
 * Counts one API request by operation and outcome. A single-metric object is published at once, so
 * concurrent invocations in one process (the local stack) never mix their dimensions.
 */
export function countRequest(operationId: string, outcome: RequestOutcome): void {
  const metric = metrics.singleMetric();
  metric.addDimensions({ operation: operationId, outcome });
  metric.addMetric('Requests', MetricUnit.Count, 1);
}

const tracingEnabled = booleanFrom('POWERTOOLS_TRACE_ENABLED');

/** The tracer, when tracing is on; undefined otherwise. */
export const tracer: Tracer | undefined = tracingEnabled
  ? new (await import('@aws-lambda-powertools/tracer')).Tracer({ serviceName })
  : undefined;

/** The tracer's middy middleware, when there is a tracer. */
export const tracingMiddleware = tracer
  ? (await import('@aws-lambda-powertools/tracer/middleware')).captureLambdaHandler(tracer)
  : undefined;
