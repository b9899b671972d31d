/**
 * The handler of every route that is part of the contract but not built yet. It runs the same
 * pipeline as a real route (authentication, scopes, rate limit), then answers 501 `not_implemented`
 * in the error envelope. The route is identified from the API Gateway event, so this one module
 * serves every such route.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { NotImplementedError } from '../core/errors.js';
import { type ApiLambdaHandler, apiHandler } from './pipeline/api-handler.js';
import { ROUTES } from './routes.js';

const pipelines = new Map<string, ApiLambdaHandler>();

function pipelineFor(operationId: string): ApiLambdaHandler {
  let pipeline = pipelines.get(operationId);
  if (!pipeline) {
    pipeline = apiHandler(operationId, {}, async () => {
      throw new NotImplementedError(operationId);
    });
    pipelines.set(operationId, pipeline);
  }
  return pipeline;
}

export async function handler(event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> {
  const route = ROUTES.find(
    (candidate) => candidate.method === event.httpMethod && candidate.path === event.resource,
  );
  if (!route) throw new Error(`No route ${event.httpMethod} ${event.resource} in the route table`);
  return pipelineFor(route.operationId)(event, context);
}
