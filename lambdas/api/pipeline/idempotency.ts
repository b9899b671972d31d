/**
 * `Idempotency-Key` for creates, on Powertools idempotency. The key is scoped to the workspace (the
 * record's partition), the operation and the path parameters; the body is deliberately not part of
 * it, so a retry whose body differs slightly still replays the original response. Only successful
 * responses are stored: a failed call leaves no record and can be retried with the same key.
 */
import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { Context } from 'aws-lambda';
import { dynamo } from '../../core/aws-clients.js';
import { config } from '../../core/config.js';
import { ConflictError, InvalidParameterError } from '../../core/errors.js';
import { TABLE_SCHEMA } from '../../core/table-schema.js';
import type { ApiRequest, ApiResponse } from './http.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const KEY_PATTERN = /^[A-Za-z0-9_\-:.]{1,255}$/;

/** The header's value, validated; undefined when the request carries none. */
export function idempotencyKeyOf(headers: Record<string, string>): string | undefined {
  const key = headers[IDEMPOTENCY_HEADER.toLowerCase()];
  if (key === undefined) return undefined;
  if (!KEY_PATTERN.test(key)) {
    throw new InvalidParameterError(
      'Idempotency-Key must be 1 to 255 characters: letters, digits, underscore, hyphen, colon or period.',
      IDEMPOTENCY_HEADER,
    );
  }
  return key;
}

interface IdempotencyScope {
  operation: string;
  path: unknown;
  key: string;
}

/**
 * How a route keeps secrets out of its idempotency record: `toRecord` strips what must not be stored
 * (the record is readable by every function that can read the table), `fromRecord` rebuilds the
 * response when the record is replayed.
 */
export interface ReplayCodec {
  toRecord(response: ApiResponse): ApiResponse;
  fromRecord(record: ApiResponse, request: ApiRequest): Promise<ApiResponse>;
}

export async function runIdempotently(
  operationId: string,
  request: ApiRequest,
  context: Context,
  key: string,
  run: () => Promise<ApiResponse>,
  codec?: ReplayCodec,
): Promise<ApiResponse> {
  const persistenceStore = new DynamoDBPersistenceLayer({
    tableName: config().tableName,
    keyAttr: TABLE_SCHEMA.partitionKey,
    sortKeyAttr: TABLE_SCHEMA.sortKey,
    staticPkValue: `WS#${request.principal.workspaceId}#IDEMPOTENCY`,
    expiryAttr: TABLE_SCHEMA.timeToLiveAttribute,
    awsSdkV3Client: dynamo(),
  });
  const idempotencyConfig = new IdempotencyConfig({
    expiresAfterSeconds: config().idempotencyTtlSeconds,
    lambdaContext: context,
    responseHook: (response) => {
      const replayed = response as unknown as ApiResponse;
      return { ...replayed, headers: { ...replayed.headers, 'Idempotent-Replayed': 'true' } } as never;
    },
  });
  // The response of this call when it runs the handler; unset when Powertools replays a record.
  let fresh: ApiResponse | undefined;
  const idempotent = makeIdempotent(
    async (_scope: IdempotencyScope) => {
      fresh = await run();
      return codec ? codec.toRecord(fresh) : fresh;
    },
    { persistenceStore, config: idempotencyConfig, keyPrefix: operationId },
  );
  try {
    const result = await idempotent({ operation: operationId, path: request.path, key });
    if (fresh) return fresh;
    return codec ? await codec.fromRecord(result, request) : result;
  } catch (error) {
    if (error instanceof IdempotencyAlreadyInProgressError) {
      throw new ConflictError(
        'A request with this Idempotency-Key is still in progress. Retry after it completes.',
        'request_in_progress',
        { param: IDEMPOTENCY_HEADER, cause: error },
      );
    }
    throw error;
  }
}
