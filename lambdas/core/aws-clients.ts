/**
 * AWS SDK v3 clients, one per process, created on first use. Endpoints come from the SDK's own
 * `AWS_ENDPOINT_URL_<SERVICE>` variables, so the same code talks to AWS or to the local emulators.
 * Every client of the service is made through {@link configuredClient}: traced, and with the
 * process's client plugins (the local stack checks each call against the calling function's IAM
 * grants this way: lib/local/access-enforcement.ts).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KMSClient } from '@aws-sdk/client-kms';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Pluggable } from '@smithy/types';
import { config } from './config.js';
import { tracer } from './observability.js';
import { onProcessReset } from './process-state.js';

/** Middleware every client of this process gets, as SDK plugins. */
export type ClientPlugin = Pluggable<object, object>;
let clientPlugins: readonly ClientPlugin[] = [];

/** Sets the plugins of every client made from now on, and drops the clients made before. */
export function useClientPlugins(plugins: readonly ClientPlugin[]): void {
  clientPlugins = plugins;
  resetAwsClients();
}

interface SdkClient {
  middlewareStack: { use(plugin: ClientPlugin): void };
}

/** A client as every client of the service is: with the process's plugins, traced when tracing is on. */
export function configuredClient<Client extends object>(client: Client): Client {
  for (const plugin of clientPlugins) (client as unknown as SdkClient).middlewareStack.use(plugin);
  return tracer ? tracer.captureAWSv3Client(client) : client;
}

let documentClient: DynamoDBDocumentClient | undefined;
let dynamoClient: DynamoDBClient | undefined;
let s3: S3Client | undefined;
let kms: KMSClient | undefined;
let sfn: SFNClient | undefined;
let sqs: SQSClient | undefined;
let eventBridge: EventBridgeClient | undefined;

export function dynamo(): DynamoDBClient {
  dynamoClient ??= configuredClient(new DynamoDBClient({}));
  return dynamoClient;
}

export function documents(): DynamoDBDocumentClient {
  documentClient ??= DynamoDBDocumentClient.from(dynamo(), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return documentClient;
}

export function s3Client(): S3Client {
  s3 ??= configuredClient(
    new S3Client({
      forcePathStyle: config().s3ForcePathStyle,
      // Checksums only where S3 requires them: S3-compatible stores otherwise keep the aws-chunked framing.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    }),
  );
  return s3;
}

export function kmsClient(): KMSClient {
  kms ??= configuredClient(new KMSClient({}));
  return kms;
}

export function sfnClient(): SFNClient {
  sfn ??= configuredClient(new SFNClient({}));
  return sfn;
}

export function sqsClient(): SQSClient {
  sqs ??= configuredClient(new SQSClient({}));
  return sqs;
}

export function eventBridgeClient(): EventBridgeClient {
  eventBridge ??= configuredClient(new EventBridgeClient({}));
  return eventBridge;
}

/** Drop every client (the local stack changes endpoints: see core/process-state.ts). */
export function resetAwsClients(): void {
  documentClient = undefined;
  dynamoClient = undefined;
  s3 = undefined;
  kms = undefined;
  sfn = undefined;
  sqs = undefined;
  eventBridge = undefined;
}
onProcessReset(resetAwsClients);
