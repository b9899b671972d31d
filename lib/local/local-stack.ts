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
import { clearAuthCache } from '../../lambdas/accounts/authenticate.js';
import { resetRateLimitLeases } from '../../lambdas/api/pipeline/rate-limit.js';
import { ROUTES } from '../../lambdas/api/routes.js';
import { publishCatalogMedia } from '../../lambdas/catalog/publish-catalog-media.js';
import { resetAwsClients } from '../../lambdas/core/aws-clients.js';
import { config, resetConfig } from '../../lambdas/core/config.js';
import { clearKeyUsabilityCache } from '../../lambdas/encryption/key-usability.js';
import { speechEngine } from '../../lambdas/engines/speech/index.js';
import { EVENT_SOURCE } from '../../lambdas/events/domain-events.js';
import { JOB_WORKFLOWS } from '../../lambdas/workflows/task-functions.js';
import { type LocalApiServer, startLocalApiServer } from './api-gateway-server.js';
import {
  type RunningExecution,
  startEventBridgeEmulator,
  startKmsEmulator,
  startSqsEmulator,
  startSqsPoller,
  startStepFunctionsEmulator,
  type TargetFunction,
} from './emulators/index.js';
import { ensureDevelopmentAccess } from './seed.js';
import { loadStateMachines } from './state-machines.js';
import { ensureTable, LOCAL_CREDENTIALS, LOCAL_REGION, startDynamo, startS3 } from './storage-emulators.js';
import { localTaskResolver, localTaskSubstitutions, localWorkflowEnvironment } from './task-functions.js';

export const LOCAL_RESOURCE_NAMES = {
  table: 'video-service',
  bucket: 'video-service-media',
  eventBus: 'video-service-events',
  stackKeyAlias: 'alias/video-service-stack',
  hmacKeyAlias: 'alias/video-service-cursors',
  batchQueue: 'video-service-batch',
  webhookQueue: 'video-service-webhooks',
} as const;

/**
 * Functions behind EventBridge/SQS targets, by name. Consumers register here as they are built; an
 * unknown name fails the delivery loudly. Step Functions tasks come from `task-functions.ts`.
 */
function unknownFunction(kind: string, name: string): never {
  throw new Error(`The local stack has no ${kind} function for ${name}`);
}

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
  /** Allow `http://` and loopback webhook URLs, for receivers on this machine. @default false */
  allowLoopbackUrls?: boolean;
  /** Extra environment for the handlers (e.g. `AUTH_CACHE_TTL_SECONDS`). */
  environment?: Record<string, string>;
  /**
   * Multiplies the Wait states and Retry intervals of workflows (tests use `0.001`). @default 1
   */
  stepFunctionsTimeScale?: number;
  /**
   * Extra EventBridge targets by ARN, for rules a caller puts on the bus (tests observe domain
   * events this way). @default {}
   */
  eventTargets?: Record<string, TargetFunction>;
}

export interface LocalStack {
  baseUrl: string;
  /** A full-access key of the default workspace. */
  apiKey: string;
  workspaceId: string;
  /** The environment the handlers run with (for the admin CLI and tests). */
  environment: Record<string, string>;
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

/**
 * The service bus and its rules, as the CDK stack declares them: every domain event of the service
 * goes to the webhook queue (the dispatcher's input), with the queue's dead-letter queue for events
 * the bus cannot hand over.
 */
async function createEventBus(endpoint: string, name: string, webhookQueueArn: string): Promise<void> {
  const client = new EventBridgeClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  await client.send(new CreateEventBusCommand({ Name: name })).catch((error: unknown) => {
    if (!(error instanceof ResourceAlreadyExistsException)) throw error;
  });
  await client.send(
    new PutRuleCommand({
      Name: 'webhook-dispatch',
      EventBusName: name,
      EventPattern: JSON.stringify({ source: [EVENT_SOURCE] }),
      Description: 'Every domain event to the webhook dispatcher',
    }),
  );
  await client.send(
    new PutTargetsCommand({
      Rule: 'webhook-dispatch',
      EventBusName: name,
      Targets: [
        {
          Id: 'webhook-queue',
          Arn: webhookQueueArn,
          DeadLetterConfig: { Arn: `${webhookQueueArn}-dlq` },
        },
      ],
    }),
  );
  client.destroy();
}

/** The local SQS queue named by an ARN as an EventBridge target: the event is the message body. */
function sqsTarget(client: SQSClient, queueUrl: string): TargetFunction {
  return async (payload) => {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(payload) }));
  };
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  // The product runs on Node 20 as well as Lambda's newest runtime; the SDK's notice about future
  // releases needing Node 22 is noise here (the lock file pins the SDK).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  // Everything started, stopped in reverse order.
  const running: { stop(): Promise<void> }[] = [];
  const temporaryS3 = options.dataDir ? undefined : await mkdtemp(join(tmpdir(), 'video-service-s3-'));
  let api: LocalApiServer | undefined;
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
      { kmsEndpoint: kms.endpoint },
    );
    running.push(s3);
    const persisted = (file: string) => (options.dataDir ? { dataFile: join(options.dataDir, file) } : {});
    const stepFunctions = await startStepFunctionsEmulator({
      region: LOCAL_REGION,
      resolveTask: localTaskResolver(LOCAL_REGION),
      definitionSubstitutions: localTaskSubstitutions(LOCAL_REGION),
      ...(options.stepFunctionsTimeScale === undefined ? {} : { timeScale: options.stepFunctionsTimeScale }),
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
    const sqs = await startSqsEmulator({
      region: LOCAL_REGION,
      ...persisted('sqs.json'),
      queues: [LOCAL_RESOURCE_NAMES.batchQueue, LOCAL_RESOURCE_NAMES.webhookQueue].flatMap((name) => [
        { name: `${name}-dlq` },
        {
          name,
          attributes: {
            RedrivePolicy: JSON.stringify({
              deadLetterTargetArn: `arn:aws:sqs:${LOCAL_REGION}:000000000000:${name}-dlq`,
              maxReceiveCount: '5',
            }),
          },
        },
      ]),
    });
    running.push(sqs);
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
      BATCH_QUEUE_URL: sqs.queueUrl(LOCAL_RESOURCE_NAMES.batchQueue),
      WEBHOOK_QUEUE_URL: sqs.queueUrl(LOCAL_RESOURCE_NAMES.webhookQueue),
      WEBHOOK_DEAD_LETTER_QUEUE_URL: sqs.queueUrl(`${LOCAL_RESOURCE_NAMES.webhookQueue}-dlq`),
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      S3_FORCE_PATH_STYLE: 'true',
      TABLE_NAME: LOCAL_RESOURCE_NAMES.table,
      BUCKET_NAME: LOCAL_RESOURCE_NAMES.bucket,
      EVENT_BUS_NAME: LOCAL_RESOURCE_NAMES.eventBus,
      STACK_KEY_ID: stackKeyArn,
      HMAC_KEY_ID: hmacKeyArn,
      ALLOW_LOOPBACK_URLS: options.allowLoopbackUrls ? 'true' : 'false',
      POWERTOOLS_SERVICE_NAME: 'video-creation-service',
      // Read by the logger when its module loads: entry points set it first (see bin/serve.ts).
      POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
      POWERTOOLS_DEV: 'true',
      POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
      ...localWorkflowEnvironment(LOCAL_REGION),
      ...options.environment,
    };
    Object.assign(process.env, environment);
    // A (re)started stack is a cold start: no configuration, client, credential or lease survives.
    resetConfig();
    resetAwsClients();
    clearAuthCache();
    resetRateLimitLeases();
    clearKeyUsabilityCache();

    await createEventBus(
      eventBridge.endpoint,
      LOCAL_RESOURCE_NAMES.eventBus,
      sqs.queueArn(LOCAL_RESOURCE_NAMES.webhookQueue),
    );
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

    // Stock avatar portraits and voice previews: generated once per machine (disk cache), uploaded
    // when the bucket lacks them. Before restarted renders, which read the portraits.
    await publishCatalogMedia({ speechEngine: speechEngine() });
    await restartJobExecutions(stepFunctions.endpoint, interruptedJobs);

    const access = await ensureDevelopmentAccess(options.dataDir);
    api = await startLocalApiServer({
      routes: ROUTES,
      port: options.port ?? 0,
      host: options.host ?? '127.0.0.1',
      docBaseUrl: config().docBaseUrl,
    });
    // The batch worker consumes the batch queue, as the stack's event source mapping does.
    const batchWorker = await startSqsPoller({
      client: new SQSClient({ endpoint: sqs.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }),
      queueUrl: environment.BATCH_QUEUE_URL ?? '',
      consumer: (await import('../../lambdas/workers/batch-items.js')).handler,
      waitTimeSeconds: 1,
      pollIntervalMs: 50,
    });
    running.push(batchWorker);
    // The webhook dispatcher consumes the webhook queue, as the stack's event source mapping does.
    // Several loops, so a receiver that makes an attempt wait for its deadline holds up only its batch.
    const webhookDispatcher = await startSqsPoller({
      client: localSqs,
      queueUrl: environment.WEBHOOK_QUEUE_URL ?? '',
      consumer: (await import('../../lambdas/workers/webhook-dispatcher.js')).handler,
      waitTimeSeconds: 1,
      pollIntervalMs: 20,
      concurrency: 4,
    });
    running.push(webhookDispatcher);
    const server = api;
    return {
      baseUrl: server.url,
      apiKey: access.apiKey,
      workspaceId: access.workspaceId,
      environment,
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
