/**
 * Local SQS: standard queues over the AWS JSON 1.0 protocol that current SDK v3 SQS clients speak
 * (`X-Amz-Target: AmazonSQS.<Operation>`, awsQuery-compatible errors).
 *
 * Why not the `local-aws-sqs` package (it does speak JSON 1.0): measured against SDK v3, its long
 * poll returns only when `MaxNumberOfMessages` are collected or `WaitTimeSeconds` has passed (one
 * waiting message took the full 3 s of a 3 s poll; SQS answers at once), and `PurgeQueue` deletes
 * nothing for 60 s. Both stall the consumers of the local stack, and neither can be shortened for
 * tests. This emulator answers a long poll as soon as a message is visible, purges at once, and
 * scales every duration it measures by `timeScale`.
 *
 * Semantics kept from SQS: visibility timeout and redelivery, receive counts, redrive to a
 * dead-letter queue when a message is received more than `maxReceiveCount` times, the most recent
 * receipt handle is the one that deletes, message retention, MD5 digests of body and attributes.
 */
import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  AwsServiceError,
  type ListenOptions,
  operation,
  type RequestContext,
  sleep,
  startAwsJsonServer,
} from './aws-json-protocol.js';
import { JsonFileStore } from './json-file-store.js';

export interface SqsQueueDefinition {
  name: string;
  /** CreateQueue attributes, e.g. `{ VisibilityTimeout: '30', RedrivePolicy: '{"deadLetterTargetArn":...}' }`. */
  attributes?: Record<string, string>;
}

export interface SqsEmulatorOptions extends ListenOptions {
  /**
   * Multiplies every duration the queues measure (visibility timeouts, delays, long-poll waits,
   * retention): `0.01` makes a 30 s visibility timeout last 300 ms.
   * @default 1
   */
  timeScale?: number;
  /**
   * JSON file that keeps queues and messages across restarts; in memory only when absent.
   * Messages in flight at a restart become visible again when their visibility timeout ends.
   * @default undefined
   */
  dataFile?: string;
  /**
   * Queues to create at start, in order (dead-letter queues first); existing ones are kept.
   * @default []
   */
  queues?: SqsQueueDefinition[];
  /**
   * @default 'us-east-1'
   */
  region?: string;
  /**
   * @default '000000000000'
   */
  accountId?: string;
}

export interface SqsEmulator {
  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_SQS` or a client's `endpoint`. */
  endpoint: string;
  /** Creates a queue (or returns the existing one with the same attributes); returns its URL. */
  createQueue(queue: SqsQueueDefinition): Promise<string>;
  queueUrl(name: string): string;
  queueArn(name: string): string;
  /** Ends pending long polls, writes the data file, stops the server. */
  stop(): Promise<void>;
}

const ATTRIBUTE_LIMITS = {
  DelaySeconds: { min: 0, max: 900, default: 0 },
  MaximumMessageSize: { min: 1024, max: 1_048_576, default: 262_144 },
  MessageRetentionPeriod: { min: 60, max: 1_209_600, default: 345_600 },
  ReceiveMessageWaitTimeSeconds: { min: 0, max: 20, default: 0 },
  VisibilityTimeout: { min: 0, max: 43_200, default: 30 },
} as const;
type NumericAttribute = keyof typeof ATTRIBUTE_LIMITS;
const STORED_TEXT_ATTRIBUTES = [
  'Policy',
  'RedriveAllowPolicy',
  'KmsMasterKeyId',
  'KmsDataKeyReusePeriodSeconds',
  'SqsManagedSseEnabled',
] as const;

const messageAttributeSchema = z.object({
  DataType: z.string().regex(/^(String|Number|Binary)(\..+)?$/, 'DataType must be String, Number or Binary'),
  StringValue: z.string().optional(),
  BinaryValue: z.string().optional(),
  StringListValues: z.array(z.string()).optional(),
  BinaryListValues: z.array(z.string()).optional(),
});
type MessageAttribute = z.infer<typeof messageAttributeSchema>;
const messageAttributesSchema = z.record(z.string(), messageAttributeSchema).optional();

const redrivePolicySchema = z.object({
  deadLetterTargetArn: z.string(),
  maxReceiveCount: z.coerce.number().int().min(1).max(1000),
});
type RedrivePolicy = z.infer<typeof redrivePolicySchema>;

const messageRecordSchema = z.object({
  messageId: z.string(),
  body: z.string(),
  md5OfBody: z.string(),
  messageAttributes: z.record(z.string(), messageAttributeSchema).optional(),
  md5OfMessageAttributes: z.string().optional(),
  awsTraceHeader: z.string().optional(),
  sentTimestamp: z.number(),
  availableAt: z.number(),
  receiveCount: z.number(),
  firstReceiveTimestamp: z.number().optional(),
  receiptHandle: z.string().optional(),
  deadLetterQueueSourceArn: z.string().optional(),
});
type MessageRecord = z.infer<typeof messageRecordSchema>;

const queueRecordSchema = z.object({
  name: z.string(),
  createdTimestamp: z.number(),
  lastModifiedTimestamp: z.number(),
  numbers: z.record(z.string(), z.number()),
  texts: z.record(z.string(), z.string()),
  redrivePolicy: redrivePolicySchema.optional(),
  tags: z.record(z.string(), z.string()),
  messages: z.array(messageRecordSchema),
});
type QueueRecord = z.infer<typeof queueRecordSchema> & { numbers: Record<NumericAttribute, number> };

const sqsFileSchema = z.object({ format: z.literal('local-sqs/1'), queues: z.array(queueRecordSchema) });
type SqsFile = z.infer<typeof sqsFileSchema>;

/** SQS error codes: the JSON `__type`, the legacy code the SDK reads from `x-amzn-query-error`, the status. */
const SQS_ERRORS = {
  QueueDoesNotExist: ['AWS.SimpleQueueService.NonExistentQueue', 400],
  QueueNameExists: ['QueueAlreadyExists', 400],
  InvalidAttributeName: ['InvalidAttributeName', 400],
  InvalidAttributeValue: ['InvalidAttributeValue', 400],
  InvalidParameterValue: ['InvalidParameterValue', 400],
  InvalidMessageContents: ['InvalidMessageContents', 400],
  ReceiptHandleIsInvalid: ['ReceiptHandleIsInvalid', 404],
  MessageNotInflight: ['AWS.SimpleQueueService.MessageNotInflight', 400],
  EmptyBatchRequest: ['AWS.SimpleQueueService.EmptyBatchRequest', 400],
  TooManyEntriesInBatchRequest: ['AWS.SimpleQueueService.TooManyEntriesInBatchRequest', 400],
  BatchEntryIdsNotDistinct: ['AWS.SimpleQueueService.BatchEntryIdsNotDistinct', 400],
  InvalidBatchEntryId: ['AWS.SimpleQueueService.InvalidBatchEntryId', 400],
  UnsupportedOperation: ['AWS.SimpleQueueService.UnsupportedOperation', 400],
} as const satisfies Record<string, readonly [string, number]>;
type SqsErrorCode = keyof typeof SQS_ERRORS;

function sqsError(code: SqsErrorCode, message: string): AwsServiceError {
  const [queryErrorCode, statusCode] = SQS_ERRORS[code];
  return new AwsServiceError(code, message, { queryErrorCode, statusCode });
}

const MAX_BATCH_ENTRIES = 10;
const QUEUE_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,80}$/;
const BATCH_ID_PATTERN = /^[a-zA-Z0-9_-]{1,80}$/;
// Characters SQS accepts in a message: #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF.
const INVALID_BODY_CHARACTER = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** Starts the SQS emulator. */
export async function startSqsEmulator(options: SqsEmulatorOptions = {}): Promise<SqsEmulator> {
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '000000000000';
  const timeScale = options.timeScale ?? 1;
  if (!(timeScale >= 0)) throw new RangeError('timeScale must be a number >= 0');
  const store = options.dataFile ? new JsonFileStore(options.dataFile, sqsFileSchema, 0o644) : undefined;
  const queues = new Map<string, QueueRecord>();
  const wakers = new Map<string, Set<() => void>>();
  let endpoint = '';

  for (const queue of (await store?.load())?.queues ?? []) queues.set(queue.name, withDefaults(queue));

  const queueArn = (name: string) => `arn:aws:sqs:${region}:${accountId}:${name}`;
  const queueUrl = (name: string) => `${endpoint}/${accountId}/${name}`;
  /** Real seconds of a queue duration. */
  const scaled = (seconds: number) => seconds * 1000 * timeScale;

  function snapshot(): SqsFile {
    return { format: 'local-sqs/1', queues: [...queues.values()] };
  }
  async function persist(): Promise<void> {
    await store?.save(snapshot);
  }

  function wake(queue: QueueRecord): void {
    for (const waker of wakers.get(queue.name) ?? []) waker();
  }

  function findQueue(url: string): QueueRecord {
    let path: string;
    try {
      path = new URL(url).pathname;
    } catch {
      throw sqsError('QueueDoesNotExist', 'The specified queue does not exist.');
    }
    const [, account, name] = path.split('/');
    const queue = account === accountId && name ? queues.get(name) : undefined;
    if (!queue) throw sqsError('QueueDoesNotExist', 'The specified queue does not exist.');
    return queue;
  }

  function queueByArn(arn: string): QueueRecord | undefined {
    const prefix = `arn:aws:sqs:${region}:${accountId}:`;
    return arn.startsWith(prefix) ? queues.get(arn.slice(prefix.length)) : undefined;
  }

  /** Applies CreateQueue / SetQueueAttributes attributes to `queue`, validating each. */
  function applyAttributes(queue: QueueRecord, attributes: Record<string, string>): void {
    for (const [name, value] of Object.entries(attributes)) {
      if (name in ATTRIBUTE_LIMITS) {
        const limits = ATTRIBUTE_LIMITS[name as NumericAttribute];
        const number = Number(value);
        if (!/^\d+$/.test(value) || number < limits.min || number > limits.max) {
          throw sqsError(
            'InvalidAttributeValue',
            `Invalid value for the parameter ${name}. Reason: must be an integer between ${limits.min} and ${limits.max}.`,
          );
        }
        queue.numbers[name as NumericAttribute] = number;
      } else if (name === 'RedrivePolicy') {
        if (value === '') {
          queue.redrivePolicy = undefined;
          continue;
        }
        queue.redrivePolicy = parseRedrivePolicy(value);
      } else if ((STORED_TEXT_ATTRIBUTES as readonly string[]).includes(name)) {
        queue.texts[name] = value;
      } else if (name === 'FifoQueue' || name === 'ContentBasedDeduplication') {
        throw sqsError('UnsupportedOperation', 'FIFO queues are not supported by the local SQS emulator.');
      } else {
        throw sqsError('InvalidAttributeName', `Unknown Attribute ${name}.`);
      }
    }
    queue.lastModifiedTimestamp = Date.now();
  }

  function parseRedrivePolicy(value: string): RedrivePolicy {
    let parsed: RedrivePolicy;
    try {
      parsed = redrivePolicySchema.parse(JSON.parse(value));
    } catch {
      throw sqsError(
        'InvalidAttributeValue',
        'Value for parameter RedrivePolicy is invalid. Reason: expected {"deadLetterTargetArn", "maxReceiveCount" 1-1000}.',
      );
    }
    if (!queueByArn(parsed.deadLetterTargetArn)) {
      throw sqsError(
        'InvalidParameterValue',
        `Value ${value} for parameter RedrivePolicy is invalid. Reason: Dead letter target does not exist.`,
      );
    }
    return parsed;
  }

  async function createQueue(
    definition: SqsQueueDefinition,
    tags: Record<string, string> = {},
  ): Promise<string> {
    if (definition.name.endsWith('.fifo')) {
      throw sqsError('UnsupportedOperation', 'FIFO queues are not supported by the local SQS emulator.');
    }
    if (!QUEUE_NAME_PATTERN.test(definition.name)) {
      throw sqsError(
        'InvalidParameterValue',
        `Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length`,
      );
    }
    const candidate = withDefaults({
      name: definition.name,
      createdTimestamp: Date.now(),
      lastModifiedTimestamp: Date.now(),
      numbers: {},
      texts: {},
      tags,
      messages: [],
    });
    applyAttributes(candidate, definition.attributes ?? {});
    const existing = queues.get(definition.name);
    if (existing) {
      // CreateQueue is idempotent only when the attributes it names match.
      if (!sameConfiguration(existing, candidate, definition.attributes ?? {})) {
        throw sqsError(
          'QueueNameExists',
          `A queue already exists with the same name and a different value for attributes`,
        );
      }
      return queueUrl(existing.name);
    }
    queues.set(candidate.name, candidate);
    await persist();
    return queueUrl(candidate.name);
  }

  /** Drops messages older than the retention period (counted from their first enqueue, as SQS does). */
  function expireMessages(queue: QueueRecord, now: number): void {
    const oldest = now - scaled(queue.numbers.MessageRetentionPeriod);
    queue.messages = queue.messages.filter((message) => message.sentTimestamp >= oldest);
  }

  /** Takes up to `limit` visible messages, moving over-received ones to the dead-letter queue. */
  function receiveVisible(queue: QueueRecord, limit: number, visibilityTimeout: number): MessageRecord[] {
    const now = Date.now();
    expireMessages(queue, now);
    const received: MessageRecord[] = [];
    for (const message of [...queue.messages]) {
      if (received.length >= limit) break;
      if (message.availableAt > now) continue;
      const deadLetterQueue = queue.redrivePolicy
        ? queueByArn(queue.redrivePolicy.deadLetterTargetArn)
        : undefined;
      if (
        queue.redrivePolicy &&
        deadLetterQueue &&
        message.receiveCount >= queue.redrivePolicy.maxReceiveCount
      ) {
        moveToDeadLetterQueue(queue, deadLetterQueue, message, now);
        continue;
      }
      message.receiveCount += 1;
      message.firstReceiveTimestamp ??= now;
      message.receiptHandle = Buffer.from(`${queue.name}\n${message.messageId}\n${randomUUID()}`).toString(
        'base64url',
      );
      message.availableAt = now + scaled(visibilityTimeout);
      received.push(message);
    }
    return received;
  }

  function moveToDeadLetterQueue(
    source: QueueRecord,
    target: QueueRecord,
    message: MessageRecord,
    now: number,
  ) {
    source.messages = source.messages.filter((candidate) => candidate !== message);
    target.messages.push({
      ...message,
      receiveCount: 0,
      firstReceiveTimestamp: undefined,
      receiptHandle: undefined,
      availableAt: now,
      deadLetterQueueSourceArn: queueArn(source.name),
    });
    wake(target);
  }

  /** Resolves when the queue changes or `milliseconds` pass. */
  function waitForChange(queue: QueueRecord, milliseconds: number, signal: AbortSignal): Promise<void> {
    const controller = new AbortController();
    const combined = AbortSignal.any([controller.signal, signal]);
    const set = wakers.get(queue.name) ?? new Set();
    wakers.set(queue.name, set);
    const waker = () => controller.abort();
    set.add(waker);
    return sleep(milliseconds, combined).finally(() => set.delete(waker));
  }

  async function receive(
    queue: QueueRecord,
    input: { limit: number; waitSeconds: number; visibilityTimeout: number },
    context: RequestContext,
  ): Promise<MessageRecord[]> {
    const deadline = Date.now() + scaled(input.waitSeconds);
    for (;;) {
      const received = receiveVisible(queue, input.limit, input.visibilityTimeout);
      if (received.length > 0) {
        await persist();
        return received;
      }
      const now = Date.now();
      if (now >= deadline || context.signal.aborted || queues.get(queue.name) !== queue) return [];
      // Sleep until the deadline, a send, or the moment a delayed / in-flight message turns visible.
      const nextVisible = Math.min(...queue.messages.map((message) => message.availableAt));
      await waitForChange(queue, Math.min(deadline, Math.max(nextVisible, now + 1)) - now, context.signal);
    }
  }

  function sendOne(
    queue: QueueRecord,
    input: {
      MessageBody: string;
      DelaySeconds?: number;
      MessageAttributes?: Record<string, MessageAttribute>;
      MessageSystemAttributes?: Record<string, MessageAttribute>;
    },
  ) {
    if (input.MessageBody.length === 0) {
      throw sqsError('InvalidParameterValue', 'The request must contain the parameter MessageBody.');
    }
    if (INVALID_BODY_CHARACTER.test(input.MessageBody)) {
      throw sqsError('InvalidMessageContents', 'Invalid characters found in the message body.');
    }
    checkAttributes(input.MessageAttributes);
    const systemAttributes = input.MessageSystemAttributes ?? {};
    for (const name of Object.keys(systemAttributes)) {
      if (name !== 'AWSTraceHeader')
        throw sqsError('InvalidParameterValue', `Message system attribute ${name} is not supported.`);
    }
    checkAttributes(systemAttributes);
    const size = Buffer.byteLength(input.MessageBody) + attributesSize(input.MessageAttributes);
    if (size > queue.numbers.MaximumMessageSize) {
      throw sqsError(
        'InvalidParameterValue',
        `One or more parameters are invalid. Reason: Message must be shorter than ${queue.numbers.MaximumMessageSize} bytes.`,
      );
    }
    const delaySeconds = input.DelaySeconds ?? queue.numbers.DelaySeconds;
    if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > 900) {
      throw sqsError('InvalidParameterValue', 'DelaySeconds must be >= 0 and <= 900.');
    }
    const hasAttributes = input.MessageAttributes && Object.keys(input.MessageAttributes).length > 0;
    const now = Date.now();
    const message: MessageRecord = {
      messageId: randomUUID(),
      body: input.MessageBody,
      md5OfBody: md5(Buffer.from(input.MessageBody, 'utf8')),
      messageAttributes: hasAttributes ? input.MessageAttributes : undefined,
      md5OfMessageAttributes: hasAttributes
        ? md5OfMessageAttributes(input.MessageAttributes ?? {})
        : undefined,
      awsTraceHeader: systemAttributes.AWSTraceHeader?.StringValue,
      sentTimestamp: now,
      availableAt: now + scaled(delaySeconds),
      receiveCount: 0,
    };
    queue.messages.push(message);
    wake(queue);
    return {
      MessageId: message.messageId,
      MD5OfMessageBody: message.md5OfBody,
      MD5OfMessageAttributes: message.md5OfMessageAttributes,
      MD5OfMessageSystemAttributes:
        Object.keys(systemAttributes).length > 0 ? md5OfMessageAttributes(systemAttributes) : undefined,
    };
  }

  /** The message a receipt handle names, and whether the handle is the latest one. */
  function byReceiptHandle(queue: QueueRecord, receiptHandle: string) {
    const [queueName, messageId, nonce] = Buffer.from(receiptHandle, 'base64url')
      .toString('utf8')
      .split('\n');
    if (!queueName || !messageId || !nonce || queueName !== queue.name) {
      throw sqsError(
        'ReceiptHandleIsInvalid',
        `The input receipt handle "${receiptHandle}" is not a valid receipt handle.`,
      );
    }
    const message = queue.messages.find((candidate) => candidate.messageId === messageId);
    return { message, current: message?.receiptHandle === receiptHandle };
  }

  function deleteOne(queue: QueueRecord, receiptHandle: string): void {
    const { message, current } = byReceiptHandle(queue, receiptHandle);
    // SQS: an outdated receipt handle succeeds without deleting a message that was received again.
    if (message && current) queue.messages = queue.messages.filter((candidate) => candidate !== message);
  }

  function changeVisibilityOne(queue: QueueRecord, receiptHandle: string, visibilityTimeout: number): void {
    if (!Number.isInteger(visibilityTimeout) || visibilityTimeout < 0 || visibilityTimeout > 43_200) {
      throw sqsError('InvalidParameterValue', 'VisibilityTimeout must be between 0 and 43200.');
    }
    const { message, current } = byReceiptHandle(queue, receiptHandle);
    if (!message || !current || message.availableAt <= Date.now()) {
      throw sqsError(
        'MessageNotInflight',
        'Message does not exist or is not available for visibility timeout change.',
      );
    }
    message.availableAt = Date.now() + scaled(visibilityTimeout);
    if (visibilityTimeout === 0) wake(queue);
  }

  /** Runs `action` per entry and reports the SQS batch result shape. */
  function batch<Entry extends { Id: string }, Result extends object>(
    entries: Entry[],
    action: (entry: Entry) => Result,
  ): {
    Successful: ({ Id: string } & Result)[];
    Failed: { Id: string; SenderFault: boolean; Code: string; Message: string }[];
  } {
    if (entries.length === 0)
      throw sqsError('EmptyBatchRequest', 'There should be at least one entry in the request.');
    if (entries.length > MAX_BATCH_ENTRIES) {
      throw sqsError(
        'TooManyEntriesInBatchRequest',
        `Maximum number of entries per request are ${MAX_BATCH_ENTRIES}.`,
      );
    }
    const ids = new Set<string>();
    for (const entry of entries) {
      if (!BATCH_ID_PATTERN.test(entry.Id))
        throw sqsError(
          'InvalidBatchEntryId',
          `A batch entry id can only contain alphanumeric characters, hyphens and underscores.`,
        );
      if (ids.has(entry.Id)) throw sqsError('BatchEntryIdsNotDistinct', `Id ${entry.Id} repeated.`);
      ids.add(entry.Id);
    }
    const Successful: ({ Id: string } & Result)[] = [];
    const Failed: { Id: string; SenderFault: boolean; Code: string; Message: string }[] = [];
    for (const entry of entries) {
      try {
        Successful.push({ Id: entry.Id, ...action(entry) });
      } catch (error) {
        if (!(error instanceof AwsServiceError)) throw error;
        Failed.push({
          Id: entry.Id,
          SenderFault: error.statusCode < 500,
          Code: error.code,
          Message: error.message,
        });
      }
    }
    return { Successful, Failed };
  }

  function queueAttributes(queue: QueueRecord): Record<string, string> {
    const now = Date.now();
    expireMessages(queue, now);
    const visible = queue.messages.filter((message) => message.availableAt <= now).length;
    const delayed = queue.messages.filter(
      (message) => message.availableAt > now && message.receiveCount === 0,
    ).length;
    const inFlight = queue.messages.length - visible - delayed;
    const attributes: Record<string, string> = {
      QueueArn: queueArn(queue.name),
      ApproximateNumberOfMessages: String(visible),
      ApproximateNumberOfMessagesNotVisible: String(inFlight),
      ApproximateNumberOfMessagesDelayed: String(delayed),
      CreatedTimestamp: String(Math.floor(queue.createdTimestamp / 1000)),
      LastModifiedTimestamp: String(Math.floor(queue.lastModifiedTimestamp / 1000)),
      SqsManagedSseEnabled: 'false',
      ...Object.fromEntries(Object.entries(queue.numbers).map(([name, value]) => [name, String(value)])),
      ...queue.texts,
    };
    if (queue.redrivePolicy) attributes.RedrivePolicy = JSON.stringify(queue.redrivePolicy);
    return attributes;
  }

  function messageView(message: MessageRecord, systemNames: string[], attributeNames: string[]) {
    const system: Record<string, string | undefined> = {
      SenderId: accountId,
      SentTimestamp: String(message.sentTimestamp),
      ApproximateReceiveCount: String(message.receiveCount),
      ApproximateFirstReceiveTimestamp: String(message.firstReceiveTimestamp ?? message.sentTimestamp),
      AWSTraceHeader: message.awsTraceHeader,
      DeadLetterQueueSourceArn: message.deadLetterQueueSourceArn,
    };
    const wantAll = systemNames.includes('All');
    const attributes = Object.fromEntries(
      Object.entries(system).filter(
        ([name, value]) => value !== undefined && (wantAll || systemNames.includes(name)),
      ),
    );
    const messageAttributes = Object.fromEntries(
      Object.entries(message.messageAttributes ?? {}).filter(([name]) =>
        wantsAttribute(attributeNames, name),
      ),
    );
    return {
      MessageId: message.messageId,
      ReceiptHandle: message.receiptHandle,
      MD5OfBody: message.md5OfBody,
      Body: message.body,
      Attributes: Object.keys(attributes).length > 0 ? attributes : undefined,
      MD5OfMessageAttributes:
        Object.keys(messageAttributes).length > 0 ? message.md5OfMessageAttributes : undefined,
      MessageAttributes: Object.keys(messageAttributes).length > 0 ? messageAttributes : undefined,
    };
  }

  const queueUrlInput = { QueueUrl: z.string() };
  const sendInput = {
    MessageBody: z.string(),
    DelaySeconds: z.number().int().optional(),
    MessageAttributes: messageAttributesSchema,
    MessageSystemAttributes: messageAttributesSchema,
  };

  const operations = {
    CreateQueue: operation(
      z.object({
        QueueName: z.string(),
        Attributes: z.record(z.string(), z.string()).optional(),
        tags: z.record(z.string(), z.string()).optional(),
      }),
      async (input) => ({
        QueueUrl: await createQueue({ name: input.QueueName, attributes: input.Attributes }, input.tags),
      }),
    ),

    GetQueueUrl: operation(
      z.object({ QueueName: z.string(), QueueOwnerAWSAccountId: z.string().optional() }),
      (input) => {
        if (!queues.has(input.QueueName) || (input.QueueOwnerAWSAccountId ?? accountId) !== accountId) {
          throw sqsError('QueueDoesNotExist', 'The specified queue does not exist.');
        }
        return { QueueUrl: queueUrl(input.QueueName) };
      },
    ),

    ListQueues: operation(
      z.object({
        QueueNamePrefix: z.string().optional(),
        MaxResults: z.number().int().min(1).max(1000).optional(),
        NextToken: z.string().optional(),
      }),
      (input) => {
        const names = [...queues.keys()]
          .filter((name) => name.startsWith(input.QueueNamePrefix ?? ''))
          .sort();
        const start = input.NextToken ? Number.parseInt(input.NextToken, 10) : 0;
        const end = input.MaxResults ? start + input.MaxResults : names.length;
        return {
          QueueUrls: names.slice(start, end).map(queueUrl),
          NextToken: input.MaxResults && end < names.length ? String(end) : undefined,
        };
      },
    ),

    DeleteQueue: operation(z.object(queueUrlInput), async (input) => {
      const queue = findQueue(input.QueueUrl);
      queues.delete(queue.name);
      wake(queue);
      await persist();
      return {};
    }),

    GetQueueAttributes: operation(
      z.object({ ...queueUrlInput, AttributeNames: z.array(z.string()).optional() }),
      (input) => {
        const all = queueAttributes(findQueue(input.QueueUrl));
        const names = input.AttributeNames ?? [];
        if (names.includes('All')) return { Attributes: all };
        const known = new Set([...Object.keys(all), 'RedrivePolicy', ...STORED_TEXT_ATTRIBUTES]);
        for (const name of names)
          if (!known.has(name)) throw sqsError('InvalidAttributeName', `Unknown Attribute ${name}.`);
        const selected = Object.fromEntries(Object.entries(all).filter(([name]) => names.includes(name)));
        return { Attributes: Object.keys(selected).length > 0 ? selected : undefined };
      },
    ),

    SetQueueAttributes: operation(
      z.object({ ...queueUrlInput, Attributes: z.record(z.string(), z.string()) }),
      async (input) => {
        applyAttributes(findQueue(input.QueueUrl), input.Attributes);
        await persist();
        return {};
      },
    ),

    SendMessage: operation(z.object({ ...queueUrlInput, ...sendInput }), async (input) => {
      const result = sendOne(findQueue(input.QueueUrl), input);
      await persist();
      return result;
    }),

    SendMessageBatch: operation(
      z.object({ ...queueUrlInput, Entries: z.array(z.object({ Id: z.string(), ...sendInput })) }),
      async (input) => {
        const queue = findQueue(input.QueueUrl);
        const result = batch(input.Entries, (entry) => sendOne(queue, entry));
        await persist();
        return result;
      },
    ),

    ReceiveMessage: operation(
      z.object({
        ...queueUrlInput,
        MaxNumberOfMessages: z.number().int().optional(),
        WaitTimeSeconds: z.number().int().optional(),
        VisibilityTimeout: z.number().int().optional(),
        AttributeNames: z.array(z.string()).optional(),
        MessageSystemAttributeNames: z.array(z.string()).optional(),
        MessageAttributeNames: z.array(z.string()).optional(),
        ReceiveRequestAttemptId: z.string().optional(),
      }),
      async (input, context) => {
        const queue = findQueue(input.QueueUrl);
        const limit = input.MaxNumberOfMessages ?? 1;
        if (limit < 1 || limit > 10) {
          throw sqsError(
            'InvalidParameterValue',
            `Value ${limit} for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10.`,
          );
        }
        const waitSeconds = input.WaitTimeSeconds ?? queue.numbers.ReceiveMessageWaitTimeSeconds;
        if (waitSeconds < 0 || waitSeconds > 20) {
          throw sqsError(
            'InvalidParameterValue',
            `Value ${waitSeconds} for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20.`,
          );
        }
        const visibilityTimeout = input.VisibilityTimeout ?? queue.numbers.VisibilityTimeout;
        if (visibilityTimeout < 0 || visibilityTimeout > 43_200) {
          throw sqsError('InvalidParameterValue', 'VisibilityTimeout must be between 0 and 43200.');
        }
        const received = await receive(queue, { limit, waitSeconds, visibilityTimeout }, context);
        if (received.length === 0) return {};
        const systemNames = [...(input.AttributeNames ?? []), ...(input.MessageSystemAttributeNames ?? [])];
        return {
          Messages: received.map((message) =>
            messageView(message, systemNames, input.MessageAttributeNames ?? []),
          ),
        };
      },
    ),

    DeleteMessage: operation(z.object({ ...queueUrlInput, ReceiptHandle: z.string() }), async (input) => {
      deleteOne(findQueue(input.QueueUrl), input.ReceiptHandle);
      await persist();
      return {};
    }),

    DeleteMessageBatch: operation(
      z.object({
        ...queueUrlInput,
        Entries: z.array(z.object({ Id: z.string(), ReceiptHandle: z.string() })),
      }),
      async (input) => {
        const queue = findQueue(input.QueueUrl);
        const result = batch(input.Entries, (entry) => {
          deleteOne(queue, entry.ReceiptHandle);
          return {};
        });
        await persist();
        return result;
      },
    ),

    ChangeMessageVisibility: operation(
      z.object({ ...queueUrlInput, ReceiptHandle: z.string(), VisibilityTimeout: z.number().int() }),
      async (input) => {
        changeVisibilityOne(findQueue(input.QueueUrl), input.ReceiptHandle, input.VisibilityTimeout);
        await persist();
        return {};
      },
    ),

    ChangeMessageVisibilityBatch: operation(
      z.object({
        ...queueUrlInput,
        Entries: z.array(
          z.object({ Id: z.string(), ReceiptHandle: z.string(), VisibilityTimeout: z.number().int() }),
        ),
      }),
      async (input) => {
        const queue = findQueue(input.QueueUrl);
        const result = batch(input.Entries, (entry) => {
          changeVisibilityOne(queue, entry.ReceiptHandle, entry.VisibilityTimeout);
          return {};
        });
        await persist();
        return result;
      },
    ),

    PurgeQueue: operation(z.object(queueUrlInput), async (input) => {
      findQueue(input.QueueUrl).messages = [];
      await persist();
      return {};
    }),

    TagQueue: operation(
      z.object({ ...queueUrlInput, Tags: z.record(z.string(), z.string()) }),
      async (input) => {
        Object.assign(findQueue(input.QueueUrl).tags, input.Tags);
        await persist();
        return {};
      },
    ),

    UntagQueue: operation(z.object({ ...queueUrlInput, TagKeys: z.array(z.string()) }), async (input) => {
      const queue = findQueue(input.QueueUrl);
      for (const key of input.TagKeys) delete queue.tags[key];
      await persist();
      return {};
    }),

    ListQueueTags: operation(z.object(queueUrlInput), (input) => ({ Tags: findQueue(input.QueueUrl).tags })),
  };

  const server = await startAwsJsonServer(
    {
      serviceTarget: 'AmazonSQS',
      jsonVersion: '1.0',
      operations,
      validationErrorCode: 'InvalidParameterValue',
      validationQueryErrorCode: 'InvalidParameterValue',
      errorNamespace: 'com.amazonaws.sqs',
    },
    options,
  );
  endpoint = server.endpoint;

  for (const queue of options.queues ?? []) await createQueue(queue);

  return {
    endpoint,
    createQueue: (queue) => createQueue(queue),
    queueUrl,
    queueArn,
    async stop() {
      await server.stop();
      await store?.flush();
    },
  };
}

function withDefaults(queue: z.infer<typeof queueRecordSchema>): QueueRecord {
  const numbers = { ...queue.numbers } as Record<NumericAttribute, number>;
  for (const [name, limits] of Object.entries(ATTRIBUTE_LIMITS)) {
    numbers[name as NumericAttribute] ??= limits.default;
  }
  return { ...queue, numbers };
}

function sameConfiguration(
  existing: QueueRecord,
  candidate: QueueRecord,
  named: Record<string, string>,
): boolean {
  return Object.keys(named).every((name) => {
    if (name === 'RedrivePolicy')
      return JSON.stringify(existing.redrivePolicy) === JSON.stringify(candidate.redrivePolicy);
    if (name in ATTRIBUTE_LIMITS)
      return existing.numbers[name as NumericAttribute] === candidate.numbers[name as NumericAttribute];
    return existing.texts[name] === candidate.texts[name];
  });
}

function wantsAttribute(requested: string[], name: string): boolean {
  return requested.some(
    (pattern) =>
      pattern === 'All' ||
      pattern === '.*' ||
      pattern === name ||
      (pattern.endsWith('.*') && name.startsWith(pattern.slice(0, -1))),
  );
}

function checkAttributes(attributes: Record<string, MessageAttribute> | undefined): void {
  for (const [name, attribute] of Object.entries(attributes ?? {})) {
    if (attribute.StringListValues || attribute.BinaryListValues) {
      throw sqsError(
        'InvalidParameterValue',
        `Message attribute ${name}: list values are not supported by SQS.`,
      );
    }
    const binary = attribute.DataType.startsWith('Binary');
    if (binary ? attribute.BinaryValue === undefined : attribute.StringValue === undefined) {
      throw sqsError(
        'InvalidParameterValue',
        `Message attribute ${name} must contain a non-empty value of type ${attribute.DataType}.`,
      );
    }
    if (attribute.DataType.startsWith('Number') && !Number.isFinite(Number(attribute.StringValue))) {
      throw sqsError(
        'InvalidParameterValue',
        `Message attribute ${name}: ${attribute.StringValue} is not a valid number.`,
      );
    }
  }
}

function attributesSize(attributes: Record<string, MessageAttribute> | undefined): number {
  let size = 0;
  for (const [name, attribute] of Object.entries(attributes ?? {})) {
    size += Buffer.byteLength(name) + Buffer.byteLength(attribute.DataType);
    size += attribute.BinaryValue
      ? Buffer.from(attribute.BinaryValue, 'base64').length
      : Buffer.byteLength(attribute.StringValue ?? '');
  }
  return size;
}

function md5(bytes: Buffer): string {
  return createHash('md5').update(bytes).digest('hex');
}

/**
 * SQS's digest of message attributes: for each attribute in name order, the length-prefixed
 * (4-byte big-endian) name and data type, a transport byte (1 string/number, 2 binary), and the
 * length-prefixed value.
 */
export function md5OfMessageAttributes(attributes: Record<string, MessageAttribute>): string {
  const parts: Buffer[] = [];
  const lengthPrefixed = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    parts.push(length, bytes);
  };
  for (const name of Object.keys(attributes).sort()) {
    const attribute = attributes[name];
    if (!attribute) continue;
    lengthPrefixed(Buffer.from(name, 'utf8'));
    lengthPrefixed(Buffer.from(attribute.DataType, 'utf8'));
    if (attribute.DataType.startsWith('Binary')) {
      parts.push(Buffer.from([2]));
      lengthPrefixed(Buffer.from(attribute.BinaryValue ?? '', 'base64'));
    } else {
      parts.push(Buffer.from([1]));
      lengthPrefixed(Buffer.from(attribute.StringValue ?? '', 'utf8'));
    }
  }
  return md5(Buffer.concat(parts));
}
