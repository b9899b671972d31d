/**
 * Builds the OpenAPI 3.1 document from the route table: each row and its endpoint's request schemas. Run by
 * `npm run docs:generate`, which writes `meta/openapi.generated.json`; a test fails when the committed
 * document differs from a fresh build, so the served document never drifts from the code.
 */
import { z } from 'zod';
import { LEGACY_DEPRECATED_AT, LEGACY_SUNSET_AT } from './pipeline/deprecation.js';
import { IDEMPOTENCY_HEADER } from './pipeline/idempotency.js';
import type { RouteDefinition } from './pipeline/route-types.js';

type JsonObject = Record<string, unknown>;

/** A request schema as JSON Schema, the way the document (and the fuzz tests deriving cases from it) read it. */
export function requestJsonSchema(schema: z.ZodType): JsonObject {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
  }) as JsonObject;
  return rest;
}

/** A response body's schema as JSON Schema: what the endpoint sends (zod's output side). */
export function responseJsonSchema(schema: z.ZodType): JsonObject {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io: 'output',
    unrepresentable: 'any',
  }) as JsonObject;
  return rest;
}

function queryParameters(schema: z.ZodType | undefined): JsonObject[] {
  if (!schema) return [];
  const described = requestJsonSchema(schema);
  const properties = (described.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set((described.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name) && property.default === undefined,
    schema: property,
  }));
}

function pathParameters(path: string): JsonObject[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
}

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
});

function operation(route: RouteDefinition): JsonObject {
  const { endpoint } = route;
  const parameters = [
    ...pathParameters(route.path),
    ...queryParameters(endpoint?.request.query),
    ...(route.idempotent
      ? [
          {
            name: IDEMPOTENCY_HEADER,
            in: 'header',
            required: false,
            description: 'Replays the first response for 24 hours; 409 request_in_progress while it runs.',
            schema: { type: 'string', pattern: '^[A-Za-z0-9_\\-:.]{1,255}$' },
          },
        ]
      : []),
  ];
  const responses: JsonObject = {};
  if (route.removed) {
    responses['410'] = errorResponse(`Removed. Use ${route.removed.replacement}.`);
  } else if (endpoint) {
    responses[String(endpoint.successStatus)] = {
      description: 'Success',
      ...(route.deprecated ? { headers: DEPRECATION_RESPONSE_HEADERS } : {}),
      content: {
        'application/json': {
          schema: endpoint.response ? responseJsonSchema(endpoint.response) : { type: 'object' },
        },
      },
    };
  }
  if (route.auth === 'required') {
    responses['401'] = errorResponse('Missing, invalid or expired credentials.');
    responses['403'] = errorResponse(
      'The key lacks a required scope, or the caller cannot use this endpoint.',
    );
    responses['429'] = errorResponse('Rate limit exceeded; see Retry-After.');
  }
  if (endpoint) responses['400'] = errorResponse('Invalid request; `param` names the field.');
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.deprecated
      ? { description: `Deprecated: kept for older clients. Use ${route.deprecated.replacement}.` }
      : route.extension
        ? { description: "Extension: this service's own, not part of the hosted API." }
        : {}),
    tags: [route.area],
    ...(route.auth === 'none' ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(endpoint?.request.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: requestJsonSchema(endpoint.request.body) } },
          },
        }
      : {}),
    responses,
    'x-required-scopes': route.scopes,
    'x-rate-limit-class': route.rateClass,
    'x-idempotent': route.idempotent,
    'x-billing': route.billing,
    ...(route.removed || route.deprecated ? { deprecated: true } : {}),
    ...(route.extension ? { 'x-extension': true } : {}),
  };
}

/** The headers every answer of a deprecated route carries (api/pipeline/deprecation.ts). */
const DEPRECATION_RESPONSE_HEADERS: JsonObject = {
  Deprecation: {
    description: 'RFC 9745: when the route was deprecated, as `@` and Unix seconds.',
    schema: { type: 'string', example: `@${Math.floor(LEGACY_DEPRECATED_AT.getTime() / 1000)}` },
  },
  Sunset: {
    description: 'RFC 8594: when the route may stop answering (an HTTP-date).',
    schema: { type: 'string', example: LEGACY_SUNSET_AT.toUTCString() },
  },
};

export function buildOpenApiDocument(routes: readonly RouteDefinition[], version: string): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    (paths[route.path] as JsonObject)[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Video Creation Service API',
      version,
      description:
        'Self-hostable implementation of the Video Creation Service API v3: every route of the contract, served.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/' }],
    security: [{ ApiKeyAuth: [] }, { BearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
      schemas: {
        ErrorEnvelope: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message', 'param', 'doc_url'],
              properties: {
                code: { type: 'string' },
                message: { type: 'string' },
                param: { type: ['string', 'null'] },
                doc_url: { type: ['string', 'null'] },
                errors: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      code: { type: 'string' },
                      message: { type: 'string' },
                      node_id: { type: 'string' },
                      port: { type: 'string' },
                      path: { type: 'string' },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
}
