/** Parses and validates the JSON body, query string and path parameters with the route's schemas. */
import { InvalidParameterError } from '../../../core/errors.js';
import { parseInput } from '../../../core/validation.js';
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
      request.context.pipeline.input = {
        body: schemas.body ? parseInput(schemas.body, body ?? {}) : undefined,
        query: schemas.query ? parseInput(schemas.query, event.queryStringParameters ?? {}) : {},
        path: schemas.path
          ? parseInput(schemas.path, event.pathParameters ?? {})
          : (event.pathParameters ?? {}),
      };
    },
  };
}
