/**
 * The whole stack in one local process, on loopback, with no Docker, Java or AWS account: dynalite,
 * s3rver and in-process KMS, Step Functions, EventBridge and SQS emulators, plus the local API
 * Gateway running the same authorizer and handlers as the deployment. The handlers are configured
 * exactly as in Lambda, through environment variables, with the SDK's `AWS_ENDPOINT_URL_<SERVICE>`
 * pointing at the emulators.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateEventBusCommand,
  EventBridgeClient,
  PutRuleCommand,
  PutTargetsCommand,
  ResourceAlreadyExistsException,
} from '@aws-sdk/client-eventbridge';
import {
  CreateAliasCommand,
  CreateKeyCommand,
  DescribeKeyCommand,
  KMSClient,
  NotFoundException,
} from '@aws-sdk/client-kms';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ROUTES } from '../../lambdas/api/routes.js';
import { publishIconsOnFirstUse } from '../../lambdas/catalog/icon-media.js';
import {
  publishCatalogMedia,
  publishIconMedia,
  publishStylePreview,
} from '../../lambdas/catalog/publish-catalog-media.js';
import { publishStylePreviewsOnFirstUse } from '../../lambdas/catalog/style-preview-media.js';
import { configuredClient, useClientPlugins } from '../../lambdas/core/aws-clients.js';
import { config } from '../../lambdas/core/config.js';
import type { Grant } from '../../lambdas/core/grants.js';
import { resetProcessState } from '../../lambdas/core/process-state.js';
import { speechEngine } from '../../lambdas/engines/speech/index.js';
import { JOB_WORKFLOWS } from '../../lambdas/workflows/task-functions.js';
import { type ServiceFunctionName, serviceFunctionGrants } from '../access/function-access.js';
import type { GrantResources } from '../access/grant-policies.js';
import { consoleFileServer } from '../console/serve-console.js';
import { BUS_RULES, deadLetterQueueName, QUEUES } from '../messaging-topology.js';
import { type AccessDenial, LocalAccessEnforcement, localResourceNaming } from './access-enforcement.js';
import { type LocalApiServer, startLocalApiServer } from './api-gateway-server.js';
import {
  type RunningExecution,
  type SqsQueueDefinition,
  startEventBridgeEmulator,
  startKmsEmulator,
  startSqsEmulator,
  startSqsPoller,
  startStepFunctionsEmulator,
  type TargetFunction,
} from './emulators/index.js';
import { ensureDevelopmentAccess } from './seed.js';
import { loadStateMachines } from './state-machines.js';
import {
  ensureTable,
  LOCAL_ACCOUNT,
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  startDynamo,
  startS3,
} from './storage-emulators.js';
import {
  localTaskResolver,
  localTaskSubstitutions,
  localWorkflowArn,
  localWorkflowEnvironment,
} from './task-functions.js';

/**
 * What the local stack publishes of the catalog at start: not the icons nor the styles' preview
 * videos, which their routes publish on first use (a start with an empty bucket stays fast).
 */
export const LOCAL_CATALOG_SCOPE = { icons: false, stylePreviews: false } as const;
export const LOCAL_RESOURCE_NAMES = {
  table: 'video-service',
  bucket: 'video-service-media',
  eventBus: 'video-service-events',
  stackKeyAlias: 'alias/video-service-stack',
  hmacKeyAlias: 'alias/video-service-cursors',
} as const;

/** The queues of `messaging-topology.ts`, each after its dead-letter queue (its redrive target). */
export function localQueueDefinitions(queueArn: (name: string) => string): SqsQueueDefinition[] {
  return Object.values(QUEUES).flatMap((queue) => {
    const deadLetterQueue = deadLetterQueueName(queue.localName);
    return [
      { name: deadLetterQueue },
      {
        name: queue.localName,
        attributes: {
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: queueArn(deadLetterQueue),
            maxReceiveCount: String(queue.maxReceiveCount),
          }),
        },
      },
    ];
  });
}

/** The rules of `messaging-topology.ts` as PutRule and PutTargets inputs for the local bus. */
export function localBusRules(eventBusName: string, queueArn: (name: string) => string) {
  return Object.values(BUS_RULES).map((rule) => {
    const target = QUEUES[rule.targetQueue].localName;
    return {
      rule: {
        Name: rule.name,
        EventBusName: eventBusName,
        EventPattern: JSON.stringify(rule.eventPattern),
        Description: rule.description,
      },
      targets: {
        Rule: rule.name,
        EventBusName: eventBusName,
        Targets: [
          {
            Id: `${rule.targetQueue}-queue`,
            Arn: queueArn(target),
            DeadLetterConfig: { Arn: queueArn(deadLetterQueueName(target)) },
          },
        ],
      },
    };
  });
}

/**
 * Functions behind EventBridge/SQS targets, by name. Consumers register here as they are built; an
 * unknown name fails the delivery loudly. Step Functions tasks come from `task-functions.ts`.
 */
function unknownFunction(kind: string, name: string): never {
  throw new Error(`The local stack has no ${kind} function for ${name}`);
}

/** The pages that may use the media bucket from a browser: the console, on whatever loopback port it is served. */
const LOCAL_CONSOLE_ORIGINS = ['http://127.0.0.1:*', 'http://localhost:*'] as const;

const isJobWorkflow = (stateMachineArn: string) =>
  Object.keys(JOB_WORKFLOWS).some((name) => stateMachineArn.endsWith(`:stateMachine:${name}`));

async function restartJobExecutions(
  endpoint: string,
  executions: readonly RunningExecution[],
): Promise<void> {
  if (executions.length === 0) return;
  const client = new SFNClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  for (const execution of executions) {
    await client.send(
      new StartExecutionCommand({
        stateMachineArn: execution.stateMachineArn,
        name: `${execution.name.split('--restart-')[0]}--restart-${Date.now()}`,
        input: execution.input,
      }),
    );
  }
  client.destroy();
}

export interface LocalStackOptions {
  /** Directory for persisted state. In memory (and a temporary S3 directory) when absent. */
  dataDir?: string;
  /** Port of the API. @default 0 (a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** API Gateway's integration timeout: a slower answer is 504 `gateway_timeout`. @default 29000 */
  integrationTimeoutMs?: number;
  /** Allow `http://` and loopback webhook URLs, for receivers on this machine. @default false */
  allowLoopbackUrls?: boolean;
  /** Extra environment for the handlers (e.g. `AUTH_CACHE_TTL_SECONDS`). */
  environment?: Record<string, string>;
  /**
   * Multiplies the Wait states and Retry intervals of workflows (tests use `0.001`). @default 1
   */
  stepFunctionsTimeScale?: number;
  /**
   * Validates each workflow definition against the Amazon States Language as AWS does (about 1 s of CPU
   * at every start, for the whole set). Tests turn it off: `test/infra/workflow-state-machines.test.ts`
   * validates every file of `state-machines/`. @default true
   */
  validateStateMachines?: boolean;
  /**
   * Extra EventBridge targets by ARN, for rules a caller puts on the bus (tests observe domain
   * events this way). @default {}
   */
  eventTargets?: Record<string, TargetFunction>;
  /**
   * Grants taken away from functions, as a test build that lacks them: the local stack enforces each
   * function's grants on its AWS calls, so whatever needs a revoked grant is refused. @default {}
   */
  revokedGrants?: Partial<Record<ServiceFunctionName, readonly Grant[]>>;
}

export interface LocalStack {
  baseUrl: string;
  /** A full-access key of the default workspace. */
  apiKey: string;
  workspaceId: string;
  /** The environment the handlers run with (for the admin CLI and tests). */
  environment: Record<string, string>;
  /** AWS calls the functions made that their roles do not allow (refused as AWS refuses them). */
  accessDenials(): readonly AccessDenial[];
  stop(): Promise<void>;
}

async function ensureKmsKey(
  client: KMSClient,
  alias: string,
  spec: 'SYMMETRIC_DEFAULT' | 'HMAC_256',
): Promise<string> {
  try {
    const existing = await client.send(new DescribeKeyCommand({ KeyId: alias }));
    if (existing.KeyMetadata?.Arn) return existing.KeyMetadata.Arn;
  } catch (error) {
    if (!(error instanceof NotFoundException)) throw error;
  }
  const created = await client.send(
    new CreateKeyCommand({
      KeySpec: spec,
      KeyUsage: spec === 'HMAC_256' ? 'GENERATE_VERIFY_MAC' : 'ENCRYPT_DECRYPT',
      Description: `Local stack ${alias}`,
    }),
  );
  const arn = created.KeyMetadata?.Arn;
  if (!arn || !created.KeyMetadata?.KeyId) throw new Error('Local KMS returned no key');
  await client.send(new CreateAliasCommand({ AliasName: alias, TargetKeyId: created.KeyMetadata.KeyId }));
  return arn;
}

/** The service bus and its rules (`localBusRules`). */
async function createEventBus(
  endpoint: string,
  name: string,
  queueArn: (queueName: string) => string,
): Promise<void> {
  const client = new EventBridgeClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  await client.send(new CreateEventBusCommand({ Name: name })).catch((error: unknown) => {
    if (!(error instanceof ResourceAlreadyExistsException)) throw error;
  });
  for (const { rule, targets } of localBusRules(name, queueArn)) {
    await client.send(new PutRuleCommand(rule));
    await client.send(new PutTargetsCommand(targets));
  }
  client.destroy();
}

/** The local SQS queue named by an ARN as an EventBridge target: the event is the message body. */
function sqsTarget(client: SQSClient, queueUrl: string): TargetFunction {
  return async (payload) => {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(payload) }));
  };
}

/** Every function's grants, less those a test build revokes. */
function grantsWithout(
  grants: ReadonlyMap<ServiceFunctionName, readonly Grant[]>,
  revoked: LocalStackOptions['revokedGrants'] = {},
): Map<ServiceFunctionName, readonly Grant[]> {
  return new Map(
    [...grants].map(([name, granted]) => [name, granted.filter((grant) => !revoked[name]?.includes(grant))]),
  );
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  // The product runs on Node 20 as well as Lambda's newest runtime; the SDK's notice about future
  // releases needing Node 22 is noise here (the lock file pins the SDK).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  // Everything started, stopped in reverse order.
  const running: { stop(): Promise<void> }[] = [];
  const temporaryS3 = options.dataDir ? undefined : await mkdtemp(join(tmpdir(), 'video-service-s3-'));
  let api: LocalApiServer | undefined;
  // Every function runs as itself: its AWS calls are checked against its role (access-enforcement.ts).
  // Nothing runs a function before the enforcement exists (it needs the stack's keys).
  let enforcement: LocalAccessEnforcement | undefined;
  const runAs = <Result>(name: ServiceFunctionName, work: () => Promise<Result>): Promise<Result> => {
    if (!enforcement) throw new Error(`Function ${name} ran before the local stack enforced IAM`);
    return enforcement.runAs(name, work);
  };
  try {
    const dynamo = await startDynamo(options.dataDir && join(options.dataDir, 'dynamodb'));
    running.push(dynamo);
    const kms = await startKmsEmulator({
      region: LOCAL_REGION,
      ...(options.dataDir ? { dataFile: join(options.dataDir, 'kms.json') } : {}),
    });
    running.push(kms);
    // S3 asks KMS about the keys of SSE-KMS writes, as on AWS.
    const s3 = await startS3(
      options.dataDir ? join(options.dataDir, 's3') : (temporaryS3 as string),
      LOCAL_RESOURCE_NAMES.bucket,
      // The console (served by this stack on a loopback port) uploads to and plays from the bucket.
      { kmsEndpoint: kms.endpoint, corsOrigins: LOCAL_CONSOLE_ORIGINS },
    );
    running.push(s3);
    const persisted = (file: string) => (options.dataDir ? { dataFile: join(options.dataDir, file) } : {});
    const stepFunctions = await startStepFunctionsEmulator({
      region: LOCAL_REGION,
      resolveTask: localTaskResolver(LOCAL_REGION, runAs),
      definitionSubstitutions: localTaskSubstitutions(LOCAL_REGION),
      ...(options.stepFunctionsTimeScale === undefined ? {} : { timeScale: options.stepFunctionsTimeScale }),
      validateDefinitions: options.validateStateMachines ?? true,
      ...persisted('step-functions.json'),
    });
    running.push(stepFunctions);
    // Queue targets of the bus send to the local SQS, which starts after the bus.
    let queueTarget: ((targetArn: string) => TargetFunction | undefined) | undefined;
    const eventBridge = await startEventBridgeEmulator({
      region: LOCAL_REGION,
      resolveTarget: (targetArn) =>
        options.eventTargets?.[targetArn] ??
        queueTarget?.(targetArn) ??
        unknownFunction('event target', targetArn),
    });
    running.push(eventBridge);
    const sqs = await startSqsEmulator({ region: LOCAL_REGION, ...persisted('sqs.json') });
    running.push(sqs);
    for (const queue of localQueueDefinitions(sqs.queueArn)) await sqs.createQueue(queue);
    const localSqs = new SQSClient({
      endpoint: sqs.endpoint,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    running.push({ stop: async () => localSqs.destroy() });
    const queuePrefix = sqs.queueArn('');
    queueTarget = (targetArn) =>
      targetArn.startsWith(queuePrefix)
        ? sqsTarget(localSqs, sqs.queueUrl(targetArn.slice(queuePrefix.length)))
        : undefined;

    const kmsClient = new KMSClient({
      endpoint: kms.endpoint,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    const stackKeyArn = await ensureKmsKey(
      kmsClient,
      LOCAL_RESOURCE_NAMES.stackKeyAlias,
      'SYMMETRIC_DEFAULT',
    );
    const hmacKeyArn = await ensureKmsKey(kmsClient, LOCAL_RESOURCE_NAMES.hmacKeyAlias, 'HMAC_256');
    kmsClient.destroy();
    await ensureTable(dynamo.endpoint, LOCAL_RESOURCE_NAMES.table);

    const environment: Record<string, string> = {
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      AWS_ENDPOINT_URL_KMS: kms.endpoint,
      AWS_ENDPOINT_URL_SFN: stepFunctions.endpoint,
      AWS_ENDPOINT_URL_EVENTBRIDGE: eventBridge.endpoint,
      AWS_ENDPOINT_URL_SQS: sqs.endpoint,
      [QUEUES.batch.urlVariable]: sqs.queueUrl(QUEUES.batch.localName),
      [QUEUES.webhook.urlVariable]: sqs.queueUrl(QUEUES.webhook.localName),
      [QUEUES.webhook.deadLetterUrlVariable]: sqs.queueUrl(deadLetterQueueName(QUEUES.webhook.localName)),
      [QUEUES.realtime.urlVariable]: sqs.queueUrl(QUEUES.realtime.localName),
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      S3_FORCE_PATH_STYLE: 'true',
      TABLE_NAME: LOCAL_RESOURCE_NAMES.table,
      BUCKET_NAME: LOCAL_RESOURCE_NAMES.bucket,
      EVENT_BUS_NAME: LOCAL_RESOURCE_NAMES.eventBus,
      STACK_KEY_ID: stackKeyArn,
      HMAC_KEY_ID: hmacKeyArn,
      ALLOW_LOOPBACK_URLS: options.allowLoopbackUrls ? 'true' : 'false',
      // Realtime avatar streams run in this process (lambdas/realtime/realtime-streams.ts); with
      // `service`, in a streaming service worker this process starts (below), as the stack's Fargate
      // service runs it, the table and the realtime queue between it and the API.
      REALTIME_WORKER: 'in_process',
      POWERTOOLS_SERVICE_NAME: 'video-creation-service',
      // Read by the logger when its module loads: entry points set it first (see bin/serve.ts).
      POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
      POWERTOOLS_DEV: 'true',
      POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
      ...localWorkflowEnvironment(LOCAL_REGION),
      ...options.environment,
    };
    Object.assign(process.env, environment);
    // A (re)started stack is a cold start: no configuration, client, cache or engine survives.
    await resetProcessState();
    const naming = localResourceNaming({
      region: LOCAL_REGION,
      account: LOCAL_ACCOUNT,
      resolveKeyArn: kms.resolveKeyArn,
      queueKeyArn: stackKeyArn,
    });
    const resources: GrantResources = {
      partition: 'aws',
      region: LOCAL_REGION,
      urlSuffix: 'amazonaws.com',
      tableArn: naming.tableArn(LOCAL_RESOURCE_NAMES.table),
      stackKeyArn,
      cursorKeyArn: hmacKeyArn,
      mediaBucketArn: naming.bucketArn(LOCAL_RESOURCE_NAMES.bucket),
      eventBusArn: naming.eventBusArn(LOCAL_RESOURCE_NAMES.eventBus),
      batchQueueArn: sqs.queueArn(QUEUES.batch.localName),
      webhookQueueArn: sqs.queueArn(QUEUES.webhook.localName),
      webhookDeadLetterQueueArn: sqs.queueArn(deadLetterQueueName(QUEUES.webhook.localName)),
      realtimeQueueArn: sqs.queueArn(QUEUES.realtime.localName),
      jobWorkflowArns: Object.keys(JOB_WORKFLOWS).map((workflow) => localWorkflowArn(LOCAL_REGION, workflow)),
      speechEngine: config().speechEngine === 'polly' ? 'polly' : 'espeak',
    };
    const access = new LocalAccessEnforcement({
      functions: grantsWithout(serviceFunctionGrants(), options.revokedGrants),
      resources,
      naming,
      account: LOCAL_ACCOUNT,
    });
    enforcement = access;
    useClientPlugins([access.plugin()]);
    running.push({ stop: async () => useClientPlugins([]) });

    await createEventBus(eventBridge.endpoint, LOCAL_RESOURCE_NAMES.eventBus, sqs.queueArn);
    await loadStateMachines(stepFunctions);
    // Executions that were running when the stack last stopped cannot resume mid-task. Jobs start
    // again from the top (their steps are idempotent: conditional writes, billing moved once), so a
    // video interrupted by a restart still ends terminal; anything else fails with a reason.
    const interruptedJobs = stepFunctions
      .listRunningExecutions()
      .filter((execution) => execution.interrupted && isJobWorkflow(execution.stateMachineArn));
    await stepFunctions.failInterruptedExecutions({
      error: 'States.Runtime',
      cause: 'The local stack restarted during the execution.',
    });

    // Stock avatar portraits, voice previews and sounds: generated once per machine (disk cache),
    // uploaded when the bucket lacks them. Before restarted renders, which read the portraits.
    await access.runAs('catalogPublisher', () =>
      publishCatalogMedia({ speechEngine: speechEngine(), ...LOCAL_CATALOG_SCOPE }),
    );
    // The icons (12,574 objects) would add about a minute to a start with an empty bucket: the searches
    // publish each icon they list on first use, as the assets area (which may write media).
    publishIconsOnFirstUse((icon) => publishIconMedia(icon));
    running.push({ stop: async () => publishIconsOnFirstUse(undefined) });
    // The styles' preview videos (a second each to render) likewise: the styles list publishes those
    // it answers on first use, through the same disk cache.
    publishStylePreviewsOnFirstUse((style) => publishStylePreview(style));
    running.push({ stop: async () => publishStylePreviewsOnFirstUse(undefined) });
    await restartJobExecutions(stepFunctions.endpoint, interruptedJobs);

    const developmentAccess = await ensureDevelopmentAccess(options.dataDir);
    api = await startLocalApiServer({
      runAs,
      routes: ROUTES,
      port: options.port ?? 0,
      host: options.host ?? '127.0.0.1',
      docBaseUrl: config().docBaseUrl,
      staticFiles: consoleFileServer(() => ({ mediaOrigins: [s3.endpoint] })),
      ...(options.integrationTimeoutMs !== undefined
        ? { integrationTimeoutMs: options.integrationTimeoutMs }
        : {}),
    });
    // The batch worker consumes the batch queue, as the stack's event source mapping does.
    // An event source mapping polls with its function's role: each poller runs as its consumer, with a
    // client of its own that the enforcement checks.
    const consumerClient = () => {
      const client = configuredClient(
        new SQSClient({ endpoint: sqs.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }),
      );
      running.push({ stop: async () => client.destroy() });
      return client;
    };
    const batchItems = (await import('../../lambdas/workers/batch-items.js')).handler;
    const batchWorker = await access.runAs('batchWorker', () =>
      startSqsPoller({
        client: consumerClient(),
        queueUrl: sqs.queueUrl(QUEUES.batch.localName),
        consumer: batchItems,
        waitTimeSeconds: 1,
        pollIntervalMs: 50,
      }),
    );
    running.push(batchWorker);
    // The webhook dispatcher consumes the webhook queue, as the stack's event source mapping does.
    // Several loops, so a receiver that makes an attempt wait for its deadline holds up only its batch.
    const dispatchWebhooks = (await import('../../lambdas/workers/webhook-dispatcher.js')).handler;
    const webhookDispatcher = await access.runAs('webhookDispatcher', () =>
      startSqsPoller({
        client: consumerClient(),
        queueUrl: sqs.queueUrl(QUEUES.webhook.localName),
        consumer: dispatchWebhooks,
        waitTimeSeconds: 1,
        pollIntervalMs: 20,
        concurrency: 4,
      }),
    );
    running.push(webhookDispatcher);
    if (config().realtimeWorker === 'service') {
      // The worker polls the realtime queue itself (no event source mapping), as the stack's Fargate
      // task does, with the task role's grants.
      const realtimeWorker = await access.runAs('realtimeWorker', async () =>
        (await import('../../lambdas/realtime/realtime-service.js')).startRealtimeService(),
      );
      running.push({ stop: () => realtimeWorker.stop() });
    }
    const server = api;
    return {
      baseUrl: server.url,
      apiKey: developmentAccess.apiKey,
      workspaceId: developmentAccess.workspaceId,
      environment,
      accessDenials: () => access.denials,
      stop: async () => {
        await server.stop();
        for (const emulator of running.reverse()) await emulator.stop();
        if (temporaryS3) await rm(temporaryS3, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await api?.stop().catch(() => undefined);
    for (const emulator of running.reverse()) await emulator.stop().catch(() => undefined);
    if (temporaryS3) await rm(temporaryS3, { recursive: true, force: true });
    throw error;
  }
}
