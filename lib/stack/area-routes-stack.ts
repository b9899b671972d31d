/**
 * The routes of one area in one nested stack: a Lambda function per route, the API Gateway resources
 * the area owns, its methods, the `ANY` catch-all of each of its paths and, when configured, CORS
 * preflight. With ~130 routes at four resources each, one stack would pass CloudFormation's
 * 500-resource cap; an area stack stays far below it.
 *
 * The REST API lives in the root stack and is imported by attributes, the pattern of aws-cdk-lib's
 * `integ.restapi-import.lit.ts`. An imported API has no deployment to track these methods, so each
 * area stack exposes `apiDescription` for the root stack's deployment (see `service-api.ts`).
 */
import { Duration, NestedStack, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AuthorizationType,
  type IAuthorizer,
  type IResource,
  LambdaIntegration,
  type Method,
  type MethodOptions,
  Resource,
  ResponseTransferMode,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { type IManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { CORS_ALLOWED_HEADERS } from '../../lambdas/api/gateway-responses.js';
import { type RouteArea, streamsResponse } from '../../lambdas/api/pipeline/route-types.js';
import { ROUTE_OPERATION_ID_VARIABLE } from '../../lambdas/core/config.js';
import type { HandlerBundles } from './handler-bundles.js';
import { type ApiPlan, integrationOf } from './route-plan.js';
import { createServiceFunction, TRACING_WILDCARD_ACKNOWLEDGEMENT } from './service-function.js';
import { type MockMethod, methodNotAllowed, removedRoute } from './static-responses.js';

export interface AreaRoutesStackProps {
  area: RouteArea;
  plan: ApiPlan;
  restApiId: string;
  rootResourceId: string;
  /** Ids of the resources the root stack creates (those shared by several areas), by path. */
  sharedResourceIds: ReadonlyMap<string, string>;
  authorizer: IAuthorizer;
  bundles: HandlerBundles;
  environment: Readonly<Record<string, string>>;
  /** Policies of the area's execution role. */
  managedPolicies: readonly IManagedPolicy[];
  docBaseUrl: string;
  /** Origins for CORS preflight. @default [] (no OPTIONS methods) */
  allowedCorsOrigins?: readonly string[];
  logRetention: RetentionDays;
  /** Of the function log groups. */
  logRemovalPolicy: RemovalPolicy;
}

/**
 * Integration timeout of a streamed route (API Gateway allows up to 15 minutes when streaming; 29 s
 * otherwise), and its function's timeout, a little shorter so the function's own error is logged.
 */
export const STREAMING_INTEGRATION_TIMEOUT = Duration.minutes(5);
export const STREAMING_FUNCTION_TIMEOUT = Duration.seconds(295);

const UNAUTHENTICATED_REASONS = {
  public:
    "Public by design (route table auth 'none'): it serves no workspace data (today only the OpenAPI document).",
  removed:
    'A removed route answers 410 to anyone: it runs no code, reveals nothing and helps callers migrate.',
  catchAll:
    'The ANY catch-all only answers 405 with the methods the path has (public in the OpenAPI document); it runs no code and reads no data.',
} as const;

export class AreaRoutesStack extends NestedStack {
  /** What the methods are, as plain data: it goes into the deployment's logical id, so a change redeploys. */
  readonly apiDescription: Record<string, unknown>[] = [];

  constructor(scope: Construct, id: string, props: AreaRoutesStackProps) {
    super(scope, id, { description: `Video Creation Service: the ${props.area} routes` });
    const { area, plan } = props;
    const api = RestApi.fromRestApiAttributes(this, 'RestApi', {
      restApiId: props.restApiId,
      rootResourceId: props.rootResourceId,
    });

    const resources = new Map<string, IResource>([['/', api.root]]);
    const resourceAt = (path: string): IResource => {
      const existing = resources.get(path);
      if (existing) return existing;
      const sharedId = props.sharedResourceIds.get(path);
      if (!sharedId) throw new Error(`No API resource for ${path} in the ${area} stack`);
      // Named after the path, so the area's resources below it get readable logical ids (`v3folders...`).
      const imported = Resource.fromResourceAttributes(this, path.replace(/[^A-Za-z0-9]/g, ''), {
        restApi: api,
        resourceId: sharedId,
        path,
      });
      resources.set(path, imported);
      return imported;
    };
    for (const resourcePlan of plan.resources.filter((candidate) => candidate.ownerArea === area)) {
      resources.set(
        resourcePlan.path,
        resourceAt(resourcePlan.parentPath).addResource(resourcePlan.pathPart),
      );
    }

    const routes = plan.paths.flatMap((pathPlan) => pathPlan.routes.filter((route) => route.area === area));
    let role: Role | undefined;
    const executionRole = (): Role => {
      role ??= new Role(this, 'ExecutionRole', {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
        description: `Functions of the ${area} routes`,
        managedPolicies: [...props.managedPolicies],
      });
      return role;
    };

    for (const route of routes) {
      const resource = resourceAt(route.path);
      const integration = integrationOf(route);
      if (integration.kind === 'removed') {
        this.addMockMethod(resource, route, removedRoute(route, props.docBaseUrl), 'removed');
        continue;
      }
      // Response streaming, see lambdas/api/pipeline/response-streaming.ts.
      const streaming = streamsResponse(route);
      const fn = createServiceFunction(this, `${route.operationId}Function`, {
        code: props.bundles.codeFor(this, integration.bundle),
        runs: { bundle: integration.bundle },
        role: executionRole(),
        environment: { ...props.environment, [ROUTE_OPERATION_ID_VARIABLE]: route.operationId },
        description: `${route.method} ${route.path}`,
        logRetention: props.logRetention,
        removalPolicy: props.logRemovalPolicy,
        ...(streaming ? { timeout: STREAMING_FUNCTION_TIMEOUT } : {}),
      });
      const options: MethodOptions =
        route.auth === 'required'
          ? { operationName: route.operationId, authorizer: props.authorizer }
          : { operationName: route.operationId, authorizationType: AuthorizationType.NONE };
      const method = resource.addMethod(
        route.method,
        new LambdaIntegration(fn, {
          allowTestInvoke: false,
          ...(streaming
            ? { responseTransferMode: ResponseTransferMode.STREAM, timeout: STREAMING_INTEGRATION_TIMEOUT }
            : {}),
        }),
        options,
      );
      if (route.auth === 'none') acknowledgeUnauthenticated(method, UNAUTHENTICATED_REASONS.public);
      this.apiDescription.push({
        method: route.method,
        path: route.path,
        function: fn.node.path,
        auth: route.auth,
        operationName: route.operationId,
        ...(streaming ? { responseTransferMode: 'STREAM' } : {}),
      });
    }

    for (const pathPlan of plan.paths.filter((candidate) => candidate.area === area)) {
      const resource = resourceAt(pathPlan.path);
      const notAllowed = methodNotAllowed(pathPlan.path, pathPlan.allowedMethods, props.docBaseUrl);
      this.addMockMethod(resource, { method: 'ANY', path: pathPlan.path }, notAllowed, 'catchAll');
      const origins = props.allowedCorsOrigins ?? [];
      if (origins.length > 0) {
        resource.addCorsPreflight({
          allowOrigins: [...origins],
          allowMethods: [...pathPlan.allowedMethods],
          allowHeaders: [...CORS_ALLOWED_HEADERS],
        });
        this.apiDescription.push({ method: 'OPTIONS', path: pathPlan.path, origins });
      }
    }

    if (role) {
      Validations.of(role).acknowledge(TRACING_WILDCARD_ACKNOWLEDGEMENT);
    }
  }

  private addMockMethod(
    resource: IResource,
    target: { method: string; path: string; operationId?: string },
    mock: MockMethod,
    why: keyof typeof UNAUTHENTICATED_REASONS,
  ): void {
    const method = resource.addMethod(target.method, mock.integration, {
      ...mock.options,
      ...(target.operationId ? { operationName: target.operationId } : {}),
      authorizationType: AuthorizationType.NONE,
    });
    acknowledgeUnauthenticated(method, UNAUTHENTICATED_REASONS[why]);
    this.apiDescription.push({ method: target.method, path: target.path, mock: mock.description });
  }
}

function acknowledgeUnauthenticated(method: Method, reason: string): void {
  Validations.of(method).acknowledge(
    { id: 'AwsSolutions-APIG4', reason },
    { id: 'AwsSolutions-COG4', reason },
  );
}
