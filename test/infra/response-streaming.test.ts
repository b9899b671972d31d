/**
 * The streamed routes deploy as API Gateway response streaming: its method's Lambda proxy integration
 * has `ResponseTransferMode: STREAM`, invokes the function through `InvokeWithResponseStream`
 * (`response-streaming-invocations`), and both the integration and the function outlast the 29 s a
 * buffered route gets. Every other route stays buffered.
 */
import { describe, expect, it } from 'vitest';
import { streamsResponse } from '../../lambdas/api/pipeline/route-types.js';
import { ROUTES } from '../../lambdas/api/routes.js';
import {
  STREAMING_FUNCTION_TIMEOUT,
  STREAMING_INTEGRATION_TIMEOUT,
} from '../../lib/stack/area-routes-stack.js';
import { assemblyTemplates, resourcesOfType, sharedAssembly } from './synth-helpers.js';

// Only templates are read: the default build's shared assembly (synth-helpers.ts).
const { nested: areaTemplates } = assemblyTemplates(sharedAssembly({ validateTemplates: false }));
const STREAMED = ROUTES.filter(streamsResponse);

describe('response streaming in the stack', () => {
  it('has routes that stream: streamed speech, and the word events of a realtime avatar stream', () => {
    expect(STREAMED.map((route) => route.operationId).sort()).toEqual([
      'AvatarRealtimeWordsList',
      'ModelAudioTtsStreamCreate',
    ]);
  });

  it('gives exactly the streamed routes a STREAM integration and longer timeouts', () => {
    let streamed = 0;
    for (const template of areaTemplates) {
      const functions = new Map(resourcesOfType(template, 'AWS::Lambda::Function'));
      for (const [, method] of resourcesOfType(template, 'AWS::ApiGateway::Method')) {
        const properties = method.Properties as {
          OperationName?: string;
          Integration?: {
            Type?: string;
            ResponseTransferMode?: string;
            TimeoutInMillis?: number;
            Uri?: unknown;
          };
        };
        const route = ROUTES.find((candidate) => candidate.operationId === properties.OperationName);
        if (!route || properties.Integration?.Type !== 'AWS_PROXY') continue;
        const isStreamed = STREAMED.includes(route);
        expect(properties.Integration.ResponseTransferMode === 'STREAM', route.operationId).toBe(isStreamed);
        if (!isStreamed) continue;
        streamed += 1;
        expect(JSON.stringify(properties.Integration.Uri)).toContain('response-streaming-invocations');
        expect(properties.Integration.TimeoutInMillis).toBe(STREAMING_INTEGRATION_TIMEOUT.toMilliseconds());
        const fn = [...functions.values()].find(
          (candidate) =>
            (candidate.Properties as { Description?: string }).Description ===
            `${route.method} ${route.path}`,
        );
        expect((fn?.Properties as { Timeout?: number } | undefined)?.Timeout).toBe(
          STREAMING_FUNCTION_TIMEOUT.toSeconds(),
        );
      }
    }
    expect(streamed).toBe(STREAMED.length);
  });
});
