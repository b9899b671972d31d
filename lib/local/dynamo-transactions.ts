/**
 * `TransactWriteItems` for dynalite, which has no transactions. The service moves credits with
 * transactions (a job's record and its workspace's balance change together), so the local stack must
 * run the same calls.
 *
 * How: writes run one at a time (transactions and single-item writes alike, in arrival order); a
 * transaction reads the current image of every item it names, applies its operations in order as
 * conditional single-item writes, and on the first refusal puts every item it already changed back
 * to its image, answering `TransactionCanceledException` with one cancellation reason per operation
 * (the refused one `ConditionalCheckFailed`, the others `None`; DynamoDB would evaluate them all).
 * Guarantees: all-or-nothing and isolated from every other write. Not emulated: `ClientRequestToken`
 * idempotency, the limits (100 items, one operation per item), and atomicity across a crash of the
 * process in the middle of a transaction.
 */
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { TABLE_SCHEMA } from '../../lambdas/core/table-schema.js';

type AttributeMap = Record<string, unknown>;

interface Operation {
  Put?: { TableName: string; Item: AttributeMap } & ConditionFields;
  Update?: { TableName: string; Key: AttributeMap; UpdateExpression: string } & ConditionFields;
  Delete?: { TableName: string; Key: AttributeMap } & ConditionFields;
  ConditionCheck?: { TableName: string; Key: AttributeMap } & ConditionFields;
}

interface ConditionFields {
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: AttributeMap;
}

interface DynamoAnswer {
  status: number;
  body: Record<string, unknown>;
}

const TRANSACT_WRITE_TARGET = 'DynamoDB_20120810.TransactWriteItems';
const INSIDE_TRANSACTION_HEADER = 'x-local-transaction';
/** Single-item writes wait for a running transaction (and it for them), so a rollback never undoes one. */
const WRITE_TARGETS = new Set(
  ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'].map(
    (operation) => `DynamoDB_20120810.${operation}`,
  ),
);
/** dynalite checks that a request is signed, not the signature. */
const PLACEHOLDER_AUTHORIZATION =
  'AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0';

function keyOf(item: AttributeMap): AttributeMap {
  return {
    [TABLE_SCHEMA.partitionKey]: item[TABLE_SCHEMA.partitionKey],
    [TABLE_SCHEMA.sortKey]: item[TABLE_SCHEMA.sortKey],
  };
}

function conditionOf(fields: ConditionFields): ConditionFields {
  return {
    ...(fields.ConditionExpression ? { ConditionExpression: fields.ConditionExpression } : {}),
    ...(fields.ExpressionAttributeNames ? { ExpressionAttributeNames: fields.ExpressionAttributeNames } : {}),
    ...(fields.ExpressionAttributeValues
      ? { ExpressionAttributeValues: fields.ExpressionAttributeValues }
      : {}),
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** Serves `TransactWriteItems` on dynalite's own server; every other request goes to dynalite. */
export function addTransactWriteItems(server: Server, endpoint: () => string): void {
  const dynalite = server.listeners('request')[0] as RequestListener;
  server.removeAllListeners('request');

  async function call(operation: string, body: Record<string, unknown>): Promise<DynamoAnswer> {
    const response = await fetch(endpoint(), {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-amz-json-1.0',
        'X-Amz-Target': `DynamoDB_20120810.${operation}`,
        Authorization: PLACEHOLDER_AUTHORIZATION,
        'X-Amz-Date': new Date().toISOString().replace(/[-:]|\.\d{3}/g, ''),
        // The transaction's own writes: they run inside its turn, not after it.
        [INSIDE_TRANSACTION_HEADER]: '1',
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  const refused = (answer: DynamoAnswer) =>
    String(answer.body.__type ?? '').endsWith('#ConditionalCheckFailedException');

  async function restore(
    tableName: string,
    key: AttributeMap,
    image: AttributeMap | undefined,
  ): Promise<void> {
    await (image
      ? call('PutItem', { TableName: tableName, Item: image })
      : call('DeleteItem', { TableName: tableName, Key: key }));
  }

  async function transact(input: { TransactItems?: Operation[] }): Promise<DynamoAnswer> {
    const operations = input.TransactItems ?? [];
    const targets = operations.map((operation) => {
      if (operation.Put) return { table: operation.Put.TableName, key: keyOf(operation.Put.Item) };
      const single = operation.Update ?? operation.Delete ?? operation.ConditionCheck;
      if (!single) throw new Error('A transaction item must be one of Put, Update, Delete, ConditionCheck');
      return { table: single.TableName, key: single.Key };
    });
    const images: (AttributeMap | undefined)[] = [];
    for (const target of targets) {
      const current = await call('GetItem', {
        TableName: target.table,
        Key: target.key,
        ConsistentRead: true,
      });
      if (current.status !== 200) return current;
      images.push(current.body.Item as AttributeMap | undefined);
    }
    for (const [index, operation] of operations.entries()) {
      const target = targets[index] as { table: string; key: AttributeMap };
      let answer: DynamoAnswer;
      if (operation.Put) {
        answer = await call('PutItem', {
          TableName: target.table,
          Item: operation.Put.Item,
          ...conditionOf(operation.Put),
        });
      } else if (operation.Update) {
        answer = await call('UpdateItem', {
          TableName: target.table,
          Key: target.key,
          UpdateExpression: operation.Update.UpdateExpression,
          ...conditionOf(operation.Update),
        });
      } else if (operation.Delete) {
        answer = await call('DeleteItem', {
          TableName: target.table,
          Key: target.key,
          ...conditionOf(operation.Delete),
        });
      } else {
        // A check is a write that changes nothing, so dynalite evaluates the condition.
        const check = operation.ConditionCheck as NonNullable<Operation['ConditionCheck']>;
        answer = await call('UpdateItem', {
          TableName: target.table,
          Key: target.key,
          UpdateExpression: 'REMOVE #transactionCheck',
          ...conditionOf(check),
          ExpressionAttributeNames: {
            ...check.ExpressionAttributeNames,
            '#transactionCheck': '__transaction_check',
          },
        });
        // Updating a missing item creates it: put the absence back.
        if (answer.status === 200 && !images[index]) await restore(target.table, target.key, undefined);
      }
      if (answer.status !== 200) {
        for (let done = index - 1; done >= 0; done--) {
          const undo = targets[done] as { table: string; key: AttributeMap };
          await restore(undo.table, undo.key, images[done]);
        }
        if (!refused(answer)) return answer;
        const reasons = operations.map((_, position) =>
          position === index
            ? { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' }
            : { Code: 'None' },
        );
        return {
          status: 400,
          body: {
            __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
            message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((reason) => reason.Code).join(', ')}]`,
            CancellationReasons: reasons,
          },
        };
      }
    }
    return { status: 200, body: {} };
  }

  // One write at a time.
  let queue: Promise<unknown> = Promise.resolve();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const target = String(request.headers['x-amz-target'] ?? '');
    if (WRITE_TARGETS.has(target) && !request.headers[INSIDE_TRANSACTION_HEADER]) {
      const write = () =>
        new Promise<void>((resolve) => {
          response.on('close', resolve);
          dynalite.call(server, request, response);
        });
      queue = queue.then(write, write);
      return;
    }
    if (target !== TRANSACT_WRITE_TARGET) {
      dynalite.call(server, request, response);
      return;
    }
    const run = async () => {
      let answer: DynamoAnswer;
      try {
        answer = await transact(JSON.parse(await readBody(request)) as { TransactItems?: Operation[] });
      } catch (error) {
        answer = {
          status: 400,
          body: {
            __type: 'com.amazon.coral.validate#ValidationException',
            message: (error as Error).message,
          },
        };
      }
      response.writeHead(answer.status, { 'Content-Type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify(answer.body));
    };
    queue = queue.then(run, run);
  });
}
