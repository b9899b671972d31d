import {
  BatchWriteItemCommand,
  DynamoDBClient,
  DynamoDBServiceException,
  GetItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import {
  EventBridgeClient,
  EventBridgeServiceException,
  PutEventsCommand,
} from '@aws-sdk/client-eventbridge';
import { DecryptCommand, KMSClient, KMSServiceException } from '@aws-sdk/client-kms';
import {
  GetObjectCommand,
  HeadObjectCommand,
  NotFound,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient, SQSServiceException } from '@aws-sdk/client-sqs';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { describe, expect, it } from 'vitest';
import { serviceFunctionGrants } from '../../../lib/access/function-access.js';
import type { GrantResources } from '../../../lib/access/grant-policies.js';
import { LocalAccessEnforcement, localResourceNaming } from '../../../lib/local/access-enforcement.js';

const REGION = 'us-east-1';
const ACCOUNT = '000000000000';
const TABLE_NAME = 'video-service';
const BUCKET_NAME = 'video-service-media';
const TABLE = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${TABLE_NAME}`;
const STACK_KEY = `arn:aws:kms:${REGION}:${ACCOUNT}:key/00000000-stack-key`;
const CURSOR_KEY = `arn:aws:kms:${REGION}:${ACCOUNT}:key/00000000-cursor-key`;
const EVENT_BUS = `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/video-service`;
const queueArn = (name: string) => `arn:aws:sqs:${REGION}:${ACCOUNT}:${name}`;
const queueUrl = (name: string) => `http://127.0.0.1:9324/${ACCOUNT}/${name}`;

const resources: GrantResources = {
  partition: 'aws',
  region: REGION,
  urlSuffix: 'amazonaws.com',
  tableArn: TABLE,
  stackKeyArn: STACK_KEY,
  cursorKeyArn: CURSOR_KEY,
  mediaBucketArn: `arn:aws:s3:::${BUCKET_NAME}`,
  eventBusArn: EVENT_BUS,
  batchQueueArn: queueArn('video-service-batch'),
  webhookQueueArn: queueArn('video-service-webhooks'),
  webhookDeadLetterQueueArn: queueArn('video-service-webhooks-dlq'),
  realtimeQueueArn: queueArn('video-service-realtime'),
  jobWorkflowArns: [`arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:video-render`],
  speechEngine: 'espeak',
};

function enforcement(): LocalAccessEnforcement {
  return new LocalAccessEnforcement({
    functions: serviceFunctionGrants(),
    resources,
    account: ACCOUNT,
    naming: localResourceNaming({
      region: REGION,
      account: ACCOUNT,
      resolveKeyArn: (reference) =>
        reference === STACK_KEY || reference === 'alias/video-service' ? STACK_KEY : undefined,
      queueKeyArn: STACK_KEY,
    }),
  });
}

const clientOptions = {
  region: REGION,
  credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
  endpoint: 'http://127.0.0.1:9',
};

interface StackOwner {
  middlewareStack: { add: (...args: never[]) => void };
}

/** Answers every call with `output` instead of sending it: the check runs before it. */
function answering<Client extends StackOwner>(
  client: Client,
  output: Record<string, unknown> = {},
  guard: LocalAccessEnforcement,
): Client & { sent: number } {
  const counted = client as Client & { sent: number };
  counted.sent = 0;
  (client.middlewareStack as unknown as { use: (plugin: unknown) => void }).use(guard.plugin());
  (client.middlewareStack.add as unknown as (middleware: unknown, options: unknown) => void)(
    () => async () => {
      counted.sent++;
      return { output: { $metadata: {}, ...output }, response: {} };
    },
    { step: 'finalizeRequest', name: 'noNetwork' },
  );
  return counted;
}

/** An S3 client whose every call finds no object. */
function missingObjects(guard: LocalAccessEnforcement): S3Client {
  const client = new S3Client({ ...clientOptions, forcePathStyle: true });
  (client.middlewareStack as unknown as { use: (plugin: unknown) => void }).use(guard.plugin());
  client.middlewareStack.add(
    () => async () => {
      throw new NotFound({ message: 'Not Found', $metadata: { httpStatusCode: 404 } });
    },
    { step: 'finalizeRequest', name: 'noSuchObject' },
  );
  return client;
}

/** The promise's rejection, which must be one. */
async function refusal(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error('The call was not refused');
}

const deliveries = {
  RequestItems: {
    [TABLE_NAME]: [
      { PutRequest: { Item: { pk: { S: 'DELIVERY#1' }, sk: { S: 'DELIVERY#1' } } } },
      { PutRequest: { Item: { pk: { S: 'DELIVERY#2' }, sk: { S: 'DELIVERY#2' } } } },
    ],
  },
};

describe('roles', () => {
  it('gives every function of the stack a role, and refuses a name the stack does not have', () => {
    const guard = enforcement();
    for (const [name, grants] of serviceFunctionGrants()) {
      const role = guard.role(name);
      expect(role.function).toBe(name);
      expect(role.grants).toEqual(grants);
      expect(guard.runAs(name, () => name)).toBe(name);
    }
    expect(() => guard.runAs('area:nope' as never, () => 1)).toThrow(/no function area:nope/);
    expect(() => guard.runAs('task:Nope', () => 1)).toThrow(/no function task:Nope/);
  });

  it('functions without data access get an empty policy', () => {
    const guard = enforcement();
    expect(guard.role('area:meta').statements).toEqual([]);
  });
});

describe('DynamoDB', () => {
  it('lets the webhook dispatcher write deliveries in batches, through either client', async () => {
    const guard = enforcement();
    const client = answering(new DynamoDBClient(clientOptions), { UnprocessedItems: {} }, guard);
    const documents = DynamoDBDocumentClient.from(client);
    await guard.runAs('webhookDispatcher', async () => {
      await client.send(new BatchWriteItemCommand(deliveries));
      await documents.send(
        new BatchWriteCommand({
          RequestItems: { [TABLE_NAME]: [{ PutRequest: { Item: { pk: 'DELIVERY#3', sk: 'DELIVERY#3' } } }] },
        }),
      );
    });
    expect(client.sent).toBe(2);
    expect(guard.denials).toEqual([]);
  });

  it('refuses a batch write to a route area as DynamoDB refuses it, and records it', async () => {
    const guard = enforcement();
    const client = answering(new DynamoDBClient(clientOptions), {}, guard);
    const error = await refusal(
      guard.runAs('area:folders', () => client.send(new BatchWriteItemCommand(deliveries))),
    );
    expect(error).toBeInstanceOf(DynamoDBServiceException);
    expect(error.name).toBe('AccessDeniedException');
    expect((error as unknown as DynamoDBServiceException).$fault).toBe('client');
    expect((error as unknown as DynamoDBServiceException).$metadata.httpStatusCode).toBe(400);
    expect(error.message).toContain(
      `is not authorized to perform: dynamodb:BatchWriteItem on resource: ${TABLE}`,
    );
    expect(error.message).toMatch(/^User: arn:aws:sts::000000000000:assumed-role\/local-area-folders\//);
    // Refused before it was sent.
    expect(client.sent).toBe(0);
    expect(guard.denials).toEqual([
      {
        function: 'area:folders',
        action: 'dynamodb:BatchWriteItem',
        resource: TABLE,
        message: error.message,
      },
    ]);
  });

  it('refuses the document client the same way (lib-dynamodb BatchWriteCommand)', async () => {
    const guard = enforcement();
    const client = answering(new DynamoDBClient(clientOptions), {}, guard);
    const documents = DynamoDBDocumentClient.from(client);
    const error = await refusal(
      guard.runAs('area:folders', () =>
        documents.send(
          new BatchWriteCommand({ RequestItems: { [TABLE_NAME]: [{ PutRequest: { Item: { pk: 'x' } } }] } }),
        ),
      ),
    );
    expect(error).toBeInstanceOf(DynamoDBServiceException);
    expect(error.name).toBe('AccessDeniedException');
    expect(guard.denials.map(({ function: name, action }) => [name, action])).toEqual([
      ['area:folders', 'dynamodb:BatchWriteItem'],
    ]);
  });

  it('lets a route area query the index, and not a task function (job items: the table only)', async () => {
    const guard = enforcement();
    const client = answering(new DynamoDBClient(clientOptions), { Items: [] }, guard);
    const query = new QueryCommand({
      TableName: TABLE_NAME,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :p',
      ExpressionAttributeValues: { ':p': { S: 'x' } },
    });
    await guard.runAs('area:folders', () => client.send(query));
    const error = await refusal(guard.runAs('task:VideoCompose', () => client.send(query)));
    expect(error.name).toBe('AccessDeniedException');
    expect(guard.denials).toMatchObject([
      { function: 'task:VideoCompose', action: 'dynamodb:Query', resource: `${TABLE}/index/gsi1` },
    ]);
  });

  it('does not check calls made outside any function (the operator)', async () => {
    const guard = enforcement();
    const client = answering(new DynamoDBClient(clientOptions), {}, guard);
    await client.send(new BatchWriteItemCommand(deliveries));
    await client.send(new GetItemCommand({ TableName: 'anything-at-all', Key: { pk: { S: 'x' } } }));
    expect(client.sent).toBe(2);
    expect(guard.denials).toEqual([]);
  });

  it('checks each call against the function it runs for, even when concurrent', async () => {
    const guard = enforcement();
    const client = answering(new DynamoDBClient(clientOptions), {}, guard);
    const results = await Promise.allSettled([
      guard.runAs('webhookDispatcher', () => client.send(new BatchWriteItemCommand(deliveries))),
      guard.runAs('area:meta', () => client.send(new BatchWriteItemCommand(deliveries))),
      guard.runAs('webhookDispatcher', () => client.send(new BatchWriteItemCommand(deliveries))),
    ]);
    expect(results.map(({ status }) => status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(guard.denials.map(({ function: name }) => name)).toEqual(['area:meta']);
  });
});

describe('S3', () => {
  const s3 = (guard: LocalAccessEnforcement, output: Record<string, unknown> = {}) =>
    answering(new S3Client({ ...clientOptions, forcePathStyle: true }), output, guard);

  it('refuses a read to a function without grants as S3 does: AccessDenied, 403', async () => {
    const guard = enforcement();
    const client = s3(guard);
    const error = await refusal(
      guard.runAs('area:meta', () =>
        client.send(new GetObjectCommand({ Bucket: BUCKET_NAME, Key: 'workspaces/w1/a.mp4' })),
      ),
    );
    expect(error).toBeInstanceOf(S3ServiceException);
    expect(error.name).toBe('AccessDenied');
    expect((error as unknown as S3ServiceException).$metadata.httpStatusCode).toBe(403);
    expect(error.message).toContain(
      `is not authorized to perform: s3:GetObject on resource: arn:aws:s3:::${BUCKET_NAME}/workspaces/w1/a.mp4`,
    );
    expect(client.sent).toBe(0);
    expect(guard.denials).toMatchObject([{ function: 'area:meta', action: 's3:GetObject' }]);
  });

  it('lets a task function read workspace media and catalog portraits, and write only under workspaces/', async () => {
    const guard = enforcement();
    const client = s3(guard);
    await guard.runAs('task:VideoCompose', async () => {
      await client.send(new GetObjectCommand({ Bucket: BUCKET_NAME, Key: 'workspaces/w1/a.mp4' }));
      await client.send(new GetObjectCommand({ Bucket: BUCKET_NAME, Key: 'catalog/avatars/a.png' }));
      await client.send(
        new PutObjectCommand({ Bucket: BUCKET_NAME, Key: 'workspaces/w1/out.mp4', Body: 'x' }),
      );
    });
    const error = await refusal(
      guard.runAs('task:VideoCompose', () =>
        client.send(new PutObjectCommand({ Bucket: BUCKET_NAME, Key: 'catalog/avatars/a.png', Body: 'x' })),
      ),
    );
    expect(error.name).toBe('AccessDenied');
    expect(guard.denials).toMatchObject([
      {
        function: 'task:VideoCompose',
        action: 's3:PutObject',
        resource: `arn:aws:s3:::${BUCKET_NAME}/catalog/avatars/a.png`,
      },
    ]);
  });

  it('refuses an SSE-KMS object whose key the function may not use through S3, after the read', async () => {
    const guard = enforcement();
    const foreignKey = 'arn:aws:kms:eu-west-1:123456789012:key/elsewhere';
    const client = s3(guard, { ServerSideEncryption: 'aws:kms', SSEKMSKeyId: foreignKey });
    const error = await refusal(
      guard.runAs('task:VideoCompose', () =>
        client.send(new GetObjectCommand({ Bucket: BUCKET_NAME, Key: 'workspaces/w1/a.mp4' })),
      ),
    );
    expect(error).toBeInstanceOf(S3ServiceException);
    expect(error.name).toBe('AccessDenied');
    expect(guard.denials).toMatchObject([{ action: 'kms:Decrypt', resource: foreignKey }]);
    // A key of the stack's region (a workspace's own key, any account) is usable through S3.
    const ownKey = s3(guard, {
      ServerSideEncryption: 'aws:kms',
      SSEKMSKeyId: 'arn:aws:kms:us-east-1:123456789012:key/workspace-key',
    });
    await guard.runAs('task:VideoCompose', () =>
      ownKey.send(new GetObjectCommand({ Bucket: BUCKET_NAME, Key: 'workspaces/w1/a.mp4' })),
    );
    expect(guard.denials).toHaveLength(1);
  });

  it('refuses to presign a URL the role could not use', async () => {
    const guard = enforcement();
    const client = s3(guard);
    const error = await refusal(
      guard.runAs('area:folders', () =>
        getSignedUrl(client, new GetObjectCommand({ Bucket: BUCKET_NAME, Key: 'workspaces/w1/a.mp4' })),
      ),
    );
    expect(error).toBeInstanceOf(S3ServiceException);
    expect(error.name).toBe('AccessDenied');
    expect(guard.denials).toMatchObject([
      {
        function: 'area:folders',
        action: 's3:GetObject',
        resource: `arn:aws:s3:::${BUCKET_NAME}/workspaces/w1/a.mp4`,
      },
    ]);
    // The sound catalog signs with a role that can read the object.
    const url = await guard.runAs('area:audio', () =>
      getSignedUrl(client, new GetObjectCommand({ Bucket: BUCKET_NAME, Key: 'catalog/sounds/a.mp3' })),
    );
    expect(url).toContain('X-Amz-Signature=');
    expect(guard.denials).toHaveLength(1);
  });

  it('answers a missing object with 403 to a reader that may not list that prefix', async () => {
    const guard = enforcement();
    const client = missingObjects(guard);
    // Task functions read catalog portraits (jobMedia) but may list only under workspaces/.
    const error = await refusal(
      guard.runAs('task:VideoPrepare', () =>
        client.send(new HeadObjectCommand({ Bucket: BUCKET_NAME, Key: 'catalog/avatars/missing.png' })),
      ),
    );
    expect(error).toBeInstanceOf(S3ServiceException);
    expect(error.name).toBe('AccessDenied');
    expect((error as unknown as S3ServiceException).$metadata.httpStatusCode).toBe(403);
    expect(guard.denials).toMatchObject([
      { function: 'task:VideoPrepare', action: 's3:ListBucket', resource: `arn:aws:s3:::${BUCKET_NAME}` },
    ]);
  });

  it('lets a reader that may list the prefix see the missing object', async () => {
    const guard = enforcement();
    const client = missingObjects(guard);
    const underWorkspaces = await refusal(
      guard.runAs('task:VideoPrepare', () =>
        client.send(new HeadObjectCommand({ Bucket: BUCKET_NAME, Key: 'workspaces/w1/missing.mp4' })),
      ),
    );
    expect(underWorkspaces).toBeInstanceOf(NotFound);
    expect(underWorkspaces.name).toBe('NotFound');
    const catalogPublisher = await refusal(
      guard.runAs('catalogPublisher', () =>
        client.send(new HeadObjectCommand({ Bucket: BUCKET_NAME, Key: 'catalog/avatars/missing.png' })),
      ),
    );
    expect(catalogPublisher.name).toBe('NotFound');
    expect(guard.denials).toEqual([]);
  });
});

describe('EventBridge', () => {
  const publish = new PutEventsCommand({
    Entries: [{ EventBusName: EVENT_BUS, Source: 'video-service', DetailType: 'video.failed', Detail: '{}' }],
  });

  it('lets VideoPrepare publish to the service bus (its restart path)', async () => {
    const guard = enforcement();
    const client = answering(
      new EventBridgeClient(clientOptions),
      { FailedEntryCount: 0, Entries: [] },
      guard,
    );
    await guard.runAs('task:VideoPrepare', () => client.send(publish));
    expect(client.sent).toBe(1);
    expect(guard.denials).toEqual([]);
  });

  it('refuses a function without publishEvents', async () => {
    const guard = enforcement();
    const client = answering(new EventBridgeClient(clientOptions), {}, guard);
    const error = await refusal(guard.runAs('task:VideoCompose', () => client.send(publish)));
    expect(error).toBeInstanceOf(EventBridgeServiceException);
    expect(error.name).toBe('AccessDeniedException');
    expect(error.message).toContain(
      `is not authorized to perform: events:PutEvents on resource: ${EVENT_BUS}`,
    );
    expect(client.sent).toBe(0);
    expect(guard.denials).toMatchObject([{ function: 'task:VideoCompose', action: 'events:PutEvents' }]);
  });

  it('refuses publishing to another bus, even with publishEvents', async () => {
    const guard = enforcement();
    const client = answering(new EventBridgeClient(clientOptions), {}, guard);
    const error = await refusal(
      guard.runAs('task:VideoPrepare', () =>
        client.send(new PutEventsCommand({ Entries: [{ Source: 's', DetailType: 'd', Detail: '{}' }] })),
      ),
    );
    expect(error.name).toBe('AccessDeniedException');
    expect(guard.denials).toMatchObject([
      { action: 'events:PutEvents', resource: `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/default` },
    ]);
  });
});

describe('SQS', () => {
  it('lets the webhooks area send to the webhook queue (with the stack key through SQS), not the batch queue', async () => {
    const guard = enforcement();
    const client = answering(new SQSClient({ ...clientOptions, md5: false }), { MessageId: 'm1' }, guard);
    await guard.runAs('area:webhooks', () =>
      client.send(
        new SendMessageCommand({ QueueUrl: queueUrl('video-service-webhooks'), MessageBody: '{}' }),
      ),
    );
    const error = await refusal(
      guard.runAs('area:webhooks', () =>
        client.send(new SendMessageCommand({ QueueUrl: queueUrl('video-service-batch'), MessageBody: '{}' })),
      ),
    );
    expect(error).toBeInstanceOf(SQSServiceException);
    expect(error.name).toBe('AccessDenied');
    expect((error as unknown as SQSServiceException).$metadata.httpStatusCode).toBe(403);
    expect(guard.denials).toMatchObject([
      { function: 'area:webhooks', action: 'sqs:SendMessage', resource: queueArn('video-service-batch') },
    ]);
  });
});

describe('KMS', () => {
  it("checks a Decrypt without KeyId once the answer names the key, with the call's encryption context", async () => {
    const guard = enforcement();
    const client = answering(
      new KMSClient(clientOptions),
      { KeyId: STACK_KEY, Plaintext: new Uint8Array(1) },
      guard,
    );
    await guard.runAs('webhookDispatcher', () =>
      client.send(
        new DecryptCommand({
          CiphertextBlob: new Uint8Array(8),
          EncryptionContext: { webhook_endpoint_id: 'we_1' },
        }),
      ),
    );
    expect(guard.denials).toEqual([]);
    // Without the webhook context, the stack key decrypts nothing for the dispatcher.
    const error = await refusal(
      guard.runAs('webhookDispatcher', () =>
        client.send(new DecryptCommand({ CiphertextBlob: new Uint8Array(8) })),
      ),
    );
    expect(error).toBeInstanceOf(KMSServiceException);
    expect(error.name).toBe('AccessDeniedException');
    expect(client.sent).toBe(2);
    expect(guard.denials).toMatchObject([
      { function: 'webhookDispatcher', action: 'kms:Decrypt', resource: STACK_KEY },
    ]);
  });
});
