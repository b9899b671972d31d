/**
 * Powertools logger, metrics and tracer: one instance each per process. Service name and levels come
 * from the standard POWERTOOLS_* environment variables that the stack sets.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';

const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? 'video-creation-service';

export const logger = new Logger({ serviceName });
export const metrics = new Metrics({
  serviceName,
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'VideoCreationService',
});
export const tracer = new Tracer({ serviceName });
