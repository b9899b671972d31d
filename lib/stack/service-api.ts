/**
 * The REST API: the RestApi and its stage (access logs, execution logs, tracing, throttling), the
 * Lambda REQUEST authorizer, gateway responses in the error envelope, and one nested stack per
 * route area holding that area's functions and methods.
 *
 * Deployment: the RestApi's own Deployment only tracks methods of the root stack. Methods in nested
 * stacks are tracked by hand, as `integ.restapi-import.lit.ts` does: the deployment depends on every
 * area stack (so it is created after all their methods exist, and every route is in the snapshot),
 * and the area stacks' `apiDescription` goes into its logical id (so any route change makes a new
 * deployment instead of leaving the stage on the old snapshot).
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  AuthorizationType,
  type CfnAuthorizer,
  EndpointType,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RequestAuthorizer,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { type IManagedPolicy, type PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { DENIAL_CONTEXT, GATEWAY_RESPONSES } from '../../lambdas/api/gateway-responses.js';
import { ROUTE_AREAS, type RouteArea } from '../../lambdas/api/pipeline/route-types.js';
import { AreaRoutesStack } from './area-routes-stack.js';
import type { HandlerBundles } from './handler-bundles.js';
import type { ApiPlan } from './route-plan.js';
import { createServiceFunction, TRACING_WILDCARD_ACKNOWLEDGEMENT } from './service-function.js';
import { apiRootNotFound, gatewayResponseOptions } from './static-responses.js';

export const STAGE_NAME = 'prod';
/**
 * API Gateway result cache off, no identity sources: credentials come in `X-Api-Key` OR
 * `Authorization`, and API Gateway only caches (and only calls the authorizer) when every identity
 * source is present. So it calls the authorizer on every request, and the authorizer caches
 * resolved credentials itself (`AUTH_CACHE_TTL_SECONDS`).
 */
const AUTHORIZER_SETTINGS = { identitySources: [] as string[], resultsCacheTtlSeconds: 0 } as const;
export const AUTHORIZER_MODULE = 'api/authorizer';

/**
 * Content types API Gateway passes to functions base64-encoded (uploads, media); everything else
 * arrives as text. Mirrors the local server, which base64-encodes all but JSON, form, XML and text.
 */
export const BINARY_MEDIA_TYPES = [
  'multipart/form-data',
  'application/octet-stream',
  'application/zip',
  'audio/*',
  'image/*',
  'video/*',
] as const;

export interface ServiceApiProps {
  apiName: string;
  plan: ApiPlan;
  bundles: HandlerBundles;
  /** Environment of every API function and of the authorizer. */
  environment: Readonly<Record<string, string>>;
  /** What each area's functions get on top of `environment` (the ARNs of workflows they start). @default none */
  areaEnvironment?: (area: RouteArea) => Readonly<Record<string, string>>;
  /** Policies of the authorizer's role (read-only access to API keys and workspaces). */
  authorizerPolicies: readonly PolicyStatement[];
  /** Managed policies of each area's execution role. */
  areaPolicies: (area: RouteArea) => readonly IManagedPolicy[];
  docBaseUrl: string;
  /** @default [] (no CORS preflight) */
  allowedCorsOrigins?: readonly string[];
  /** Stage-wide default. */
  throttlingRateLimit: number;
  /** Stage-wide default. */
  throttlingBurstLimit: number;
  /** A regional WAFv2 web ACL to associate with the stage. @default none */
  webAclArn?: string;
  logRetention: RetentionDays;
  /**
   * Create API Gateway's CloudWatch Logs role and set it in the account's (per-region) API Gateway
   * settings (`ServiceOptions.apiGatewayCloudWatchRole`). @default false
   */
  apiGatewayCloudWatchRole?: boolean;
  /** Of log groups and the API Gateway CloudWatch role. @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE */
  removalPolicy?: RemovalPolicy;
  /**
   * How many area stacks CloudFormation may create (or update) at once
   * (`ServiceOptions.apiAreaStacksAtOnce`). @default 2
   */
  areaStacksAtOnce?: number;
}

export class ServiceApi extends Construct {
  readonly restApi: RestApi;
  readonly areaStacks: ReadonlyMap<RouteArea, AreaRoutesStack>;

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE;

    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: props.logRetention, removalPolicy });
    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: props.apiName,
      description: 'Video Creation Service API v3',
      endpointTypes: [EndpointType.REGIONAL],
      binaryMediaTypes: [...BINARY_MEDIA_TYPES],
      // The role API Gateway writes execution and access logs with is an account-wide setting, which
      // other stacks may manage: this stack sets it only when the deployer asks.
      ...(props.apiGatewayCloudWatchRole
        ? { cloudWatchRole: true, cloudWatchRoleRemovalPolicy: removalPolicy }
        : { cloudWatchRole: false }),
      deployOptions: {
        stageName: STAGE_NAME,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.custom(
          JSON.stringify({
            requestId: AccessLogField.contextRequestId(),
            requestTime: AccessLogField.contextRequestTime(),
            ip: AccessLogField.contextIdentitySourceIp(),
            userAgent: AccessLogField.contextIdentityUserAgent(),
            httpMethod: AccessLogField.contextHttpMethod(),
            resourcePath: AccessLogField.contextResourcePath(),
            path: AccessLogField.contextPath(),
            status: AccessLogField.contextStatus(),
            responseLength: AccessLogField.contextResponseLength(),
            responseLatency: AccessLogField.contextResponseLatency(),
            integrationLatency: AccessLogField.contextIntegrationLatency(),
            principalId: AccessLogField.contextAuthorizerPrincipalId(),
            authorizerError: AccessLogField.contextAuthorizerError(),
            errorType: AccessLogField.contextErrorResponseType(),
            xrayTraceId: AccessLogField.contextXrayTraceId(),
          }),
        ),
        tracingEnabled: true,
        metricsEnabled: true,
        // Errors only, and never request or response bodies: they carry credentials and customer data.
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        throttlingRateLimit: props.throttlingRateLimit,
        throttlingBurstLimit: props.throttlingBurstLimit,
      },
    });
    // The stack exports the URL itself (`ApiUrl`); the RestApi's automatic duplicate output goes.
    this.restApi.node.tryRemoveChild('Endpoint');
    // RestApi refuses to synthesize without a method of its own; `/` answers like any unknown path.
    const rootNotFound = apiRootNotFound(props.docBaseUrl);
    const rootMethod = this.restApi.root.addMethod('ANY', rootNotFound.integration, {
      ...rootNotFound.options,
      authorizationType: AuthorizationType.NONE,
    });
    Validations.of(rootMethod).acknowledge(
      {
        id: 'AwsSolutions-APIG4',
        reason: 'The API root only answers 404 not_found; it runs no code and reads no data.',
      },
      {
        id: 'AwsSolutions-COG4',
        reason: 'The API root only answers 404 not_found; it runs no code and reads no data.',
      },
    );

    for (const [name, definition] of Object.entries(GATEWAY_RESPONSES)) {
      this.restApi.addGatewayResponse(
        name,
        gatewayResponseOptions(definition, props.docBaseUrl, DENIAL_CONTEXT),
      );
    }

    const authorizer = this.createAuthorizer(props, removalPolicy);

    const sharedResourceIds = new Map<string, string>();
    for (const resourcePlan of props.plan.resources.filter(
      (candidate) => candidate.ownerArea === undefined,
    )) {
      sharedResourceIds.set(
        resourcePlan.path,
        this.restApi.root.resourceForPath(resourcePlan.path).resourceId,
      );
    }

    const areaStacks = new Map<RouteArea, AreaRoutesStack>();
    const areasWithRoutes = ROUTE_AREAS.filter((area) =>
      props.plan.paths.some((pathPlan) => pathPlan.routes.some((route) => route.area === area)),
    );
    for (const area of areasWithRoutes) {
      areaStacks.set(
        area,
        new AreaRoutesStack(this, `${pascalCase(area)}Routes`, {
          area,
          plan: props.plan,
          restApiId: this.restApi.restApiId,
          rootResourceId: this.restApi.restApiRootResourceId,
          sharedResourceIds,
          authorizer,
          bundles: props.bundles,
          environment: { ...props.environment, ...props.areaEnvironment?.(area) },
          managedPolicies: props.areaPolicies(area),
          docBaseUrl: props.docBaseUrl,
          allowedCorsOrigins: props.allowedCorsOrigins ?? [],
          logRetention: props.logRetention,
          logRemovalPolicy: removalPolicy,
        }),
      );
    }
    this.areaStacks = areaStacks;
    orderAreaStacks([...areaStacks.values()], props.areaStacksAtOnce ?? 2);

    const deployment = this.restApi.latestDeployment;
    if (!deployment) throw new Error('The RestApi was expected to create its deployment');
    deployment.addToLogicalId({
      // The authorizer is attached to methods of the area stacks, so the RestApi does not track it either.
      authorizer: AUTHORIZER_SETTINGS,
      areaRoutes: [...areaStacks.values()].map((areaStack) => areaStack.apiDescription),
    });
    for (const areaStack of areaStacks.values()) deployment.node.addDependency(areaStack);

    if (props.webAclArn) {
      new CfnWebACLAssociation(this, 'WebAclAssociation', {
        resourceArn: this.restApi.deploymentStage.stageArn,
        webAclArn: props.webAclArn,
      });
    } else {
      Validations.of(this.restApi.deploymentStage).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          'WAF is the deployer\'s choice (context "webAclArn" associates an existing web ACL): a web ACL is billed per month and per rule, and requests are already throttled per stage and rate-limited per workspace.',
      });
    }
    Validations.of(this.restApi).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        "Requests are validated by the handler pipeline (zod, strict objects), which answers in the API's error envelope naming the offending field in `param`; API Gateway's validator would answer in its own format.",
    });
    const cloudWatchRole = this.restApi.node.tryFindChild('CloudWatchRole');
    if (cloudWatchRole) {
      Validations.of(cloudWatchRole).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          'The AWS-managed policy made for exactly this role (API Gateway writing logs to CloudWatch Logs) and kept current by AWS.',
      });
    }
  }

  /** The Lambda REQUEST authorizer (`AUTHORIZER_SETTINGS`). */
  private createAuthorizer(props: ServiceApiProps, removalPolicy: RemovalPolicy): RequestAuthorizer {
    const role = new Role(this, 'AuthorizerRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'The API authorizer: reads API keys and workspaces',
    });
    for (const statement of props.authorizerPolicies) role.addToPolicy(statement);
    const handler = createServiceFunction(this, 'AuthorizerFunction', {
      code: props.bundles.codeFor(this, AUTHORIZER_MODULE),
      runs: { bundle: AUTHORIZER_MODULE },
      role,
      environment: props.environment,
      description: 'Lambda REQUEST authorizer of the API',
      timeout: Duration.seconds(10),
      logRetention: props.logRetention,
      removalPolicy,
    });
    Validations.of(role).acknowledge(TRACING_WILDCARD_ACKNOWLEDGEMENT);
    const authorizer = new RequestAuthorizer(this, 'Authorizer', {
      handler,
      identitySources: [...AUTHORIZER_SETTINGS.identitySources],
      resultsCacheTtl: Duration.seconds(AUTHORIZER_SETTINGS.resultsCacheTtlSeconds),
    });
    // The L2 writes `IdentitySource: ""` for an empty list; API Gateway documents the property as
    // optional when caching is off, so leave it out rather than send an empty expression.
    (authorizer.node.defaultChild as CfnAuthorizer).addPropertyDeletionOverride('IdentitySource');
    return authorizer;
  }
}

function pascalCase(kebab: string): string {
  return kebab
    .split('-')
    .map((word) => (word[0] ?? '').toUpperCase() + word.slice(1))
    .join('');
}

/**
 * Puts the area stacks in `lanes` chains: each waits for the one `lanes` places before it, so at most
 * `lanes` of them create API resources and methods at a time. Unordered, CloudFormation creates all of
 * them at once, and their ~100 `CreateResource` and ~230 `PutMethod` calls meet API Gateway's
 * control-plane quota (a few requests per second per account): 429s that fail the deploy and can fail
 * its rollback too. Chains rather than waves: a lane moves on as soon as its own stack is done.
 */
function orderAreaStacks(stacks: readonly AreaRoutesStack[], lanes: number): void {
  stacks.forEach((areaStack, index) => {
    const before = stacks[index - lanes];
    if (!before) return;
    const [resource, previous] = [areaStack.nestedStackResource, before.nestedStackResource];
    if (!resource || !previous) throw new Error('An area stack was expected to have its stack resource');
    resource.addResourceDependency(previous);
  });
}
