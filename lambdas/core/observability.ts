/**
 * Powertools logger and metrics: one instance each per process. Service name and levels come from
 * the standard POWERTOOLS_* environment variables that the stack sets.
 *
 * Traces come from Lambda's and API Gateway's active X-Ray tracing. The Powertools Tracer is not
 * loaded: it pulls in the X-Ray SDK, whose async hooks tax every promise of the process, for no
 * segment these thin handlers need beyond what active tracing already records.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? 'video-creation-service';

export const logger = new Logger({ serviceName });
export const metrics = new Metrics({
  serviceName,
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'VideoCreationService',
});
