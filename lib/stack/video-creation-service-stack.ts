/**
 * The root stack of the Video Creation Service: keys, table, buckets, queues, event bus, workflows,
 * the media container image and the catalog publisher, the REST API (routes in one nested stack per
 * area), alarms and outputs.
 */
import path from 'node:path';
import { CfnOutput, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { HttpMethods } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { ROUTES } from '../../lambdas/api/routes.js';
import { GRANTS } from '../../lambdas/core/grants.js';
import { ADMIN_WORKFLOWS, JOB_WORKFLOWS } from '../../lambdas/workflows/task-functions.js';
import { AREA_GRANTS, BATCH_ITEM_GRANTS, FUNCTION_GRANTS } from '../access/function-access.js';
import { QUEUES } from '../messaging-topology.js';
import { AccessPolicies } from './access-policies.js';
import { Alarms } from './alarms.js';
import { BATCH_WORKER_MODULE, BatchWorker } from './batch-worker.js';
import { CATALOG_PUBLISHER_MODULE, CatalogPublisher } from './catalog-publisher.js';
import { ConsoleSite } from './console-site.js';
import { DataStores } from './data-stores.js';
import { type GrantTargets, grantStatements } from './grant-statements.js';
import { HandlerBundles } from './handler-bundles.js';
import { MediaImage } from './media-image.js';
import { Messaging } from './messaging.js';
import { REALTIME_WORKER_MODULE, RealtimeService } from './realtime-service.js';
import { areaBundle, areaBundleEntry, planApi } from './route-plan.js';
import { AUTHORIZER_MODULE, ServiceApi, STAGE_NAME } from './service-api.js';
import type { ServiceOptions } from './service-options.js';
import { WEBHOOK_DISPATCHER_MODULE, WebhookDispatcher } from './webhook-dispatcher.js';
import { WorkflowStateMachines } from './workflow-state-machines.js';
import {
  MEDIA_IMAGE_TASK_MODULES,
  TASK_FUNCTION_MODULES,
  WorkflowTaskFunctions,
} from './workflow-task-functions.js';

/** `service` of every log line, trace and metric (Powertools). */
export const SERVICE_NAME = 'video-creation-service';
export const METRICS_NAMESPACE = 'VideoCreationService';

export interface VideoCreationServiceStackProps extends StackProps {
  /** Deploy-time options, usually from `serviceOptionsFromContext`. */
  options: ServiceOptions;
  /** Directory holding `lambdas/` and `state-machines/`. @default process.cwd(), the project root under `cdk synth` */
  projectRoot?: string;
  /** Directory of the workflow definitions (`*.asl.json`). @default `<projectRoot>/state-machines` */
  stateMachinesDirectory?: string;
}

export class VideoCreationServiceStack extends Stack {
  readonly data: DataStores;
  readonly messaging: Messaging;
  readonly workflows: WorkflowStateMachines;
  readonly taskFunctions: WorkflowTaskFunctions;
  readonly mediaImage: MediaImage;
  readonly catalogPublisher: CatalogPublisher;
  readonly batchWorker: BatchWorker;
  readonly webhookDispatcher: WebhookDispatcher;
  readonly api: ServiceApi;
  /** The streaming service of realtime avatar streams, unless `realtimeService` is off. */
  readonly realtimeService: RealtimeService | undefined;
  readonly alarms: Alarms;
  /** The web console's site, unless `consoleSite` is off. */
  readonly consoleSite: ConsoleSite | undefined;

  constructor(scope: Construct, id: string, props: VideoCreationServiceStackProps) {
    super(scope, id, props);
    const { options } = props;
    const projectRoot = props.projectRoot ?? process.cwd();

    // Every Lambda entry point, bundled in one esbuild run (see handler-bundles.ts).
    const bundles = new HandlerBundles(this, 'HandlerBundles', {
      projectRoot,
      modules: [AUTHORIZER_MODULE, ...TASK_FUNCTION_MODULES, BATCH_WORKER_MODULE, WEBHOOK_DISPATCHER_MODULE],
      generatedEntries: Object.fromEntries(
        [...new Set(ROUTES.filter((route) => !route.removed).map((route) => route.area))].map((area) => [
          areaBundle(area),
          areaBundleEntry(projectRoot, area),
        ]),
      ),
    });
    // The entry points that need ffmpeg, fonts, sharp, pdf.js or the speech engines' packages: one container
    // image, built by `cdk deploy` from a context staged here (see media-image.ts).
    this.mediaImage = new MediaImage(this, 'MediaImage', {
      projectRoot,
      modules: [
        ...MEDIA_IMAGE_TASK_MODULES,
        CATALOG_PUBLISHER_MODULE,
        ...(options.realtimeService ? [REALTIME_WORKER_MODULE] : []),
      ],
    });

    this.data = new DataStores(this, 'Data', {
      removalPolicy: options.removalPolicy,
      allowedCorsOrigins: options.allowedCorsOrigins,
    });
    const { table, stackKey, cursorKey, mediaBucket, accessLogBucket } = this.data;
    Validations.of(accessLogBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        "This bucket receives the media bucket's server access logs; logging it into itself would loop.",
    });

    this.messaging = new Messaging(this, 'Messaging', {
      encryptionKey: stackKey,
      eventBusName: `${this.stackName}-domain-events`,
      removalPolicy: options.removalPolicy,
    });

    // What grants name (lambdas/core/grants.ts). The job workflows come once they are built.
    const grantTargets: GrantTargets = {
      table,
      stackKey,
      cursorKey,
      mediaBucket,
      eventBus: this.messaging.eventBus,
      batchQueue: this.messaging.batch,
      webhookQueue: this.messaging.webhook,
      realtimeQueue: this.messaging.realtime,
      jobWorkflows: [],
      speechEngine: options.speechEngine,
      // What the model capabilities' grants allow once a function names them (model-engines.ts).
      modelEngines: options.modelEngines,
    };

    // The functions of `${TaskFunction_<Name>}` placeholders, from lambdas/workflows/task-functions.ts.
    // Their environment names no state machine: the state machines depend on them.
    this.taskFunctions = new WorkflowTaskFunctions(this, 'TaskFunctions', {
      bundles,
      mediaImage: this.mediaImage,
      environment: this.functionEnvironment(options),
      grantTargets,
      logRetention: options.logRetention,
      removalPolicy: options.removalPolicy,
    });
    this.workflows = new WorkflowStateMachines(this, 'Workflows', {
      definitionsDirectory: props.stateMachinesDirectory ?? path.join(projectRoot, 'state-machines'),
      taskFunctions: this.taskFunctions.functions,
      logRetention: options.logRetention,
      removalPolicy: options.removalPolicy,
    });

    this.catalogPublisher = new CatalogPublisher(this, 'CatalogPublisher', {
      mediaImage: this.mediaImage,
      environment: this.functionEnvironment(options),
      grantTargets,
      logRetention: options.logRetention,
      removalPolicy: options.removalPolicy,
      publicationNonce: options.catalogPublicationNonce,
      failDeployOnError: options.catalogFailureFailsDeploy,
    });

    const policies = new AccessPolicies(this, 'AccessPolicies', {
      grants: [...Object.values(AREA_GRANTS).flat(), ...BATCH_ITEM_GRANTS],
      targets: {
        ...grantTargets,
        // Job workflows only: administrative ones (encryption setup) are started by the admin CLI.
        jobWorkflows: [...this.workflows.stateMachines]
          .filter(([name]) => !(name in ADMIN_WORKFLOWS))
          .map(([, stateMachine]) => stateMachine),
      },
    });
    // Whoever may start job workflows learns their ARNs (VIDEO_RENDER_STATE_MACHINE_ARN, ...).
    const jobWorkflowEnvironment = this.jobWorkflowEnvironment();

    this.batchWorker = new BatchWorker(this, 'BatchWorker', {
      bundles,
      environment: { ...this.functionEnvironment(options), ...jobWorkflowEnvironment },
      managedPolicies: policies.policiesFor(BATCH_ITEM_GRANTS),
      grantTargets,
      logRetention: options.logRetention,
      removalPolicy: options.removalPolicy,
    });

    this.webhookDispatcher = new WebhookDispatcher(this, 'WebhookDispatcher', {
      bundles,
      grantTargets,
      environment: this.functionEnvironment(options),
      logRetention: options.logRetention,
      removalPolicy: options.removalPolicy,
    });

    this.realtimeService = options.realtimeService
      ? new RealtimeService(this, 'RealtimeService', {
          mediaImage: this.mediaImage,
          environment: this.functionEnvironment(options),
          grantTargets,
          tasks: options.realtimeTasks,
          maxTasks: options.realtimeMaxTasks,
          streamsPerTask: options.realtimeStreamsPerTask,
          logRetention: options.logRetention,
          removalPolicy: options.removalPolicy,
        })
      : undefined;
    // With the streaming service, the realtime routes hand streams to it; without, they answer 503.
    const realtimeEnvironment: Record<string, string> = this.realtimeService
      ? { REALTIME_WORKER: 'service', [QUEUES.realtime.urlVariable]: this.messaging.realtime.queue.queueUrl }
      : {};

    this.api = new ServiceApi(this, 'Api', {
      apiName: this.stackName,
      plan: planApi(ROUTES),
      bundles,
      environment: this.functionEnvironment(options),
      // The authorizer reads an API key by its hash and the key's workspace; nothing else.
      authorizerPolicies: FUNCTION_GRANTS.authorizer.flatMap((grant) => grantStatements(grant, grantTargets)),
      areaPolicies: (area) => policies.policiesFor(AREA_GRANTS[area]),
      areaEnvironment: (area) => ({
        ...(AREA_GRANTS[area].includes(GRANTS.startWorkflows) ? jobWorkflowEnvironment : {}),
        ...(area === 'realtime' ? realtimeEnvironment : {}),
      }),
      docBaseUrl: options.docBaseUrl,
      allowedCorsOrigins: options.allowedCorsOrigins,
      throttlingRateLimit: options.apiThrottlingRateLimit,
      throttlingBurstLimit: options.apiThrottlingBurstLimit,
      webAclArn: options.webAclArn || undefined,
      logRetention: options.logRetention,
      apiGatewayCloudWatchRole: options.apiGatewayCloudWatchRole,
      removalPolicy: options.removalPolicy,
      areaStacksAtOnce: options.apiAreaStacksAtOnce,
    });
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-COG4',
      reason:
        'Callers authenticate with API keys or OAuth JWTs from an issuer the deployer chooses, both verified by the Lambda REQUEST authorizer; there is no Cognito user pool to attach.',
    });

    this.alarms = new Alarms(this, 'Alarms', {
      api: this.api.restApi,
      deadLetterQueues: {
        Batch: this.messaging.batch.deadLetterQueue,
        Webhook: this.messaging.webhook.deadLetterQueue,
        Realtime: this.messaging.realtime.deadLetterQueue,
      },
      stateMachines: this.workflows.stateMachines,
      encryptionKey: stackKey,
    });

    // The web console and the API on one CloudFront origin (console-site.ts), unless `consoleSite` is off.
    if (options.consoleSite) {
      const consoleClientId = options.consoleOAuthClientId;
      this.consoleSite = new ConsoleSite(this, 'ConsoleSite', {
        restApiId: this.api.restApi.restApiId,
        stageName: STAGE_NAME,
        // The region's S3 endpoints, not the bucket's own name: the bucket's CORS names the
        // distribution, so naming the bucket here would make a dependency cycle.
        mediaOrigin: `https://*.s3.${this.region}.${this.urlSuffix}`,
        accessLogBucket: this.data.accessLogBucket,
        ...(options.jwtIssuer && consoleClientId
          ? { oauth: { issuer: options.jwtIssuer, audience: options.jwtAudience, clientId: consoleClientId } }
          : {}),
        removalPolicy: options.removalPolicy,
      });
      // The console uploads to and plays from presigned media URLs, on the bucket's own origin.
      mediaBucket.addCorsRule({
        allowedOrigins: [this.consoleSite.url],
        allowedMethods: [HttpMethods.GET, HttpMethods.PUT, HttpMethods.HEAD],
        allowedHeaders: ['*'],
        exposedHeaders: ['ETag'],
        maxAge: 3600,
      });
      new CfnOutput(this, 'ConsoleUrl', {
        value: `${this.consoleSite.url}/console/`,
        description: 'The web console (the API is on the same origin)',
      });
    }

    new CfnOutput(this, 'ApiUrl', { value: this.api.restApi.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'BucketName', { value: mediaBucket.bucketName });
    new CfnOutput(this, 'CursorKeyArn', {
      value: this.data.cursorKey.keyArn,
      description: 'HMAC_KEY_ID for the admin CLI (npm run admin) against this stack',
    });
    for (const [name, workflow] of Object.entries(ADMIN_WORKFLOWS)) {
      const stateMachine = this.workflows.stateMachines.get(name);
      if (!stateMachine) continue;
      new CfnOutput(this, workflow.output, {
        value: stateMachine.stateMachineArn,
        description: `${workflow.environmentVariable} for the admin CLI (npm run admin) against this stack`,
      });
    }
    new CfnOutput(this, 'CatalogPublication', {
      value: this.catalogPublisher.status,
      description: 'Whether the stock catalog media were published, or what failed',
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.alarms.topic.topicArn,
      description: 'Subscribe to get alarms',
    });
  }

  /** `<environmentVariable>: <ARN>` of every job workflow of `JOB_WORKFLOWS` that has a definition. */
  private jobWorkflowEnvironment(): Record<string, string> {
    const environment: Record<string, string> = {};
    for (const [name, workflow] of Object.entries(JOB_WORKFLOWS)) {
      const stateMachine = this.workflows.stateMachines.get(name);
      if (stateMachine) environment[workflow.environmentVariable] = stateMachine.stateMachineArn;
    }
    return environment;
  }

  /**
   * The environment of every function: what `lambdas/core/config.ts` reads, plus Powertools'. Empty
   * options are left out so the runtime's own defaults apply. ALLOW_LOOPBACK_URLS is a local
   * development switch and ALLOW_TEST_DOUBLE_ENGINES a test switch (the engines' test doubles): neither
   * is ever set here.
   */
  private functionEnvironment(options: ServiceOptions): Record<string, string> {
    const { table, mediaBucket, stackKey, cursorKey } = this.data;
    const environment: Record<string, string> = {
      TABLE_NAME: table.tableName,
      BUCKET_NAME: mediaBucket.bucketName,
      EVENT_BUS_NAME: this.messaging.eventBus.eventBusName,
      [QUEUES.batch.urlVariable]: this.messaging.batch.queue.queueUrl,
      [QUEUES.webhook.urlVariable]: this.messaging.webhook.queue.queueUrl,
      STACK_KEY_ID: stackKey.keyArn,
      HMAC_KEY_ID: cursorKey.keyArn,
      DOC_BASE_URL: options.docBaseUrl,
      AUTH_CACHE_TTL_SECONDS: String(options.authCacheTtlSeconds),
      JWT_ISSUER: options.jwtIssuer,
      JWT_AUDIENCE: options.jwtAudience,
      JWKS_URL: options.jwksUrl,
      JWT_WORKSPACE_CLAIM: options.jwtWorkspaceClaim,
      IDEMPOTENCY_TTL_SECONDS: String(options.idempotencyTtlSeconds),
      // Deployed, the multipart cap is what a synchronous Lambda invoke can carry, not the runtime's
      // default (see lambdas/assets/upload-limits.ts).
      MAX_MULTIPART_UPLOAD_BYTES: String(options.maxMultipartUploadBytes),
      MEDIA_URL_TTL_SECONDS: String(options.mediaUrlTtlSeconds),
      UPLOAD_URL_TTL_SECONDS: String(options.uploadUrlTtlSeconds),
      RENDER_CHUNK_CONCURRENCY: String(options.renderChunkConcurrency),
      VIDEO_RENDER_CHUNK_SECONDS: String(options.videoRenderChunkSeconds),
      SPEECH_ENGINE: options.speechEngine,
      ALLOWED_CORS_ORIGINS: options.allowedCorsOrigins.join(','),
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      POWERTOOLS_LOG_LEVEL: options.logLevel,
      POWERTOOLS_TRACE_ENABLED: 'true',
    };
    return Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== ''));
  }
}
