/**
 * Small typed functions over the single table. Handlers and domain modules use these, never the
 * raw SDK, so conditions (tenant partition, existence) are written once.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  type PutCommandInput,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { documents } from './aws-clients.js';
import { config } from './config.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { keys, type ResourceType, TABLE_SCHEMA } from './table-schema.js';

export interface ItemKey {
  pk: string;
  sk: string;
}

export type StoredItem = ItemKey & Record<string, unknown>;

export async function getItem<T extends ItemKey>(key: ItemKey, consistent = false): Promise<T | undefined> {
  const result = await documents().send(
    new GetCommand({ TableName: config().tableName, Key: key, ConsistentRead: consistent }),
  );
  return result.Item as T | undefined;
}

/** Writes a new item; returns false (and writes nothing) when an item with that key exists. */
export async function putNewItem(item: StoredItem): Promise<boolean> {
  try {
    await documents().send(
      new PutCommand({
        TableName: config().tableName,
        Item: item,
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Replaces an item unconditionally (administrative writes). */
export async function putItem(item: StoredItem, extra: Partial<PutCommandInput> = {}): Promise<void> {
  await documents().send(new PutCommand({ TableName: config().tableName, Item: item, ...extra }));
}

/**
 * Sets attributes of an existing item and returns the item after the update, or undefined when the
 * item does not exist or an `ifEquals` attribute has another value. `remove` lists attributes to delete.
 */
export async function updateExistingItem<T extends ItemKey>(
  key: ItemKey,
  set: Record<string, unknown>,
  remove: readonly string[] = [],
  ifEquals: Record<string, unknown> = {},
): Promise<T | undefined> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const assignments = Object.entries(set).map(([attribute, value], index) => {
    names[`#s${index}`] = attribute;
    values[`:s${index}`] = value;
    return `#s${index} = :s${index}`;
  });
  const removals = remove.map((attribute, index) => {
    names[`#r${index}`] = attribute;
    return `#r${index}`;
  });
  const conditions = ['attribute_exists(pk)'];
  Object.entries(ifEquals).forEach(([attribute, value], index) => {
    names[`#c${index}`] = attribute;
    values[`:c${index}`] = value;
    conditions.push(`#c${index} = :c${index}`);
  });
  const expression = [
    assignments.length > 0 ? `SET ${assignments.join(', ')}` : '',
    removals.length > 0 ? `REMOVE ${removals.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  try {
    const result = await documents().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: key,
        UpdateExpression: expression,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return result.Attributes as T | undefined;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/** DynamoDB's largest BatchWriteItem. */
const BATCH_WRITE_LIMIT = 25;

/**
 * Writes items unconditionally, 25 per BatchWriteItem call, retrying what DynamoDB leaves
 * unprocessed (throttling) with a short backoff. For items the caller owns (no condition needed).
 */
export async function putItems(items: readonly ItemKey[]): Promise<void> {
  for (let start = 0; start < items.length; start += BATCH_WRITE_LIMIT) {
    let requests = items
      .slice(start, start + BATCH_WRITE_LIMIT)
      .map((item) => ({ PutRequest: { Item: item } }));
    for (let round = 0; requests.length > 0; round++) {
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** round)));
      if (round === 8) throw new Error(`DynamoDB left ${requests.length} batch writes unprocessed`);
      const result = await documents().send(
        new BatchWriteCommand({ RequestItems: { [config().tableName]: requests } }),
      );
      requests = (result.UnprocessedItems?.[config().tableName] ?? []) as typeof requests;
    }
  }
}

/**
 * Deletes an item; false when it does not exist, or when an `unlessEquals` attribute has that value
 * (the item is then left as it is).
 */
export async function deleteExistingItem(
  key: ItemKey,
  unlessEquals: Record<string, unknown> = {},
): Promise<boolean> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const conditions = ['attribute_exists(pk)'];
  Object.entries(unlessEquals).forEach(([attribute, value], index) => {
    names[`#u${index}`] = attribute;
    values[`:u${index}`] = value;
    conditions.push(`(attribute_not_exists(#u${index}) OR #u${index} <> :u${index})`);
  });
  try {
    await documents().send(
      new DeleteCommand({
        TableName: config().tableName,
        Key: key,
        ConditionExpression: conditions.join(' AND '),
        ...(Object.keys(names).length > 0
          ? { ExpressionAttributeNames: names, ExpressionAttributeValues: values }
          : {}),
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * Every item of a partition whose sort key starts with `sortKeyPrefix`, in key order, following
 * DynamoDB's pages. For small, bounded sets read whole (a workspace's webhook endpoints, an event's
 * deliveries); lists shown to clients page with `queryPage`.
 */
export function queryAll<T extends ItemKey>(
  partition: string,
  sortKeyPrefix: string,
  consistent = false,
): Promise<T[]> {
  return queryItems<T>({ partition, sortKey: { prefix: sortKeyPrefix }, consistent });
}

/** Which items of a partition `queryItems` reads, and what of them it keeps. */
export interface ItemsQuery {
  partition: string;
  /** Sort keys starting with `prefix`, or from `from` to `to` (both included). */
  sortKey: { prefix: string } | { from: string; to: string };
  /** Items kept (DynamoDB still reads, and bills, every item in the key range). */
  filter?: { expression: string; names?: Record<string, string>; values: Record<string, unknown> };
  /** Only these attributes are returned (a smaller answer than whole items). */
  attributes?: readonly string[];
  /** @default false */
  consistent?: boolean;
}

/**
 * Every item of a key range, in key order, following DynamoDB's pages: for bounded reads whose items
 * are aggregated (daily usage counters, the running jobs of a type), optionally filtered and projected.
 */
export async function queryItems<T>(query: ItemsQuery): Promise<T[]> {
  const byPrefix = 'prefix' in query.sortKey;
  const names: Record<string, string> = {
    '#pk': TABLE_SCHEMA.partitionKey,
    '#sk': TABLE_SCHEMA.sortKey,
    ...query.filter?.names,
  };
  const projection = query.attributes?.map((attribute, index) => {
    names[`#a${index}`] = attribute;
    return `#a${index}`;
  });
  const items: T[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await documents().send(
      new QueryCommand({
        TableName: config().tableName,
        KeyConditionExpression: byPrefix
          ? '#pk = :pk AND begins_with(#sk, :prefix)'
          : '#pk = :pk AND #sk BETWEEN :from AND :to',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: {
          ':pk': query.partition,
          ...('prefix' in query.sortKey
            ? { ':prefix': query.sortKey.prefix }
            : { ':from': query.sortKey.from, ':to': query.sortKey.to }),
          ...query.filter?.values,
        },
        ...(query.filter ? { FilterExpression: query.filter.expression } : {}),
        ConsistentRead: query.consistent ?? false,
        ...(projection ? { ProjectionExpression: projection.join(', ') } : {}),
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    items.push(...((result.Items ?? []) as T[]));
    startKey = result.LastEvaluatedKey;
  } while (startKey);
  return items;
}

export interface PageRequest {
  /** Partition to read. */
  partition: string;
  /** Only sort keys with this prefix. @default undefined (the whole partition) */
  sortKeyPrefix?: string;
  /** Query the GSI instead of the table. @default undefined (the table) */
  index?: 'gsi1';
  limit: number;
  token?: string | undefined;
  /** What the cursor is valid for: workspace, operation and filters. */
  binding: string;
  /** Newest first (reverse key order). @default true */
  newestFirst?: boolean;
  /**
   * Keep only items that pass. Pages are refilled up to a read cap; a page may hold fewer than
   * `limit` items and still have a `next_token`. @default undefined (keep all)
   */
  keep?: (item: StoredItem) => boolean;
}

export interface Page<T> {
  items: T[];
  nextToken: string | null;
}

/** Reads one page may take when `keep` discards items, and how many items each such read asks for. */
const MAX_READS_PER_PAGE = 10;
const FILTERED_READ_SIZE = 100;

export async function queryPage<T extends ItemKey>(request: PageRequest): Promise<Page<T>> {
  const onIndex = request.index !== undefined;
  const partitionAttribute = onIndex ? TABLE_SCHEMA.gsi1.partitionKey : TABLE_SCHEMA.partitionKey;
  const sortAttribute = onIndex ? TABLE_SCHEMA.gsi1.sortKey : TABLE_SCHEMA.sortKey;
  let lastEvaluated = request.token ? await decodeCursor(request.binding, request.token) : undefined;
  const items: StoredItem[] = [];
  for (let reads = 0; reads < MAX_READS_PER_PAGE; reads++) {
    const input: QueryCommandInput = {
      TableName: config().tableName,
      KeyConditionExpression: request.sortKeyPrefix ? '#pk = :pk AND begins_with(#sk, :prefix)' : '#pk = :pk',
      ExpressionAttributeNames: {
        '#pk': partitionAttribute,
        ...(request.sortKeyPrefix ? { '#sk': sortAttribute } : {}),
      },
      ExpressionAttributeValues: {
        ':pk': request.partition,
        ...(request.sortKeyPrefix ? { ':prefix': request.sortKeyPrefix } : {}),
      },
      ScanIndexForward: !(request.newestFirst ?? true),
      // One more than asked tells whether another page exists without an empty last page; filtered
      // reads take larger bites, since most of what they read may be discarded.
      Limit: request.keep ? FILTERED_READ_SIZE : request.limit + 1 - items.length,
      ...(request.index ? { IndexName: request.index } : {}),
      ...(lastEvaluated ? { ExclusiveStartKey: lastEvaluated } : {}),
    };
    const result = await documents().send(new QueryCommand(input));
    for (const item of (result.Items ?? []) as StoredItem[]) {
      if (!request.keep || request.keep(item)) items.push(item);
    }
    lastEvaluated = result.LastEvaluatedKey;
    if (items.length > request.limit || !lastEvaluated) break;
  }
  if (items.length > request.limit) {
    // More items than fit: the next page starts after the last one shown.
    const pageItems = items.slice(0, request.limit);
    const last = pageItems.at(-1) as StoredItem;
    return {
      items: pageItems as unknown as T[],
      nextToken: await encodeCursor(request.binding, positionOf(last, onIndex)),
    };
  }
  // Everything read fits; if the reads stopped before the end (the read cap, or DynamoDB's 1 MB page),
  // the next page resumes where they stopped, so nothing is ever skipped.
  return {
    items: items as unknown as T[],
    nextToken: lastEvaluated ? await encodeCursor(request.binding, lastEvaluated) : null,
  };
}

/** A page of one type of a workspace's resources, newest first; the cursor is bound to the list. */
export function queryWorkspaceResources<T extends ItemKey>(
  workspaceId: string,
  type: ResourceType,
  listName: string,
  limit: number,
  token?: string,
): Promise<Page<T>> {
  return queryPage<T>({
    partition: keys.workspacePartition(workspaceId),
    sortKeyPrefix: `${type}#`,
    limit,
    token,
    binding: `${workspaceId}:${listName}`,
  });
}

function positionOf(item: StoredItem, onIndex: boolean): Record<string, unknown> {
  const position: Record<string, unknown> = { pk: item.pk, sk: item.sk };
  if (onIndex) {
    position[TABLE_SCHEMA.gsi1.partitionKey] = item[TABLE_SCHEMA.gsi1.partitionKey];
    position[TABLE_SCHEMA.gsi1.sortKey] = item[TABLE_SCHEMA.gsi1.sortKey];
  }
  return position;
}

/** Attempts of a transaction that meets other transactions on the same items (`TransactionConflict`). */
const TRANSACTION_ATTEMPTS = 5;

export type TransactionItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * Writes all `items` or none. Conflicts with concurrent transactions are retried (jittered); a
 * refused condition is not an error: the answer is the index of the first refused item, or
 * undefined when everything was written. Anything else throws.
 */
export async function transactWrite(items: TransactionItem[]): Promise<number | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      await documents().send(new TransactWriteCommand({ TransactItems: items }));
      return undefined;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = (error.CancellationReasons ?? []).map((reason) => reason.Code);
      const refused = reasons.indexOf('ConditionalCheckFailed');
      if (refused >= 0) return refused;
      if (!reasons.includes('TransactionConflict') || attempt >= TRANSACTION_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 50 * attempt));
    }
  }
}
