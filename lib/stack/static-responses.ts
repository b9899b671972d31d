/**
 * Answers API Gateway produces by itself, in the spec's error envelope and byte for byte what the
 * local server answers: mock integrations (405 on a known path, 410 on a removed route, 404 on the
 * API root) and gateway responses (errors raised before any integration runs).
 */
import {
  ContentHandling,
  type GatewayResponseOptions,
  type MethodOptions,
  MockIntegration,
  PassthroughBehavior,
  ResponseType,
} from 'aws-cdk-lib/aws-apigateway';
import { GATEWAY_RESPONSES, type GatewayResponseDefinition } from '../../lambdas/api/gateway-responses.js';
import type { HttpMethod, RouteDefinition } from '../../lambdas/api/pipeline/route-types.js';
import { goneResponse } from '../../lambdas/api/removed-route.js';
import { DOC_PATHS, errorEnvelope } from '../../lambdas/core/envelope.js';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Content types a mock integration has a request template for. A mock answers from its request
 * template alone, but API Gateway picks the template by the request's Content-Type and, with
 * passthrough NEVER, answers 415 when none matches; these cover what API clients send.
 */
const MOCK_REQUEST_CONTENT_TYPES = [
  'application/json',
  'application/x-www-form-urlencoded',
  'application/xml',
  'application/octet-stream',
  'multipart/form-data',
  'text/plain',
] as const;

// VTL formal references (`${name}`), not JavaScript template placeholders.
const VTL_DOLLAR = '$' + '{dollar}';
const VTL_HASH = '$' + '{hash}';
const VTL_PRELUDE = "#set($dollar = '$')#set($hash = '#')";

/**
 * A static text inside a VTL template. In VTL `$` starts a reference and `#` a directive, so both
 * are emitted from variables set to them (single-quoted VTL strings are never interpreted).
 */
function vtlText(text: string): string {
  return text.replaceAll('$', VTL_DOLLAR).replaceAll('#', VTL_HASH);
}

const DOC_BASE_MARKER = '__DOC_BASE_URL__';

/**
 * The base of error `doc_url`s in a template: the configured page, or else the error catalogue the API
 * serves, named from the request as the functions name it (core/envelope.ts `apiBaseUrl`): API Gateway
 * substitutes `$context.domainName` and `$context.stage` both in gateway responses and in mock
 * templates. Templates are built with a marker in its place (`withDocBase` puts it in), so `vtlText`
 * does not escape the `$` of these references.
 */
function docBase(docBaseUrl: string): string {
  return docBaseUrl || DOC_BASE_MARKER;
}

function withDocBase(template: string): string {
  return template.replaceAll(
    DOC_BASE_MARKER,
    `https://$context.domainName/$context.stage${DOC_PATHS.errors}`,
  );
}

export interface MockMethod {
  integration: MockIntegration;
  options: MethodOptions;
  /** What the mock answers, as plain data (for the deployment fingerprint). */
  description: { status: number; bodyTemplate: string; headers: Record<string, string> };
}

/**
 * A mock integration answering `status` with a JSON body. `bodyTemplate` is VTL: build it with
 * `vtlText` for static parts.
 */
function mockMethod(status: number, bodyTemplate: string, headers: Record<string, string> = {}): MockMethod {
  const allHeaders = { 'Content-Type': JSON_CONTENT_TYPE, ...headers };
  const statusCode = String(status);
  return {
    description: { status, bodyTemplate, headers: allHeaders },
    integration: new MockIntegration({
      passthroughBehavior: PassthroughBehavior.NEVER,
      // Binary bodies (uploads) reach the request template as base64 text; the template ignores them.
      contentHandling: ContentHandling.CONVERT_TO_TEXT,
      requestTemplates: Object.fromEntries(
        MOCK_REQUEST_CONTENT_TYPES.map((contentType) => [
          contentType,
          JSON.stringify({ statusCode: status }),
        ]),
      ),
      integrationResponses: [
        {
          statusCode,
          responseTemplates: { 'application/json': `${VTL_PRELUDE}${bodyTemplate}` },
          responseParameters: Object.fromEntries(
            Object.entries(allHeaders).map(([name, value]) => [
              `method.response.header.${name}`,
              `'${value}'`,
            ]),
          ),
        },
      ],
    }),
    options: {
      methodResponses: [
        {
          statusCode,
          responseParameters: Object.fromEntries(
            Object.keys(allHeaders).map((name) => [`method.response.header.${name}`, true]),
          ),
        },
      ],
    },
  };
}

/**
 * 405 `method_not_allowed` for any method a path does not have, with the `Allow` header. It backs the
 * path's `ANY` method: API Gateway prefers a resource's specific methods over `ANY`.
 */
export function methodNotAllowed(
  path: string,
  allowedMethods: readonly HttpMethod[],
  docBaseUrl: string,
): MockMethod {
  const allowed = allowedMethods.join(', ');
  const httpMethodMarker = '__HTTP_METHOD__';
  const body = JSON.stringify(
    errorEnvelope(
      'method_not_allowed',
      `${httpMethodMarker} is not allowed on ${path}. Allowed: ${allowed}.`,
      null,
      docBase(docBaseUrl),
    ),
  );
  return mockMethod(405, withDocBase(vtlText(body).replace(httpMethodMarker, '$context.httpMethod')), {
    Allow: allowed,
  });
}

/** 410 `gone` for a route removed from the contract, naming what replaces it. */
export function removedRoute(route: RouteDefinition, docBaseUrl: string): MockMethod {
  const gone = goneResponse(route, docBase(docBaseUrl));
  return mockMethod(gone.statusCode, withDocBase(vtlText(gone.body)), gone.headers);
}

/** 404 `not_found` on the API root, as for any path no resource matches. */
export function apiRootNotFound(docBaseUrl: string): MockMethod {
  const { status, code, message } = GATEWAY_RESPONSES.unknownPath;
  return mockMethod(
    status,
    withDocBase(vtlText(JSON.stringify(errorEnvelope(code, message, null, docBase(docBaseUrl))))),
  );
}

/**
 * Gateway response templates are not VTL: API Gateway only substitutes `$context...` variables. The
 * authorizer's denial reason comes from the context it returned (`errorCode`, `errorMessage`); its
 * messages are fixed sentences without quotes, so they are safe inside a JSON string.
 */
export function gatewayResponseOptions(
  definition: GatewayResponseDefinition,
  docBaseUrl: string,
  denialContext: { code: string; message: string },
): GatewayResponseOptions {
  const codeMarker = '__CODE__';
  const messageMarker = '__MESSAGE__';
  const template = withDocBase(
    definition.fromAuthorizer
      ? JSON.stringify(errorEnvelope(codeMarker, messageMarker, null, docBase(docBaseUrl)))
          .replaceAll(codeMarker, `$context.authorizer.${denialContext.code}`)
          .replace(messageMarker, `$context.authorizer.${denialContext.message}`)
      : JSON.stringify(errorEnvelope(definition.code, definition.message, null, docBase(docBaseUrl))),
  );
  return {
    type: ResponseType.of(definition.type),
    ...(definition.status ? { statusCode: String(definition.status) } : {}),
    responseHeaders: { 'Content-Type': `'${JSON_CONTENT_TYPE}'` },
    templates: { 'application/json': template },
  };
}
