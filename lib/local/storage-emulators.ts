/** DynamoDB (dynalite) and S3 (s3rver) on loopback, created with the stack's table and bucket shape. */
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import S3rver from 's3rver';
import { TABLE_SCHEMA } from '../../lambdas/core/table-schema.js';
import { addTransactWriteItems } from './dynamo-transactions.js';
import { type S3EncryptionShim, startS3EncryptionShim } from './s3-encryption-shim.js';

export interface RunningEmulator {
  endpoint: string;
  stop(): Promise<void>;
}

export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;
export const LOCAL_REGION = 'us-east-1';
/** The account of every local ARN (the emulators' default). */
export const LOCAL_ACCOUNT = '000000000000';

/** dynalite (with `TransactWriteItems`, see dynamo-transactions.ts), persisted under `directory` or in memory. */
export async function startDynamo(directory: string | undefined): Promise<RunningEmulator> {
  if (directory) await mkdir(directory, { recursive: true });
  const server = dynalite({
    ...(directory ? { path: directory } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  let endpoint = '';
  addTransactWriteItems(server, () => endpoint);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Creates the single table exactly as the CDK stack defines it, unless it exists. */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    client.destroy();
    return;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  const { partitionKey, sortKey, gsi1, timeToLiveAttribute } = TABLE_SCHEMA;
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: partitionKey, AttributeType: 'S' },
        { AttributeName: sortKey, AttributeType: 'S' },
        { AttributeName: gsi1.partitionKey, AttributeType: 'S' },
        { AttributeName: gsi1.sortKey, AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: partitionKey, KeyType: 'HASH' },
        { AttributeName: sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: gsi1.indexName,
          KeySchema: [
            { AttributeName: gsi1.partitionKey, KeyType: 'HASH' },
            { AttributeName: gsi1.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
  // dynalite accepts the TTL setting but never expires items; code checks expiry itself.
  await client
    .send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: timeToLiveAttribute, Enabled: true },
      }),
    )
    .catch(() => undefined);
  client.destroy();
}

export interface S3Options {
  /**
   * The local KMS: the encryption shim resolves SSE-KMS key ids to ARNs and refuses keys it reports
   * missing, disabled or pending deletion, as S3 does. @default undefined (no key checks)
   */
  kmsEndpoint?: string;
  /** Browser origins (S3 wildcards allowed) that may PUT and GET the bucket's presigned URLs. @default [] */
  corsOrigins?: readonly string[];
}

/**
 * The bucket CORS rule a browser needs to PUT direct uploads and read media (captions) from a page
 * on another origin, as the stack's media bucket has for its allowed origins.
 */
function corsConfiguration(origins: readonly string[]): string {
  return [
    '<CORSConfiguration><CORSRule>',
    ...origins.map((origin) => `<AllowedOrigin>${origin}</AllowedOrigin>`),
    '<AllowedMethod>GET</AllowedMethod><AllowedMethod>HEAD</AllowedMethod><AllowedMethod>PUT</AllowedMethod>',
    '<AllowedHeader>*</AllowedHeader><ExposeHeader>ETag</ExposeHeader><MaxAgeSeconds>600</MaxAgeSeconds>',
    '</CORSRule></CORSConfiguration>',
  ].join('');
}

export interface RunningS3 extends RunningEmulator {
  /** What the encryption shim recorded for an object. */
  encryptionOf: S3EncryptionShim['encryptionOf'];
}

/**
 * s3rver with the media bucket, storing objects under `directory`, behind the encryption shim
 * (`s3-encryption-shim.ts`): s3rver ignores SSE, the shim records and reports it like S3. The
 * endpoint is the shim's.
 */
export async function startS3(
  directory: string,
  bucketName: string,
  options: S3Options = {},
): Promise<RunningS3> {
  await mkdir(directory, { recursive: true });
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    vhostBuckets: false,
    configureBuckets: [
      {
        name: bucketName,
        configs: options.corsOrigins?.length ? [corsConfiguration(options.corsOrigins)] : [],
      },
    ],
  });
  const { port } = await server.run();
  try {
    const shim = await startS3EncryptionShim({
      upstreamPort: port,
      // A file, not a directory: s3rver lists only directories as buckets.
      dataFile: join(directory, '.server-side-encryption.json'),
      ...(options.kmsEndpoint
        ? { kms: { endpoint: options.kmsEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS } }
        : {}),
    });
    return {
      endpoint: shim.endpoint,
      encryptionOf: shim.encryptionOf,
      stop: async () => {
        await shim.stop();
        await server.close();
      },
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}
