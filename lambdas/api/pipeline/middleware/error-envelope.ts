/**
 * Outermost middleware: every failure becomes the spec's error envelope. Typed ServiceErrors carry
 * their status and code; anything else is a 500 whose message is logged, never returned.
 */
import { config } from '../../../core/config.js';
import { apiBaseUrl, errorDocsUrl, errorEnvelope } from '../../../core/envelope.js';
import { ServiceError } from '../../../core/errors.js';
import { countRequest, logger, REQUEST_OUTCOMES } from '../../../core/observability.js';
import type { ApiMiddleware } from './pipeline-context.js';

export const INTERNAL_ERROR_MESSAGE =
  'An internal error occurred. Retry later; if it persists, contact support with the request id.';

export function errorEnvelopeMiddleware(): ApiMiddleware {
  return {
    onError: async (request) => {
      const error = request.error;
      const known = error instanceof ServiceError ? error : undefined;
      const status = known?.status ?? 500;
      if (status >= 500) logger.error('Request failed', { error });
      else logger.info('Request rejected', { code: known?.code, param: known?.param });
      countRequest(
        request.context.pipeline.route.operationId,
        status >= 500 ? REQUEST_OUTCOMES.serverError : REQUEST_OUTCOMES.clientError,
      );
      const code = known?.code ?? 'internal_error';
      const message = known?.expose ? known.message : INTERNAL_ERROR_MESSAGE;
      const { requestContext, headers } = request.event;
      const protocol = Object.entries(headers ?? {}).find(
        ([name]) => name.toLowerCase() === 'x-forwarded-proto',
      )?.[1];
      const docs = errorDocsUrl(
        config().docBaseUrl,
        apiBaseUrl({ domainName: requestContext?.domainName, stage: requestContext?.stage, protocol }),
      );
      const body = errorEnvelope(code, message, known?.param ?? null, docs, known?.errors);
      request.response = {
        statusCode: status,
        headers: {
          'Content-Type': 'application/json; charset=utf-8',
          'X-Request-Id': request.context.awsRequestId,
          ...request.context.pipeline.responseHeaders,
          ...known?.headers,
        },
        body: JSON.stringify(body),
      };
    },
  };
}
