import { existsSync } from 'node:fs';
import path from 'node:path';
import { type IPolicyValidationContext, type PolicyValidationPluginReport, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_RESPONSES, type GatewayResponseDefinition } from '../../lambdas/api/gateway-responses.js';
import { ROUTES } from '../../lambdas/api/routes.js';
import { DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES } from '../../lambdas/assets/upload-limits.js';
import { TABLE_SCHEMA } from '../../lambdas/core/table-schema.js';
import { PENDING_UPLOADS_PREFIX } from '../../lambdas/media/media-keys.js';
import { TASK_FUNCTIONS } from '../../lambdas/workflows/task-functions.js';
import { BATCH_WORKER_TIMEOUT } from '../../lib/stack/batch-worker.js';
import { planApi } from '../../lib/stack/route-plan.js';
import { BINARY_MEDIA_TYPES, STAGE_NAME } from '../../lib/stack/service-api.js';
import { FUNCTION_RUNTIME } from '../../lib/stack/service-function.js';
import {
  type ApiMethodJson,
  apiMethods,
  buildService,
  type CfnResourceJson,
  PROJECT_ROOT,
  resourcesOfType,
  type SynthesizedService,
  synthesisMessages,
  templateJson,
} from './synth-helpers.js';

/**
 * CloudFormation's cap is 500 resources per stack; keep room for growth. The root holds about 415 (the
 * workflows' 61 task functions with a role, policy and log group each are most of it); the next step,
 * when it grows, is moving the task functions into nested stacks as the routes are (docs/architecture.md).
 */
const RESOURCE_BUDGET = 450;

/** Every variable `lambdas/core/config.ts` and Powertools read that a deployment always sets. */
const REQUIRED_ENVIRONMENT = [
  'TABLE_NAME',
  'BUCKET_NAME',
  'EVENT_BUS_NAME',
  'STACK_KEY_ID',
  'HMAC_KEY_ID',
  'AUTH_CACHE_TTL_SECONDS',
  'JWT_WORKSPACE_CLAIM',
  'IDEMPOTENCY_TTL_SECONDS',
  'POWERTOOLS_SERVICE_NAME',
  'POWERTOOLS_METRICS_NAMESPACE',
  'POWERTOOLS_LOG_LEVEL',
];

/**
 * The pack as bin/app.ts adds it, keeping the report of the run synthesis makes: the test of its
 * findings reads that report instead of walking the whole construct tree a second time (seconds).
 */
class RecordedAwsSolutionsChecks extends AwsSolutionsChecks {
  report: PolicyValidationPluginReport | undefined;
  override validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    this.report = super.validate(context);
    return this.report;
  }
}

let service: SynthesizedService;
let root: Template;
let methods: ApiMethodJson[];
let nagChecks: RecordedAwsSolutionsChecks;

beforeAll(() => {
  service = buildService();
  // As in bin/app.ts: in-memory synthesis throws, with the report, on any unacknowledged finding
  // (and, through cdk.json's validateAgainstDefaultRules, on any CloudFormation template finding).
  nagChecks = new RecordedAwsSolutionsChecks(service.app);
  Validations.of(service.app).addPlugins(nagChecks);
  root = Template.fromStack(service.stack);
  methods = apiMethods(service);
});

/**
 * The other side of every option that changes the stack's shape: CORS, destroy, WAF, the API Gateway
 * CloudWatch role (as `-c` gives it, a string).
 */
let variantService: SynthesizedService | undefined;
function serviceVariant(): SynthesizedService {
  variantService ??= buildService({
    context: {
      allowedCorsOrigins: ['https://app.example.com'],
      removalPolicy: 'destroy',
      webAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/api/0a1b2c3d',
      apiGatewayCloudWatchRole: 'true',
      maxMultipartUploadBytes: '1048576',
      // A model capability on: its grant and settings reach the function that uses it (Compose).
      mediaGeneration: { engine: 'bedrock' },
    },
    validateTemplates: false,
  });
  return variantService;
}

function methodAt(path: string, httpMethod: string): ApiMethodJson {
  const found = methods.filter((method) => method.path === path && method.httpMethod === httpMethod);
  expect(found, `${httpMethod} ${path}`).toHaveLength(1);
  return found[0] as ApiMethodJson;
}

function allTemplates() {
  return [service.stack, ...service.areaStacks].map((stack) => ({ stack, template: templateJson(stack) }));
}

describe('routes', () => {
  it('gives every route of the route table a method with the right integration', () => {
    const authorizerId = resourcesOfType(templateJson(service.stack), 'AWS::ApiGateway::Authorizer')[0]?.[0];
    expect(authorizerId).toBeDefined();
    for (const route of ROUTES) {
      const method = methodAt(route.path, route.method);
      const integration = method.properties.Integration as Record<string, unknown>;
      expect(method.stackPath, route.operationId).toMatch(/Routes$/);
      if (route.removed) {
        expect(integration.Type, route.operationId).toBe('MOCK');
        expect(JSON.stringify(integration.IntegrationResponses)).toContain('"StatusCode":"410"');
      } else {
        expect(integration.Type, route.operationId).toBe('AWS_PROXY');
        expect(JSON.stringify(integration.Uri)).toContain(`${route.operationId}Function`);
      }
      if (route.auth === 'required') {
        expect(method.properties.AuthorizationType, route.operationId).toBe('CUSTOM');
        expect(method.rootAuthorizer, route.operationId).toBe(authorizerId);
      } else {
        expect(method.properties.AuthorizationType, route.operationId).toBe('NONE');
        expect(method.properties.AuthorizerId, route.operationId).toBeUndefined();
      }
    }
  });

  it("declares every route in its area's routes file, which the area's bundle is built from", () => {
    for (const route of ROUTES) {
      expect(
        existsSync(path.join(PROJECT_ROOT, 'lambdas/api', route.area, 'routes.ts')),
        route.operationId,
      ).toBe(true);
    }
  });

  it('answers 405 with an Allow header on every path, for the methods it does not have', () => {
    for (const pathPlan of planApi(ROUTES).paths) {
      const catchAll = methodAt(pathPlan.path, 'ANY');
      expect(catchAll.properties.AuthorizationType).toBe('NONE');
      const integration = catchAll.properties.Integration as {
        Type: string;
        IntegrationResponses: unknown[];
      };
      expect(integration.Type).toBe('MOCK');
      expect(integration.IntegrationResponses).toEqual([
        expect.objectContaining({
          StatusCode: '405',
          ResponseParameters: expect.objectContaining({
            'method.response.header.Allow': `'${pathPlan.allowedMethods.join(', ')}'`,
          }),
        }),
      ]);
    }
  });

  it('has no methods beyond routes, catch-alls and the root 404 (no CORS by default)', () => {
    const expected = ROUTES.length + planApi(ROUTES).paths.length + 1;
    expect(methods).toHaveLength(expected);
    expect(methods.some((method) => method.httpMethod === 'OPTIONS')).toBe(false);
  });

  it('adds CORS preflight for configured origins only', () => {
    const preflights = apiMethods(serviceVariant()).filter((method) => method.httpMethod === 'OPTIONS');
    expect(preflights).toHaveLength(planApi(ROUTES).paths.length);
    expect(JSON.stringify(preflights[0]?.properties)).toContain('https://app.example.com');
  });
});

describe('authorizer and gateway responses', () => {
  it('is a REQUEST authorizer without API Gateway caching or identity sources', () => {
    root.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      AuthorizerResultTtlInSeconds: 0,
      IdentitySource: Match.absent(),
    });
  });

  it('renders every gateway response in the error envelope', () => {
    for (const definition of Object.values(GATEWAY_RESPONSES) as GatewayResponseDefinition[]) {
      const template = definition.fromAuthorizer
        ? Match.stringLikeRegexp(
            '"code":"\\$context\\.authorizer\\.errorCode","message":"\\$context\\.authorizer\\.errorMessage","param":null',
          )
        : Match.stringLikeRegexp(`"code":"${definition.code}"`);
      root.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: definition.type,
        // Without a status of its own, a response keeps the one API Gateway chose.
        StatusCode: definition.status === undefined ? Match.absent() : String(definition.status),
        ResponseTemplates: { 'application/json': template },
      });
    }
  });
});

describe('stage and deployment', () => {
  it('logs access, traces and throttles the stage', () => {
    root.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: STAGE_NAME,
      TracingEnabled: true,
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
      MethodSettings: [
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
          ThrottlingRateLimit: 100,
          ThrottlingBurstLimit: 200,
        }),
      ],
    });
    root.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: [...BINARY_MEDIA_TYPES] });
  });

  it('sets the account-wide API Gateway CloudWatch role only when the deployer asks', () => {
    root.resourceCountIs('AWS::ApiGateway::Account', 0);
    expect(service.stack.api.restApi.node.tryFindChild('CloudWatchRole')).toBeUndefined();
    const variant = Template.fromStack(serviceVariant().stack);
    variant.resourceCountIs('AWS::ApiGateway::Account', 1);
    variant.hasResourceProperties('AWS::ApiGateway::Account', {
      CloudWatchRoleArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('CloudWatchRole'), 'Arn'] },
    });
  });

  it('deploys only after every area stack, so every route is in the deployment', () => {
    const [[, deployment] = []] = resourcesOfType(templateJson(service.stack), 'AWS::ApiGateway::Deployment');
    const nestedStackIds = resourcesOfType(templateJson(service.stack), 'AWS::CloudFormation::Stack').map(
      ([id]) => id,
    );
    const areaStackIds = service.areaStacks.map((areaStack) =>
      service.stack.getLogicalId(areaStack.nestedStackResource as never),
    );
    // The nested stacks are the areas', the realtime service's network and the console site's.
    const others = [service.stack.realtimeService?.network, service.stack.consoleSite].map((nested) =>
      service.stack.getLogicalId(nested?.nestedStackResource as never),
    );
    expect(nestedStackIds.sort()).toEqual([...areaStackIds, ...others].sort());
    expect(deployment?.DependsOn).toEqual(expect.arrayContaining(areaStackIds));
  });

  it('creates at most apiAreaStacksAtOnce area stacks at a time, each lane waiting for its previous stack', () => {
    const lanesOf = (candidate: SynthesizedService) => {
      const root = templateJson(candidate.stack);
      const ids = candidate.areaStacks.map((areaStack) =>
        candidate.stack.getLogicalId(areaStack.nestedStackResource as never),
      );
      return ids.map((id) => (root.Resources[id]?.DependsOn ?? []).filter((other) => ids.includes(other)));
    };
    const ids = service.areaStacks.map((areaStack) =>
      service.stack.getLogicalId(areaStack.nestedStackResource as never),
    );
    // cdk.json's 2: the first two start at once, every later one waits for the one two places before.
    expect(lanesOf(service)).toEqual(ids.map((_, index) => (index < 2 ? [] : [ids[index - 2]])));
    const chained = buildService({ context: { apiAreaStacksAtOnce: '1' }, validateTemplates: false });
    expect(
      lanesOf(chained)
        .slice(1)
        .every((dependsOn) => dependsOn.length === 1),
    ).toBe(true);
  });

  it('makes a new deployment when anything in the area stacks changes', () => {
    const deploymentId = (candidate: SynthesizedService) =>
      resourcesOfType(templateJson(candidate.stack), 'AWS::ApiGateway::Deployment')[0]?.[0];
    // Preflight methods exist in the area stacks only, so only the fingerprint can notice them.
    expect(deploymentId(serviceVariant())).not.toBe(deploymentId(service));
    // Mock answers (405, 410) change with the documentation URL.
    const withOtherDocs = buildService({
      context: { docBaseUrl: 'https://docs.example.com/errors' },
      validateTemplates: false,
    });
    const descriptions = (candidate: SynthesizedService) =>
      JSON.stringify(candidate.areaStacks.map((areaStack) => areaStack.apiDescription));
    expect(descriptions(withOtherDocs)).not.toBe(descriptions(service));
  });
});

describe('data stores', () => {
  it('retains nothing that a failed first create would leave behind (RetainExceptOnCreate)', () => {
    const policies = (candidate: SynthesizedService) =>
      new Set(
        [candidate.stack, ...candidate.areaStacks].flatMap((stack) =>
          Object.values(templateJson(stack).Resources).map((resource) => resource.DeletionPolicy),
        ),
      );
    expect([...policies(service)].filter((policy) => policy !== undefined).sort()).toEqual([
      'Delete',
      'RetainExceptOnCreate',
    ]);
    expect(policies(serviceVariant())).not.toContain('Retain');
    expect(policies(serviceVariant())).not.toContain('RetainExceptOnCreate');
  });

  it('keeps the single table exactly as TABLE_SCHEMA says, encrypted with the stack key and with PITR', () => {
    root.resourceCountIs('AWS::DynamoDB::Table', 1);
    root.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: TABLE_SCHEMA.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_SCHEMA.sortKey, KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: TABLE_SCHEMA.timeToLiveAttribute, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: Match.anyValue() },
      GlobalSecondaryIndexes: [
        {
          IndexName: TABLE_SCHEMA.gsi1.indexName,
          KeySchema: [
            { AttributeName: TABLE_SCHEMA.gsi1.partitionKey, KeyType: 'HASH' },
            { AttributeName: TABLE_SCHEMA.gsi1.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    });
  });

  it('has a rotating symmetric stack key and an HMAC_256 cursor key', () => {
    root.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true, KeySpec: Match.absent() });
    root.hasResourceProperties('AWS::KMS::Key', { KeySpec: 'HMAC_256', KeyUsage: 'GENERATE_VERIFY_MAC' });
  });

  it('encrypts, locks down, logs and expires the media bucket', () => {
    root.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          {
            BucketKeyEnabled: true,
            ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: Match.anyValue() },
          },
        ],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LoggingConfiguration: { DestinationBucketName: Match.anyValue(), LogFilePrefix: 'media/' },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }),
          Match.objectLike({ Prefix: PENDING_UPLOADS_PREFIX, ExpirationInDays: 2, Status: 'Enabled' }),
        ]),
      },
    });
    // enforceSSL: every bucket's policy denies requests without TLS.
    const policies = root.findResources('AWS::S3::BucketPolicy');
    expect(Object.keys(policies)).toHaveLength(2);
    for (const policy of Object.values(policies)) {
      expect(JSON.stringify(policy)).toContain('"aws:SecureTransport":"false"');
    }
  });

  it('encrypts the queues with the stack key and gives each a dead-letter queue', () => {
    // The batch, webhook and realtime queues, each with its dead-letter queue.
    root.resourceCountIs('AWS::SQS::Queue', 6);
    root.resourcePropertiesCountIs(
      'AWS::SQS::Queue',
      { KmsMasterKeyId: Match.anyValue(), RedrivePolicy: Match.objectLike({ maxReceiveCount: 5 }) },
      3,
    );
    for (const policy of Object.values(root.findResources('AWS::SQS::QueuePolicy'))) {
      expect(JSON.stringify(policy)).toContain('"aws:SecureTransport":"false"');
    }
  });
});

describe('functions', () => {
  it('runs every function on the newest Node.js runtime, ARM64, traced, with its own log group and the service environment', () => {
    const all = allTemplates().flatMap(({ template }) => resourcesOfType(template, 'AWS::Lambda::Function'));
    // The CDK custom resource provider framework's own function (catalog publisher) is not ours.
    const isFramework = ([, fn]: [string, CfnResourceJson]) =>
      String(fn.Properties?.Description).startsWith('AWS CDK resource provider framework');
    expect(all.filter(isFramework)).toHaveLength(1);
    const functions = all.filter((entry) => !isFramework(entry));
    // One per route that is not a removed route, plus the authorizer, the workflow task functions,
    // the batch worker, the webhook dispatcher and the catalog publisher.
    expect(functions).toHaveLength(
      ROUTES.filter((route) => !route.removed).length + 1 + Object.keys(TASK_FUNCTIONS).length + 1 + 1 + 1,
    );
    for (const [logicalId, fn] of functions) {
      expect(fn.Properties, logicalId).toMatchObject({
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogGroup: expect.anything() },
      });
      // Zip bundles name the runtime; the media image brings the same Node.js version itself.
      if (fn.Properties?.PackageType === 'Image') {
        expect(fn.Properties.Runtime, logicalId).toBeUndefined();
        // `<module>.<export>`: a job's steps share their module, one export per step.
        expect(fn.Properties.ImageConfig, logicalId).toEqual({
          Command: [expect.stringMatching(/^[\w/-]+\.[A-Za-z]\w*$/)],
        });
      } else {
        expect(fn.Properties?.Runtime, logicalId).toBe(FUNCTION_RUNTIME.name);
      }
      const { Variables: variables = {} } = (fn.Properties?.Environment ?? {}) as {
        Variables?: Record<string, unknown>;
      };
      expect(Object.keys(variables), logicalId).toEqual(expect.arrayContaining(REQUIRED_ENVIRONMENT));
      expect(variables.ALLOW_LOOPBACK_URLS, logicalId).toBeUndefined();
      expect(variables.ALLOW_TEST_DOUBLE_ENGINES, logicalId).toBeUndefined();
    }
    for (const { template } of allTemplates()) {
      for (const [logicalId, logGroup] of resourcesOfType(template, 'AWS::Logs::LogGroup')) {
        expect(logGroup.Properties?.RetentionInDays, logicalId).toBe(30);
      }
    }
  });
});

describe('upload limits', () => {
  /** `MAX_MULTIPART_UPLOAD_BYTES` of the function serving `POST /v3/assets`. */
  function assetCreateCap(synthesized: SynthesizedService): unknown {
    const found = [synthesized.stack, ...synthesized.areaStacks]
      .flatMap((stack) => resourcesOfType(templateJson(stack), 'AWS::Lambda::Function'))
      .filter(([logicalId]) => logicalId.startsWith('AssetCreateFunction'));
    expect(found).toHaveLength(1);
    const environment = found[0]?.[1].Properties?.Environment as { Variables: Record<string, unknown> };
    return environment.Variables.MAX_MULTIPART_UPLOAD_BYTES;
  }

  it("caps multipart uploads at what a Lambda invoke can carry, or at the deployer's lower value", () => {
    expect(assetCreateCap(service)).toBe(String(DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES));
    expect(assetCreateCap(serviceVariant())).toBe('1048576');
  });
});

describe('alarms and outputs', () => {
  it('alarms on API 5xx and on every dead-letter queue', () => {
    root.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: '5XXError',
      Namespace: 'AWS/ApiGateway',
    });
    root.resourcePropertiesCountIs(
      'AWS::CloudWatch::Alarm',
      // The batch, webhook and realtime dead-letter queues (the realtime service's scale-in alarm,
      // messages visible at most 0, is not one).
      {
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
      },
      3,
    );
  });

  it('outputs the API URL, table and bucket names', () => {
    for (const name of ['ApiUrl', 'TableName', 'BucketName']) root.hasOutput(name, {});
  });
});

describe('stack size', () => {
  it(`keeps every stack under ${RESOURCE_BUDGET} of CloudFormation's 500 resources`, () => {
    const counts = allTemplates()
      .map(({ stack, template }) => ({
        stack: stack.node.path,
        resources: Object.keys(template.Resources).length,
      }))
      .sort((a, b) => b.resources - a.resources);
    console.info(
      'Largest stacks:',
      counts
        .slice(0, 3)
        .map(({ stack, resources }) => `${stack}: ${resources}`)
        .join(', '),
    );
    for (const { stack, resources } of counts) expect(resources, stack).toBeLessThan(RESOURCE_BUDGET);
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('has no unacknowledged finding and no CDK warning', () => {
    // Synthesis in beforeAll ran the pack over the whole app as a validation plugin; list its findings plainly too.
    const report = nagChecks.report;
    expect(report, 'the pack ran during synthesis').toBeDefined();
    expect(report?.violations.map((violation) => violation.ruleName)).toEqual([]);
    // cdk-nag 3 reports through the validation report, not annotations; these catch CDK's own
    // warnings and errors (from the assembly beforeAll synthesized).
    expect(synthesisMessages(service, 'error')).toEqual([]);
    expect(synthesisMessages(service, 'warning')).toEqual([]);
  });

  it('stays clean with CORS, destroy, a web ACL, the API Gateway CloudWatch role and a video model', () => {
    const variant = serviceVariant();
    Template.fromStack(variant.stack).resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
    // The render's Compose step generates cinematic footage, the avatar look job's Train step prompt
    // avatars' photos, the Models API's Generate steps its videos and images: they alone get the
    // model's settings.
    const functions = Object.values(
      Template.fromStack(variant.stack).findResources('AWS::Lambda::Function'),
    ) as {
      Properties: {
        Environment?: { Variables?: Record<string, unknown> };
        ImageConfig?: { Command?: string[] };
      };
    }[];
    const generating = functions.filter(
      (fn) => fn.Properties.Environment?.Variables?.MEDIA_GENERATION_ENGINE === 'bedrock',
    );
    expect(generating.map((fn) => fn.Properties.ImageConfig?.Command?.[0]).sort()).toEqual([
      'avatars/avatar-training.Train',
      'model-images/model-image-steps.Generate',
      'model-videos/model-video-steps.Generate',
      'videos/render-steps.Compose',
    ]);
    const report = new AwsSolutionsChecks().validateScope(variant.app);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });
});

describe('least privilege', () => {
  it('lets the authorizer read table items and nothing else', () => {
    const policies = root.findResources('AWS::IAM::Policy');
    const authorizerPolicy = Object.entries(policies).find(([logicalId]) => /Authorizer/i.test(logicalId));
    expect(authorizerPolicy).toBeDefined();
    const statements = (authorizerPolicy?.[1].Properties.PolicyDocument.Statement ?? []) as {
      Action: unknown;
    }[];
    const actions = statements.flatMap((statement) => [statement.Action].flat());
    // Besides its own logs and traces.
    const dataActions = actions.filter((action) => !/^(xray|logs):/.test(String(action)));
    expect(dataActions).toEqual(['dynamodb:GetItem']);
  });

  it('gives the public OpenAPI function no data access, and only webhook functions the secret key', () => {
    const meta = service.stack.api.areaStacks.get('meta');
    if (!meta) throw new Error('no meta area stack');
    const metaRoles = Template.fromStack(meta).findResources('AWS::IAM::Role');
    for (const role of Object.values(metaRoles)) expect(role.Properties.ManagedPolicyArns ?? []).toEqual([]);

    const secretPolicies = Object.entries(root.findResources('AWS::IAM::ManagedPolicy')).filter(
      ([, policy]) =>
        JSON.stringify(policy.Properties.PolicyDocument).includes(
          'kms:EncryptionContext:webhook_endpoint_id',
        ),
    );
    expect(secretPolicies).toHaveLength(1);
  });
});

describe('batch worker', () => {
  it('consumes the batch queue with partial batch failures, within the queue visibility timeout', () => {
    root.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const queues = Object.values(root.findResources('AWS::SQS::Queue')).map(
      (queue) => queue.Properties.VisibilityTimeout as number | undefined,
    );
    expect(Math.max(...queues.filter((timeout): timeout is number => timeout !== undefined))).toBeGreaterThan(
      BATCH_WORKER_TIMEOUT.toSeconds(),
    );
  });
});
