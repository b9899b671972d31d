/**
 * Parses and validates the JSON body, query string and path parameters with the route's schemas.
 * Unknown query parameters are ignored and logged (core/validation.ts `parseQuery`); unknown body
 * fields and path parameters are errors.
 */
import { InvalidParameterError } from '../../../core/errors.js';
import { logger } from '../../../core/observability.js';
import { parseInput, parseQuery } from '../../../core/validation.js';
import type { RequestSchemas } from '../endpoint.js';
import type { ApiMiddleware } from './pipeline-context.js';

function parseJsonBody(raw: string | null, isBase64Encoded: boolean): unknown {
  if (raw === null || raw === '') return undefined;
  const text = isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidParameterError('The request body is not valid JSON.', null);
  }
}

export function validationMiddleware(schemas: RequestSchemas): ApiMiddleware {
  return {
    before: async (request) => {
      const { event } = request;
      const body = schemas.body ? parseJsonBody(event.body, event.isBase64Encoded) : undefined;
      if (schemas.body) {
        const contentType = Object.entries(event.headers ?? {}).find(
          ([name]) => name.toLowerCase() === 'content-type',
        )?.[1];
        if (body !== undefined && contentType && !/^application\/json\b/i.test(contentType)) {
          throw new InvalidParameterError('Send the body as JSON with Content-Type: application/json.', null);
        }
      }
      const parsedBody = schemas.body ? parseInput(schemas.body, body ?? {}) : undefined;
      const rawQuery = event.queryStringParameters ?? {};
      const query = schemas.query
        ? parseQuery(schemas.query, rawQuery)
        : { query: {}, ignored: Object.keys(rawQuery) };
      if (query.ignored.length > 0) {
        // Names only: a value may be anything a client put in its URL.
        logger.info('Ignored query parameters the route does not know', { ignored: query.ignored });
      }
      request.context.pipeline.input = {
        body: parsedBody,
        query: query.query,
        path: schemas.path
          ? parseInput(schemas.path, event.pathParameters ?? {})
          : (event.pathParameters ?? {}),
      };
    },
  };
}
