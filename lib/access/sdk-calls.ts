/**
 * How AWS authorizes each AWS SDK call the service makes: the IAM actions a command needs, and, for
 * a call with its input, the exact requests (action, resource ARN, condition keys) IAM evaluates.
 * The local stack checks every call against the calling function's grants with this
 * (`lib/local/access-enforcement.ts`); the deploy preflight checks that every role's actions cover the
 * commands its bundle can send (`lib/preflight/role-coverage.ts`).
 *
 * Most operations are authorized as `<service>:<Operation>` on the resource the input names; the
 * exceptions are spelled out in {@link ACTIONS_BY_OPERATION}, from the services' authorization
 * references (e.g. S3 authorizes HeadObject as s3:GetObject, and a DynamoDB transaction by the
 * actions of its parts).
 */
import type { AccessRequest } from './policy-evaluation.js';

/** IAM service prefixes by SDK client name (the `clientName` of the SDK's handler context). */
export const SERVICE_OF_CLIENT: Readonly<Record<string, string>> = {
  DynamoDBClient: 'dynamodb',
  S3Client: 's3',
  KMSClient: 'kms',
  SFNClient: 'states',
  SQSClient: 'sqs',
  EventBridgeClient: 'events',
  PollyClient: 'polly',
  TranscribeClient: 'transcribe',
  TranslateClient: 'translate',
  BedrockRuntimeClient: 'bedrock',
  SecretsManagerClient: 'secretsmanager',
};

/** IAM service prefixes by SDK package (for the commands a bundle imports). */
export const SERVICE_OF_PACKAGE: Readonly<Record<string, string>> = {
  '@aws-sdk/client-dynamodb': 'dynamodb',
  '@aws-sdk/lib-dynamodb': 'dynamodb',
  '@aws-sdk/client-s3': 's3',
  '@aws-sdk/client-kms': 'kms',
  '@aws-sdk/client-sfn': 'states',
  '@aws-sdk/client-sqs': 'sqs',
  '@aws-sdk/client-eventbridge': 'events',
  '@aws-sdk/client-polly': 'polly',
  '@aws-sdk/client-transcribe': 'transcribe',
  '@aws-sdk/client-translate': 'translate',
  '@aws-sdk/client-bedrock-runtime': 'bedrock',
  '@aws-sdk/client-secrets-manager': 'secretsmanager',
};

/** The document client's commands, by the low-level operation each sends (`PutCommand` → PutItem). */
const DOCUMENT_CLIENT_OPERATIONS: Readonly<Record<string, string>> = {
  Get: 'GetItem',
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  BatchGet: 'BatchGetItem',
  BatchWrite: 'BatchWriteItem',
  TransactGet: 'TransactGetItems',
  TransactWrite: 'TransactWriteItems',
};

/** The operation a command class sends: `GetItemCommand` → GetItem, lib-dynamodb's `PutCommand` → PutItem. */
export function operationOfCommand(packageOrClient: string, commandName: string): string {
  const operation = commandName.replace(/Command$/, '');
  return packageOrClient === '@aws-sdk/lib-dynamodb'
    ? (DOCUMENT_CLIENT_OPERATIONS[operation] ?? operation)
    : operation;
}

const TRANSACTION_PART_ACTIONS = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
} as const;

/**
 * Operations IAM does not authorize as `<service>:<Operation>`: what each needs instead, as a list
 * of requirements that each hold when the role has any one of its actions.
 */
const ACTIONS_BY_OPERATION: Readonly<Record<string, readonly (readonly string[])[]>> = {
  // A transaction is authorized per item, by the action of the item's kind.
  'dynamodb:TransactWriteItems': [Object.values(TRANSACTION_PART_ACTIONS)],
  'dynamodb:TransactGetItems': [['dynamodb:GetItem']],
  's3:HeadObject': [['s3:GetObject']],
  's3:CreateMultipartUpload': [['s3:PutObject']],
  's3:UploadPart': [['s3:PutObject']],
  's3:CompleteMultipartUpload': [['s3:PutObject']],
  's3:CopyObject': [['s3:GetObject'], ['s3:PutObject']],
  's3:DeleteObjects': [['s3:DeleteObject']],
  's3:ListObjects': [['s3:ListBucket']],
  's3:ListObjectsV2': [['s3:ListBucket']],
  's3:HeadBucket': [['s3:ListBucket']],
  's3:ListParts': [['s3:ListMultipartUploadParts']],
  'sqs:SendMessageBatch': [['sqs:SendMessage']],
  'sqs:DeleteMessageBatch': [['sqs:DeleteMessage']],
  'sqs:ChangeMessageVisibilityBatch': [['sqs:ChangeMessageVisibility']],
  // Bedrock authorizes the Converse API and asynchronous invocations as invoking the model.
  'bedrock:Converse': [['bedrock:InvokeModel']],
  'bedrock:ConverseStream': [['bedrock:InvokeModelWithResponseStream']],
  'bedrock:StartAsyncInvoke': [['bedrock:InvokeModel']],
};

/** What a role needs to send an operation: each requirement holds with any one of its actions. */
export function requiredActions(service: string, operation: string): readonly (readonly string[])[] {
  return ACTIONS_BY_OPERATION[`${service}:${operation}`] ?? [[`${service}:${operation}`]];
}

/** The ARNs of the resources calls name, in the deployment the check runs against. */
export interface ResourceNaming {
  /** `s3.<region>.amazonaws.com`, `sqs.…`: the `kms:ViaService` of a key used by that service. */
  viaService(service: 's3' | 'sqs'): string;
  tableArn(tableName: string): string;
  bucketArn(bucketName: string): string;
  queueArn(queueUrl: string): string;
  /** The key encrypting a queue (SSE-KMS), if any. */
  queueKeyArn(queueArn: string): string | undefined;
  /** A key's ARN from its id, ARN, alias name or alias ARN. */
  keyArn(keyId: string): string;
  eventBusArn(nameOrArn: string | undefined): string;
}

type Input = Readonly<Record<string, unknown>>;

const record = (value: unknown): Input =>
  typeof value === 'object' && value !== null ? (value as Input) : {};
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function dynamoRequests(operation: string, input: Input, naming: ResourceNaming): AccessRequest[] {
  const onTable = (action: string, item: Input): AccessRequest => {
    const table = naming.tableArn(text(item.TableName));
    const index = text(item.IndexName);
    return { action, resource: index ? `${table}/index/${index}` : table };
  };
  switch (operation) {
    case 'TransactWriteItems':
      return (
        (input.TransactItems as Input[] | undefined)?.flatMap((item) =>
          Object.entries(TRANSACTION_PART_ACTIONS).flatMap(([part, action]) =>
            item[part] ? [onTable(action, record(item[part]))] : [],
          ),
        ) ?? []
      );
    case 'TransactGetItems':
      return (
        (input.TransactItems as Input[] | undefined)?.map((item) =>
          onTable('dynamodb:GetItem', record(item.Get)),
        ) ?? []
      );
    case 'BatchWriteItem':
    case 'BatchGetItem':
      return Object.keys(record(input.RequestItems)).map((table) =>
        onTable(`dynamodb:${operation}`, { TableName: table }),
      );
    default:
      return [onTable(`dynamodb:${operation}`, input)];
  }
}

/** `CopySource` is `<bucket>/<key>`, URL-encoded, optionally with `?versionId=`. */
function copySourceArn(copySource: string, naming: ResourceNaming): string {
  const [path = ''] = decodeURIComponent(copySource.replace(/^\//, '')).split('?versionId=');
  const slash = path.indexOf('/');
  return `${naming.bucketArn(path.slice(0, slash))}/${path.slice(slash + 1)}`;
}

/** S3 writes an SSE-KMS object with a data key it generates under the key, on the caller's behalf. */
const S3_ENCRYPTING_WRITES = new Set(['PutObject', 'CreateMultipartUpload', 'CopyObject']);

function s3Requests(operation: string, input: Input, naming: ResourceNaming): AccessRequest[] {
  const bucket = naming.bucketArn(text(input.Bucket));
  const [requirement] = requiredActions('s3', operation);
  const action = requirement?.[0] ?? `s3:${operation}`;
  const requests: AccessRequest[] = [];
  if (action === 's3:ListBucket') {
    const prefix = typeof input.Prefix === 'string' ? input.Prefix : undefined;
    requests.push({ action, resource: bucket, context: { 's3:prefix': prefix } });
  } else if (operation === 'CopyObject') {
    requests.push({ action: 's3:GetObject', resource: copySourceArn(text(input.CopySource), naming) });
    requests.push({ action: 's3:PutObject', resource: `${bucket}/${text(input.Key)}` });
  } else if (operation === 'DeleteObjects') {
    for (const object of (record(input.Delete).Objects as Input[] | undefined) ?? [])
      requests.push({ action, resource: `${bucket}/${text(object.Key)}` });
  } else {
    requests.push({ action, resource: input.Key === undefined ? bucket : `${bucket}/${text(input.Key)}` });
  }
  if (S3_ENCRYPTING_WRITES.has(operation) && input.ServerSideEncryption === 'aws:kms' && input.SSEKMSKeyId) {
    requests.push(keyUseThrough('s3', 'kms:GenerateDataKey', text(input.SSEKMSKeyId), naming));
  }
  return requests;
}

/** A key used by S3 or SQS for the caller: authorized as the caller's, with `kms:ViaService`. */
export function keyUseThrough(
  service: 's3' | 'sqs',
  action: string,
  keyId: string,
  naming: ResourceNaming,
): AccessRequest {
  return {
    action,
    resource: naming.keyArn(keyId),
    context: { 'kms:ViaService': naming.viaService(service) },
  };
}

/** The encryption context of a KMS call as condition keys (`kms:EncryptionContext:<key>`). */
function encryptionContextKeys(input: Input): Record<string, string> {
  return Object.fromEntries(
    Object.entries(record(input.EncryptionContext)).map(([key, value]) => [
      `kms:EncryptionContext:${key}`,
      text(value),
    ]),
  );
}

/**
 * The requests IAM evaluates before a call runs. A KMS `Decrypt` without `KeyId` names its key only
 * inside the ciphertext: {@link accessRequestsAfter} checks it once the answer says which key it was.
 */
export function accessRequestsBefore(
  service: string,
  operation: string,
  input: Input,
  naming: ResourceNaming,
): AccessRequest[] {
  switch (service) {
    case 'dynamodb':
      return dynamoRequests(operation, input, naming);
    case 's3':
      return s3Requests(operation, input, naming);
    case 'kms':
      return input.KeyId === undefined && operation === 'Decrypt'
        ? []
        : [
            {
              action: `kms:${operation}`,
              resource: naming.keyArn(text(input.KeyId)),
              context: encryptionContextKeys(input),
            },
          ];
    case 'sqs': {
      // Calls without a queue URL (ListQueues; GetQueueUrl, which the service never makes) name no queue.
      const queue = input.QueueUrl ? naming.queueArn(text(input.QueueUrl)) : '*';
      const requests: AccessRequest[] = requiredActions('sqs', operation).map(([action]) => ({
        action: action as string,
        resource: queue,
      }));
      const key = naming.queueKeyArn(queue);
      // SSE-KMS queues: senders need a data key (and Decrypt, to reuse one); receivers decrypt.
      if (key && (operation === 'SendMessage' || operation === 'SendMessageBatch'))
        requests.push(
          keyUseThrough('sqs', 'kms:GenerateDataKey', key, naming),
          keyUseThrough('sqs', 'kms:Decrypt', key, naming),
        );
      if (key && operation === 'ReceiveMessage')
        requests.push(keyUseThrough('sqs', 'kms:Decrypt', key, naming));
      return requests;
    }
    case 'states': {
      const resource = text(input.stateMachineArn) || text(input.executionArn) || '*';
      return [{ action: `states:${operation}`, resource }];
    }
    case 'events':
      return operation === 'PutEvents'
        ? [
            ...new Set(
              ((input.Entries as Input[] | undefined) ?? []).map((entry) =>
                naming.eventBusArn(typeof entry.EventBusName === 'string' ? entry.EventBusName : undefined),
              ),
            ),
          ].map((resource) => ({ action: 'events:PutEvents', resource }))
        : [
            {
              action: `events:${operation}`,
              resource: naming.eventBusArn(text(input.EventBusName) || undefined),
            },
          ];
    default:
      // Polly and the like: actions without resource-level permissions.
      return [{ action: `${service}:${operation}`, resource: '*' }];
  }
}

/**
 * The requests that only the answer can name: the key of a KMS `Decrypt` that named none, and the
 * key S3 decrypts a read SSE-KMS object with (the caller needs kms:Decrypt through S3; AWS refuses
 * the GetObject otherwise, which the local S3 can only tell once it has answered).
 */
export function accessRequestsAfter(
  service: string,
  operation: string,
  input: Input,
  output: Input,
  naming: ResourceNaming,
): AccessRequest[] {
  if (service === 'kms' && operation === 'Decrypt' && input.KeyId === undefined && output.KeyId)
    return [
      {
        action: 'kms:Decrypt',
        resource: naming.keyArn(text(output.KeyId)),
        context: encryptionContextKeys(input),
      },
    ];
  if (
    service === 's3' &&
    operation === 'GetObject' &&
    output.ServerSideEncryption === 'aws:kms' &&
    output.SSEKMSKeyId
  )
    return [keyUseThrough('s3', 'kms:Decrypt', text(output.SSEKMSKeyId), naming)];
  return [];
}
