const it = async (_n: string, f: () => Promise<void>) => {
  await f();
  console.log('ok');
};
const expect = (p: Promise<unknown>) => ({
  rejects: {
    toThrow: async () => {
      try {
        await p;
        throw new Error('no throw');
      } catch (e) {
        if ((e as Error).message === 'no throw') throw e;
      }
    },
  },
});

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable, LOCAL_CREDENTIALS, LOCAL_REGION, startDynamo } from '../lib/local/storage-emulators.js';

it('map eq', async () => {
  const d = await startDynamo(undefined);
  await ensureTable(d.endpoint, 'ttt');
  const c = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: d.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  const enc = { state: 'pending', key_arn: 'x', report: [{ code: 'a', message: 'b', path: 'c' }], n: 1.5 };
  await c.send(new PutCommand({ TableName: 'ttt', Item: { pk: 'a', sk: 'b', encryption: enc } }));
  const got = (await c.send(new GetCommand({ TableName: 'ttt', Key: { pk: 'a', sk: 'b' } }))).Item!;
  // nested path condition
  await c.send(
    new UpdateCommand({
      TableName: 'ttt',
      Key: { pk: 'a', sk: 'b' },
      UpdateExpression: 'SET #e = :n',
      ConditionExpression: '#e.#s = :o',
      ExpressionAttributeNames: { '#e': 'encryption', '#s': 'state' },
      ExpressionAttributeValues: { ':n': { state: 'y' }, ':o': 'pending' },
    }),
  );
  await d.stop();
});
