/**
 * The response contract: implemented routes declare the JSON body they answer with (zod, beside their
 * request schemas), the OpenAPI document publishes it, and each is readable by clients generated from
 * the hosted API's schema of the same operation (test/fixtures/reference-response-schemas.json, from
 * the reference's cli_specs.json). The integration tests check every 2xx answer against it
 * (test/support/response-contract.ts).
 */
import { describe, expect, it } from 'vitest';
import { responseJsonSchema } from '../../lambdas/api/openapi.js';
import { ROUTES } from '../../lambdas/api/routes.js';
import reference from '../fixtures/reference-response-schemas.json' with { type: 'json' };
import { responseIncompatibilities } from '../support/response-compatibility.js';

type ReferenceOperation = { method: string; path: string; response: Record<string, unknown> | null };
const referenceOperations = Object.values(reference as Record<string, ReferenceOperation>);

/**
 * Routes whose success is not JSON: the OpenAPI document, the doc and consent pages, streamed and binary
 * audio, a realtime stream's word events.
 */
const NOT_JSON: readonly string[] = [
  'OpenApiGet',
  'ErrorDocsGet',
  'WebhookDocsGet',
  'AvatarConsentPageGet',
  'AvatarConsentPageSubmit',
  'ModelAudioTtsStreamCreate',
  'AvatarRealtimeWordsList',
];

const implemented = ROUTES.filter((route) => route.endpoint && !route.removed);

describe('response schemas', () => {
  it('are declared by every implemented route that answers JSON', () => {
    const missing = implemented
      .filter((route) => !route.endpoint?.response && !NOT_JSON.includes(route.operationId))
      .map((route) => route.operationId)
      .sort();
    expect(missing).toEqual([]);
  });

  it.each(
    implemented
      .filter((route) => route.endpoint?.response)
      .map((route) => [`${route.method} ${route.path}`, route] as const),
  )('%s reads as the reference client expects', (_label, route) => {
    const operation = referenceOperations.find(
      (candidate) => candidate.method === route.method && candidate.path === route.path,
    );
    const ours = responseJsonSchema(route.endpoint?.response as never);
    expect(ours.type ?? ours.anyOf).toBeDefined();
    if (!operation?.response) return;
    expect(responseIncompatibilities(ours, operation.response)).toEqual([]);
  });
});
