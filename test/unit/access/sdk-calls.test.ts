import { describe, expect, it } from 'vitest';
import {
  accessRequestsAfter,
  accessRequestsBefore,
  operationOfCommand,
  requiredActions,
} from '../../../lib/access/sdk-calls.js';
import { localResourceNaming } from '../../../lib/local/access-enforcement.js';

const REGION = 'us-east-1';
const ACCOUNT = '000000000000';
const TABLE = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/video-service`;
const BUCKET = 'arn:aws:s3:::video-service-media';
const STACK_KEY = `arn:aws:kms:${REGION}:${ACCOUNT}:key/stack-key-0001`;
const CUSTOMER_KEY = `arn:aws:kms:${REGION}:123456789012:key/customer-key-0002`;
const QUEUE_URL = `http://127.0.0.1:9324/${ACCOUNT}/video-service-webhooks`;
const QUEUE = `arn:aws:sqs:${REGION}:${ACCOUNT}:video-service-webhooks`;
const VIA_S3 = { 'kms:ViaService': 's3.us-east-1.amazonaws.com' };
const VIA_SQS = { 'kms:ViaService': 'sqs.us-east-1.amazonaws.com' };

/** The local KMS knows the stack key by id, ARN and alias. */
const naming = localResourceNaming({
  region: REGION,
  account: ACCOUNT,
  resolveKeyArn: (reference) =>
    [
      'stack-key-0001',
      STACK_KEY,
      'alias/video-service',
      `arn:aws:kms:${REGION}:${ACCOUNT}:alias/video-service`,
    ].includes(reference)
      ? STACK_KEY
      : undefined,
  queueKeyArn: STACK_KEY,
});

describe('operations and actions', () => {
  it('names the operation of a command class; the document client by the low-level operation it sends', () => {
    expect(operationOfCommand('@aws-sdk/client-dynamodb', 'GetItemCommand')).toBe('GetItem');
    expect(operationOfCommand('DynamoDBClient', 'BatchWriteItemCommand')).toBe('BatchWriteItem');
    expect(operationOfCommand('@aws-sdk/lib-dynamodb', 'PutCommand')).toBe('PutItem');
    expect(operationOfCommand('@aws-sdk/lib-dynamodb', 'BatchWriteCommand')).toBe('BatchWriteItem');
    expect(operationOfCommand('@aws-sdk/lib-dynamodb', 'TransactWriteCommand')).toBe('TransactWriteItems');
    expect(operationOfCommand('@aws-sdk/lib-dynamodb', 'QueryCommand')).toBe('Query');
    expect(operationOfCommand('@aws-sdk/client-s3', 'HeadObjectCommand')).toBe('HeadObject');
  });

  it('requires the actions AWS authorizes an operation by, not its name', () => {
    expect(requiredActions('dynamodb', 'GetItem')).toEqual([['dynamodb:GetItem']]);
    expect(requiredActions('s3', 'HeadObject')).toEqual([['s3:GetObject']]);
    expect(requiredActions('s3', 'ListObjectsV2')).toEqual([['s3:ListBucket']]);
    expect(requiredActions('s3', 'CopyObject')).toEqual([['s3:GetObject'], ['s3:PutObject']]);
    expect(requiredActions('sqs', 'SendMessageBatch')).toEqual([['sqs:SendMessage']]);
    expect(requiredActions('dynamodb', 'TransactWriteItems')).toEqual([
      ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'],
    ]);
  });
});

describe('DynamoDB requests', () => {
  it('a Query with IndexName targets the index; without, the table', () => {
    expect(
      accessRequestsBefore('dynamodb', 'Query', { TableName: 'video-service', IndexName: 'gsi1' }, naming),
    ).toEqual([{ action: 'dynamodb:Query', resource: `${TABLE}/index/gsi1` }]);
    expect(accessRequestsBefore('dynamodb', 'Query', { TableName: 'video-service' }, naming)).toEqual([
      { action: 'dynamodb:Query', resource: TABLE },
    ]);
  });

  it("a TransactWriteItems needs each part's action on the part's table", () => {
    const requests = accessRequestsBefore(
      'dynamodb',
      'TransactWriteItems',
      {
        TransactItems: [
          { Put: { TableName: 'video-service', Item: {} } },
          { Update: { TableName: 'video-service', Key: {}, UpdateExpression: 'SET a = :a' } },
          {
            ConditionCheck: {
              TableName: 'other-table',
              Key: {},
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
          { Delete: { TableName: 'video-service', Key: {} } },
        ],
      },
      naming,
    );
    expect(requests).toEqual([
      { action: 'dynamodb:PutItem', resource: TABLE },
      { action: 'dynamodb:UpdateItem', resource: TABLE },
      {
        action: 'dynamodb:ConditionCheckItem',
        resource: `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/other-table`,
      },
      { action: 'dynamodb:DeleteItem', resource: TABLE },
    ]);
    expect(requests.map(({ action }) => action)).not.toContain('dynamodb:TransactWriteItems');
  });

  it('a TransactGetItems needs GetItem per part', () => {
    expect(
      accessRequestsBefore(
        'dynamodb',
        'TransactGetItems',
        { TransactItems: [{ Get: { TableName: 'video-service', Key: {} } }] },
        naming,
      ),
    ).toEqual([{ action: 'dynamodb:GetItem', resource: TABLE }]);
  });

  it('a BatchWriteItem needs BatchWriteItem on each table it writes', () => {
    expect(
      accessRequestsBefore(
        'dynamodb',
        'BatchWriteItem',
        { RequestItems: { 'video-service': [{ PutRequest: { Item: {} } }], archive: [] } },
        naming,
      ),
    ).toEqual([
      { action: 'dynamodb:BatchWriteItem', resource: TABLE },
      { action: 'dynamodb:BatchWriteItem', resource: `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/archive` },
    ]);
  });
});

describe('S3 requests', () => {
  it('a HeadObject is authorized as s3:GetObject on the object', () => {
    expect(
      accessRequestsBefore(
        's3',
        'HeadObject',
        { Bucket: 'video-service-media', Key: 'workspaces/w1/a.mp4' },
        naming,
      ),
    ).toEqual([{ action: 's3:GetObject', resource: `${BUCKET}/workspaces/w1/a.mp4` }]);
  });

  it('a ListObjectsV2 is s3:ListBucket on the bucket, with s3:prefix when a Prefix is given', () => {
    const [withPrefix] = accessRequestsBefore(
      's3',
      'ListObjectsV2',
      { Bucket: 'video-service-media', Prefix: 'workspaces/w1/' },
      naming,
    );
    expect(withPrefix).toEqual({
      action: 's3:ListBucket',
      resource: BUCKET,
      context: { 's3:prefix': 'workspaces/w1/' },
    });
    const requests = accessRequestsBefore('s3', 'ListObjectsV2', { Bucket: 'video-service-media' }, naming);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.action).toBe('s3:ListBucket');
    expect(requests[0]?.resource).toBe(BUCKET);
    expect(requests[0]?.context?.['s3:prefix']).toBeUndefined();
  });

  it('a CopyObject reads the URL-decoded source and writes the destination', () => {
    expect(
      accessRequestsBefore(
        's3',
        'CopyObject',
        {
          Bucket: 'video-service-media',
          Key: 'workspaces/w2/copy of a.mp4',
          CopySource: 'other-bucket/workspaces/w1/a%20b%2Bc.mp4?versionId=v1',
        },
        naming,
      ),
    ).toEqual([
      { action: 's3:GetObject', resource: 'arn:aws:s3:::other-bucket/workspaces/w1/a b+c.mp4' },
      { action: 's3:PutObject', resource: `${BUCKET}/workspaces/w2/copy of a.mp4` },
    ]);
  });

  it('a PutObject with SSE-KMS also needs kms:GenerateDataKey on the key through S3', () => {
    expect(
      accessRequestsBefore(
        's3',
        'PutObject',
        {
          Bucket: 'video-service-media',
          Key: 'workspaces/w1/a.mp4',
          ServerSideEncryption: 'aws:kms',
          SSEKMSKeyId: CUSTOMER_KEY,
        },
        naming,
      ),
    ).toEqual([
      { action: 's3:PutObject', resource: `${BUCKET}/workspaces/w1/a.mp4` },
      { action: 'kms:GenerateDataKey', resource: CUSTOMER_KEY, context: VIA_S3 },
    ]);
    // A key named by alias is authorized against the key the alias points at.
    expect(
      accessRequestsBefore(
        's3',
        'PutObject',
        {
          Bucket: 'video-service-media',
          Key: 'k',
          ServerSideEncryption: 'aws:kms',
          SSEKMSKeyId: 'alias/video-service',
        },
        naming,
      )[1],
    ).toEqual({ action: 'kms:GenerateDataKey', resource: STACK_KEY, context: VIA_S3 });
    // Without SSE-KMS, no key is used.
    expect(
      accessRequestsBefore(
        's3',
        'PutObject',
        { Bucket: 'video-service-media', Key: 'k', ServerSideEncryption: 'AES256' },
        naming,
      ),
    ).toEqual([{ action: 's3:PutObject', resource: `${BUCKET}/k` }]);
  });

  it('a GetObject answered with SSE-KMS needs kms:Decrypt on the key through S3, after the call', () => {
    const input = { Bucket: 'video-service-media', Key: 'workspaces/w1/a.mp4' };
    expect(accessRequestsBefore('s3', 'GetObject', input, naming)).toEqual([
      { action: 's3:GetObject', resource: `${BUCKET}/workspaces/w1/a.mp4` },
    ]);
    expect(
      accessRequestsAfter(
        's3',
        'GetObject',
        input,
        { ServerSideEncryption: 'aws:kms', SSEKMSKeyId: CUSTOMER_KEY },
        naming,
      ),
    ).toEqual([{ action: 'kms:Decrypt', resource: CUSTOMER_KEY, context: VIA_S3 }]);
    expect(accessRequestsAfter('s3', 'GetObject', input, { ServerSideEncryption: 'AES256' }, naming)).toEqual(
      [],
    );
  });
});

describe('SQS requests', () => {
  it('a SendMessage on an encrypted queue needs sqs:SendMessage and the key through SQS', () => {
    expect(
      accessRequestsBefore('sqs', 'SendMessage', { QueueUrl: QUEUE_URL, MessageBody: '{}' }, naming),
    ).toEqual([
      { action: 'sqs:SendMessage', resource: QUEUE },
      { action: 'kms:GenerateDataKey', resource: STACK_KEY, context: VIA_SQS },
      { action: 'kms:Decrypt', resource: STACK_KEY, context: VIA_SQS },
    ]);
  });

  it('a ReceiveMessage needs kms:Decrypt through SQS, not GenerateDataKey', () => {
    expect(accessRequestsBefore('sqs', 'ReceiveMessage', { QueueUrl: QUEUE_URL }, naming)).toEqual([
      { action: 'sqs:ReceiveMessage', resource: QUEUE },
      { action: 'kms:Decrypt', resource: STACK_KEY, context: VIA_SQS },
    ]);
  });
});

describe('KMS requests', () => {
  it('carry the encryption context as kms:EncryptionContext:<key>', () => {
    expect(
      accessRequestsBefore(
        'kms',
        'Encrypt',
        {
          KeyId: 'alias/video-service',
          Plaintext: new Uint8Array(1),
          EncryptionContext: { webhook_endpoint_id: 'we_1', workspace_id: 'ws_1' },
        },
        naming,
      ),
    ).toEqual([
      {
        action: 'kms:Encrypt',
        resource: STACK_KEY,
        context: {
          'kms:EncryptionContext:webhook_endpoint_id': 'we_1',
          'kms:EncryptionContext:workspace_id': 'ws_1',
        },
      },
    ]);
  });

  it('names a key outside the local KMS as referenced', () => {
    expect(accessRequestsBefore('kms', 'DescribeKey', { KeyId: 'abcd' }, naming)[0]?.resource).toBe(
      `arn:aws:kms:${REGION}:${ACCOUNT}:key/abcd`,
    );
    expect(accessRequestsBefore('kms', 'DescribeKey', { KeyId: CUSTOMER_KEY }, naming)[0]?.resource).toBe(
      CUSTOMER_KEY,
    );
  });

  it('a Decrypt without KeyId is checked after the call, against the key the answer names', () => {
    const input = { CiphertextBlob: new Uint8Array(8), EncryptionContext: { webhook_endpoint_id: 'we_1' } };
    expect(accessRequestsBefore('kms', 'Decrypt', input, naming)).toEqual([]);
    expect(accessRequestsAfter('kms', 'Decrypt', input, { KeyId: STACK_KEY }, naming)).toEqual([
      {
        action: 'kms:Decrypt',
        resource: STACK_KEY,
        context: { 'kms:EncryptionContext:webhook_endpoint_id': 'we_1' },
      },
    ]);
  });

  it('a Decrypt with KeyId is checked before the call only', () => {
    const input = { KeyId: STACK_KEY, CiphertextBlob: new Uint8Array(8) };
    expect(accessRequestsBefore('kms', 'Decrypt', input, naming)).toEqual([
      { action: 'kms:Decrypt', resource: STACK_KEY, context: {} },
    ]);
    expect(accessRequestsAfter('kms', 'Decrypt', input, { KeyId: STACK_KEY }, naming)).toEqual([]);
  });
});

describe('EventBridge and others', () => {
  it('a PutEvents needs events:PutEvents once per distinct bus', () => {
    const requests = accessRequestsBefore(
      'events',
      'PutEvents',
      {
        Entries: [
          { EventBusName: 'video-service', Detail: '{}' },
          { EventBusName: 'video-service', Detail: '{}' },
          { EventBusName: `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/video-service`, Detail: '{}' },
          { Detail: '{}' },
        ],
      },
      naming,
    );
    expect(requests).toEqual([
      { action: 'events:PutEvents', resource: `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/video-service` },
      { action: 'events:PutEvents', resource: `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/default` },
    ]);
  });

  it('Polly has no resource-level permissions: the resource is *', () => {
    expect(accessRequestsBefore('polly', 'SynthesizeSpeech', { Text: 'hi' }, naming)).toEqual([
      { action: 'polly:SynthesizeSpeech', resource: '*' },
    ]);
  });

  it('Step Functions calls name the state machine or execution', () => {
    const machine = `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:video-render`;
    expect(accessRequestsBefore('states', 'StartExecution', { stateMachineArn: machine }, naming)).toEqual([
      { action: 'states:StartExecution', resource: machine },
    ]);
  });
});
