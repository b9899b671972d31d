/**
 * Local EventBridge: event buses, rules with event patterns, and targets, over the AWS JSON 1.1
 * protocol (`X-Amz-Target: AWSEvents.<Operation>`).
 *
 * Targets run in process: `resolveTarget(targetArn)` gives the function that receives the event
 * (the local stack maps the ARN of a queue or a Lambda function to one). Delivery is asynchronous,
 * after PutEvents answers, as on AWS. A failed delivery is retried with exponential backoff
 * (`retry`, or the target's `RetryPolicy.MaximumRetryAttempts`); when retries run out the event goes
 * to the target's dead-letter queue ARN (also through `resolveTarget`) if it has one, and the
 * failure is recorded (`deliveryFailures()`, `onDeliveryFailure`).
 *
 * Rules, targets and buses live in memory: the local stack declares them at every start.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  AwsServiceError,
  type JsonObject,
  type JsonValue,
  type ListenOptions,
  operation,
  startAwsJsonServer,
} from './aws-json-protocol.js';
import {
  type CompiledEventPattern,
  compileEventPattern,
  InvalidEventPatternError,
  matchesEventPattern,
} from './event-pattern.js';
import { InvalidReferencePathError, parseReferencePath, readPath } from './json-reference-path.js';

/** The envelope EventBridge delivers to targets. */
export interface EventBusEvent {
  version: '0';
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: JsonObject;
}

/** What a target receives: the event, or what the target's `Input` / `InputPath` made of it. */
export type TargetPayload = EventBusEvent | JsonValue;

/** The in-process function behind a target ARN. Reject to fail the delivery (it is retried). */
export type TargetFunction = (payload: TargetPayload) => Promise<void>;

/** Maps a target (or dead-letter queue) ARN to its function. Throwing fails the delivery. */
export type TargetResolver = (targetArn: string) => TargetFunction | Promise<TargetFunction>;

export interface EventDeliveryRetryOptions {
  /**
   * Retries after the first failed attempt (a target's `RetryPolicy.MaximumRetryAttempts` wins).
   * @default 3
   */
  retryAttempts?: number;
  /**
   * Delay before the first retry.
   * @default 100
   */
  initialDelayMs?: number;
  /**
   * Multiplier of the delay for each further retry.
   * @default 2
   */
  backoffRate?: number;
  /**
   * Upper bound of one delay.
   * @default 5000
   */
  maxDelayMs?: number;
}

/** A delivery that failed after all its attempts. */
export interface EventDeliveryFailure {
  eventId: string;
  ruleArn: string;
  targetId: string;
  targetArn: string;
  attempts: number;
  /** Message of the last error. */
  error: string;
  /** Whether the event was handed to the target's dead-letter queue. */
  sentToDeadLetterQueue: boolean;
  failedAt: number;
}

export interface EventBridgeEmulatorOptions extends ListenOptions {
  /** Supplies the function behind each target ARN. */
  resolveTarget: TargetResolver;
  /**
   * Retry schedule of failed deliveries.
   * @default { retryAttempts: 3, initialDelayMs: 100, backoffRate: 2, maxDelayMs: 5000 }
   */
  retry?: EventDeliveryRetryOptions;
  /**
   * Told about every delivery that failed for good.
   * @default logs to console.error
   */
  onDeliveryFailure?: (failure: EventDeliveryFailure) => void;
  /**
   * @default 'us-east-1'
   */
  region?: string;
  /**
   * @default '000000000000'
   */
  accountId?: string;
}

export interface EventBridgeEmulator {
  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_EVENTBRIDGE` or a client's `endpoint`. */
  endpoint: string;
  /** Deliveries that failed for good, oldest first. */
  deliveryFailures(): EventDeliveryFailure[];
  /** Resolves when no delivery is in progress or waiting for a retry. */
  whenIdle(): Promise<void>;
  /** Cancels pending retries and stops the server. */
  stop(): Promise<void>;
}

interface TargetRecord {
  Id: string;
  Arn: string;
  Input?: string;
  InputPath?: string;
  RetryPolicy?: { MaximumRetryAttempts?: number; MaximumEventAgeInSeconds?: number };
  DeadLetterConfig?: { Arn?: string };
}

interface RuleRecord {
  name: string;
  arn: string;
  eventBusName: string;
  eventPattern: string;
  compiledPattern: CompiledEventPattern;
  state: 'ENABLED' | 'DISABLED';
  description?: string;
  targets: Map<string, TargetRecord>;
}

interface BusRecord {
  name: string;
  arn: string;
  rules: Map<string, RuleRecord>;
}

const MAX_TARGETS_PER_RULE = 5;
const MAX_PUT_EVENTS_ENTRIES = 10;
const MAX_ENTRY_BYTES = 256 * 1024;
const NAME_PATTERN = /^[.\-_A-Za-z0-9]{1,64}$/;
const BUS_NAME_PATTERN = /^[/.\-_A-Za-z0-9]{1,256}$/;

const targetSchema = z.object({
  Id: z.string().min(1).max(64),
  Arn: z.string().min(1),
  Input: z.string().optional(),
  InputPath: z.string().optional(),
  InputTransformer: z.unknown().optional(),
  RetryPolicy: z
    .object({
      MaximumRetryAttempts: z.number().int().min(0).max(185).optional(),
      MaximumEventAgeInSeconds: z.number().int().optional(),
    })
    .optional(),
  DeadLetterConfig: z.object({ Arn: z.string().optional() }).optional(),
});

/** Starts the EventBridge emulator. */
export async function startEventBridgeEmulator(
  options: EventBridgeEmulatorOptions,
): Promise<EventBridgeEmulator> {
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '000000000000';
  const retryAttempts = options.retry?.retryAttempts ?? 3;
  const initialDelayMs = options.retry?.initialDelayMs ?? 100;
  const backoffRate = options.retry?.backoffRate ?? 2;
  const maxDelayMs = options.retry?.maxDelayMs ?? 5000;
  const onDeliveryFailure =
    options.onDeliveryFailure ??
    ((failure: EventDeliveryFailure) =>
      console.error(
        `[local-eventbridge] delivery of ${failure.eventId} to ${failure.targetArn} failed: ${failure.error}`,
      ));

  const busArn = (name: string) => `arn:aws:events:${region}:${accountId}:event-bus/${name}`;
  const ruleArn = (bus: string, name: string) =>
    `arn:aws:events:${region}:${accountId}:rule/${bus === 'default' ? '' : `${bus}/`}${name}`;
  const buses = new Map<string, BusRecord>([
    ['default', { name: 'default', arn: busArn('default'), rules: new Map() }],
  ]);
  const failures: EventDeliveryFailure[] = [];
  const retryTimers = new Set<NodeJS.Timeout>();
  let pendingDeliveries = 0;
  let idleListeners: (() => void)[] = [];
  let stopped = false;

  function findBus(nameOrArn: string | undefined): BusRecord {
    const name = busNameOf(nameOrArn);
    const bus = buses.get(name);
    if (!bus) throw new AwsServiceError('ResourceNotFoundException', `Event bus ${name} does not exist.`);
    return bus;
  }

  function busNameOf(nameOrArn: string | undefined): string {
    if (!nameOrArn) return 'default';
    const marker = ':event-bus/';
    return nameOrArn.startsWith('arn:') && nameOrArn.includes(marker)
      ? nameOrArn.slice(nameOrArn.indexOf(marker) + marker.length)
      : nameOrArn;
  }

  function findRule(busName: string | undefined, name: string): RuleRecord {
    const bus = findBus(busName);
    const rule = bus.rules.get(name);
    if (!rule)
      throw new AwsServiceError(
        'ResourceNotFoundException',
        `Rule ${name} does not exist on EventBus ${bus.name}.`,
      );
    return rule;
  }

  function compile(pattern: string): CompiledEventPattern {
    try {
      return compileEventPattern(pattern);
    } catch (error) {
      if (error instanceof InvalidEventPatternError)
        throw new AwsServiceError('InvalidEventPatternException', error.message);
      throw error;
    }
  }

  function ruleView(rule: RuleRecord) {
    return {
      Name: rule.name,
      Arn: rule.arn,
      EventPattern: rule.eventPattern,
      State: rule.state,
      Description: rule.description,
      EventBusName: rule.eventBusName,
    };
  }

  function settleDelivery(): void {
    pendingDeliveries -= 1;
    if (pendingDeliveries > 0) return;
    const listeners = idleListeners;
    idleListeners = [];
    for (const listener of listeners) listener();
  }

  function payloadFor(target: TargetRecord, event: EventBusEvent): TargetPayload {
    if (target.Input !== undefined) return JSON.parse(target.Input) as JsonValue;
    if (target.InputPath !== undefined) {
      return (readPath(event, parseReferencePath(target.InputPath)) ?? null) as TargetPayload;
    }
    return event;
  }

  function deliver(rule: RuleRecord, target: TargetRecord, event: EventBusEvent): void {
    pendingDeliveries += 1;
    const allowedRetries = target.RetryPolicy?.MaximumRetryAttempts ?? retryAttempts;
    const attempt = async (attemptNumber: number): Promise<void> => {
      if (stopped) return;
      try {
        const targetFunction = await options.resolveTarget(target.Arn);
        await targetFunction(structuredClone(payloadFor(target, event)));
        settleDelivery();
      } catch (error) {
        if (!stopped && attemptNumber <= allowedRetries) {
          const delay = Math.min(maxDelayMs, initialDelayMs * backoffRate ** (attemptNumber - 1));
          const timer = setTimeout(() => {
            retryTimers.delete(timer);
            void attempt(attemptNumber + 1);
          }, delay);
          retryTimers.add(timer);
          return;
        }
        await recordFailure(rule, target, event, attemptNumber, error);
        settleDelivery();
      }
    };
    setImmediate(() => void attempt(1));
  }

  async function recordFailure(
    rule: RuleRecord,
    target: TargetRecord,
    event: EventBusEvent,
    attempts: number,
    error: unknown,
  ) {
    let sentToDeadLetterQueue = false;
    const deadLetterArn = target.DeadLetterConfig?.Arn;
    if (deadLetterArn && !stopped) {
      try {
        await (await options.resolveTarget(deadLetterArn))(structuredClone(event));
        sentToDeadLetterQueue = true;
      } catch {
        // The failure record below says the event did not reach the dead-letter queue.
      }
    }
    const failure: EventDeliveryFailure = {
      eventId: event.id,
      ruleArn: rule.arn,
      targetId: target.Id,
      targetArn: target.Arn,
      attempts,
      error: error instanceof Error ? error.message : String(error),
      sentToDeadLetterQueue,
      failedAt: Date.now(),
    };
    failures.push(failure);
    onDeliveryFailure(failure);
  }

  function putEvent(
    entry: PutEventsEntry,
  ): { EventId: string } | { ErrorCode: string; ErrorMessage: string } {
    const missing = (['Source', 'DetailType', 'Detail'] as const).find((field) => !entry[field]);
    if (missing) {
      return {
        ErrorCode: 'InvalidArgument',
        ErrorMessage: `Parameter ${missing} is not valid. Reason: ${missing} is a required argument.`,
      };
    }
    if (entry.Source?.startsWith('aws.')) {
      return { ErrorCode: 'NotAuthorizedForSourceException', ErrorMessage: 'Not authorized for the source.' };
    }
    let detail: JsonValue;
    try {
      detail = JSON.parse(entry.Detail ?? '') as JsonValue;
    } catch {
      return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
    }
    if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) {
      return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
    }
    if (Buffer.byteLength(JSON.stringify(entry)) > MAX_ENTRY_BYTES) {
      return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Total size of the entry exceeds 256 KB.' };
    }
    const bus = buses.get(busNameOf(entry.EventBusName));
    if (!bus)
      return {
        ErrorCode: 'ResourceNotFoundException',
        ErrorMessage: `Event bus ${entry.EventBusName} does not exist.`,
      };
    const event: EventBusEvent = {
      version: '0',
      id: randomUUID(),
      'detail-type': entry.DetailType ?? '',
      source: entry.Source ?? '',
      account: accountId,
      time: eventTime(entry.Time),
      region,
      resources: entry.Resources ?? [],
      detail,
    };
    for (const rule of bus.rules.values()) {
      if (rule.state !== 'ENABLED' || !matchesEventPattern(rule.compiledPattern, event)) continue;
      for (const target of rule.targets.values()) deliver(rule, target, event);
    }
    return { EventId: event.id };
  }

  const ruleInput = { Name: z.string(), EventBusName: z.string().optional() };
  const targetsInput = { Rule: z.string(), EventBusName: z.string().optional() };
  const pageInput = { Limit: z.number().int().min(1).max(100).optional(), NextToken: z.string().optional() };

  function page<T>(items: T[], limit: number | undefined, nextToken: string | undefined) {
    const start = nextToken ? Number.parseInt(nextToken, 10) : 0;
    if (!Number.isInteger(start) || start < 0)
      throw new AwsServiceError('ValidationException', 'Invalid NextToken.');
    const end = start + (limit ?? 100);
    return { items: items.slice(start, end), NextToken: end < items.length ? String(end) : undefined };
  }

  const operations = {
    CreateEventBus: operation(
      z.object({ Name: z.string(), EventSourceName: z.string().optional() }),
      (input) => {
        if (input.EventSourceName) {
          throw new AwsServiceError(
            'ValidationException',
            'Partner event buses are not supported by the local emulator.',
          );
        }
        if (!BUS_NAME_PATTERN.test(input.Name) || input.Name === 'default') {
          throw new AwsServiceError('ValidationException', `Event bus name ${input.Name} is not valid.`);
        }
        if (buses.has(input.Name)) {
          throw new AwsServiceError(
            'ResourceAlreadyExistsException',
            `Event bus ${input.Name} already exists.`,
          );
        }
        buses.set(input.Name, { name: input.Name, arn: busArn(input.Name), rules: new Map() });
        return { EventBusArn: busArn(input.Name) };
      },
    ),

    DeleteEventBus: operation(z.object({ Name: z.string() }), (input) => {
      if (input.Name === 'default')
        throw new AwsServiceError('ValidationException', 'Cannot delete event bus default.');
      buses.delete(input.Name);
      return {};
    }),

    DescribeEventBus: operation(z.object({ Name: z.string().optional() }), (input) => {
      const bus = findBus(input.Name);
      return { Name: bus.name, Arn: bus.arn };
    }),

    ListEventBuses: operation(z.object({ NamePrefix: z.string().optional(), ...pageInput }), (input) => {
      const matching = [...buses.values()].filter((bus) => bus.name.startsWith(input.NamePrefix ?? ''));
      const { items, NextToken } = page(matching, input.Limit, input.NextToken);
      return { EventBuses: items.map((bus) => ({ Name: bus.name, Arn: bus.arn })), NextToken };
    }),

    PutRule: operation(
      z.object({
        ...ruleInput,
        EventPattern: z.string().optional(),
        ScheduleExpression: z.string().optional(),
        State: z.enum(['ENABLED', 'DISABLED', 'ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS']).optional(),
        Description: z.string().max(512).optional(),
      }),
      (input) => {
        if (input.ScheduleExpression) {
          throw new AwsServiceError(
            'ValidationException',
            'Scheduled rules are not supported by the local emulator.',
          );
        }
        if (!input.EventPattern)
          throw new AwsServiceError('ValidationException', 'EventPattern is required.');
        if (!NAME_PATTERN.test(input.Name))
          throw new AwsServiceError('ValidationException', `Rule name ${input.Name} is not valid.`);
        const bus = findBus(input.EventBusName);
        const existing = bus.rules.get(input.Name);
        // PutRule creates or replaces a rule; its targets stay.
        const rule: RuleRecord = {
          name: input.Name,
          arn: ruleArn(bus.name, input.Name),
          eventBusName: bus.name,
          eventPattern: input.EventPattern,
          compiledPattern: compile(input.EventPattern),
          state: input.State === 'DISABLED' ? 'DISABLED' : 'ENABLED',
          description: input.Description,
          targets: existing?.targets ?? new Map(),
        };
        bus.rules.set(rule.name, rule);
        return { RuleArn: rule.arn };
      },
    ),

    DescribeRule: operation(z.object(ruleInput), (input) => {
      const rule = findRule(input.EventBusName, input.Name);
      return { ...ruleView(rule), CreatedBy: accountId };
    }),

    EnableRule: operation(z.object(ruleInput), (input) => {
      findRule(input.EventBusName, input.Name).state = 'ENABLED';
      return {};
    }),

    DisableRule: operation(z.object(ruleInput), (input) => {
      findRule(input.EventBusName, input.Name).state = 'DISABLED';
      return {};
    }),

    DeleteRule: operation(z.object({ ...ruleInput, Force: z.boolean().optional() }), (input) => {
      const bus = findBus(input.EventBusName);
      const rule = bus.rules.get(input.Name);
      if (!rule) return {};
      if (rule.targets.size > 0 && !input.Force) {
        throw new AwsServiceError('ValidationException', "Rule can't be deleted since it has targets.");
      }
      bus.rules.delete(input.Name);
      return {};
    }),

    ListRules: operation(
      z.object({ NamePrefix: z.string().optional(), EventBusName: z.string().optional(), ...pageInput }),
      (input) => {
        const rules = [...findBus(input.EventBusName).rules.values()]
          .filter((rule) => rule.name.startsWith(input.NamePrefix ?? ''))
          .sort((a, b) => a.name.localeCompare(b.name));
        const { items, NextToken } = page(rules, input.Limit, input.NextToken);
        return { Rules: items.map(ruleView), NextToken };
      },
    ),

    PutTargets: operation(
      z.object({ ...targetsInput, Targets: z.array(targetSchema).min(1).max(10) }),
      (input) => {
        const rule = findRule(input.EventBusName, input.Rule);
        const FailedEntries: { TargetId: string; ErrorCode: string; ErrorMessage: string }[] = [];
        for (const target of input.Targets) {
          const problem = targetProblem(target);
          if (problem) {
            FailedEntries.push({
              TargetId: target.Id,
              ErrorCode: 'ValidationException',
              ErrorMessage: problem,
            });
          } else if (!rule.targets.has(target.Id) && rule.targets.size >= MAX_TARGETS_PER_RULE) {
            throw new AwsServiceError(
              'LimitExceededException',
              `A rule can have at most ${MAX_TARGETS_PER_RULE} targets.`,
            );
          } else {
            const { InputTransformer: _unsupported, ...stored } = target;
            rule.targets.set(target.Id, stored);
          }
        }
        return { FailedEntryCount: FailedEntries.length, FailedEntries };
      },
    ),

    RemoveTargets: operation(
      z.object({ ...targetsInput, Ids: z.array(z.string()).min(1), Force: z.boolean().optional() }),
      (input) => {
        const rule = findRule(input.EventBusName, input.Rule);
        const FailedEntries = input.Ids.filter((id) => !rule.targets.delete(id)).map((id) => ({
          TargetId: id,
          ErrorCode: 'ResourceNotFoundException',
          ErrorMessage: `Target ${id} does not exist on rule ${rule.name}.`,
        }));
        return { FailedEntryCount: FailedEntries.length, FailedEntries };
      },
    ),

    ListTargetsByRule: operation(z.object({ ...targetsInput, ...pageInput }), (input) => {
      const targets = [...findRule(input.EventBusName, input.Rule).targets.values()];
      const { items, NextToken } = page(targets, input.Limit, input.NextToken);
      return { Targets: items, NextToken };
    }),

    PutEvents: operation(
      z.object({
        Entries: z.array(
          z.object({
            Source: z.string().optional(),
            DetailType: z.string().optional(),
            Detail: z.string().optional(),
            Resources: z.array(z.string()).optional(),
            EventBusName: z.string().optional(),
            Time: z.union([z.number(), z.string()]).optional(),
            TraceHeader: z.string().optional(),
          }),
        ),
        EndpointId: z.string().optional(),
      }),
      (input) => {
        if (input.Entries.length === 0 || input.Entries.length > MAX_PUT_EVENTS_ENTRIES) {
          throw new AwsServiceError(
            'ValidationException',
            `PutEvents takes 1 to ${MAX_PUT_EVENTS_ENTRIES} entries.`,
          );
        }
        if (input.EndpointId)
          throw new AwsServiceError('ValidationException', 'Global endpoints are not supported locally.');
        const Entries = input.Entries.map(putEvent);
        return { FailedEntryCount: Entries.filter((entry) => 'ErrorCode' in entry).length, Entries };
      },
    ),

    TestEventPattern: operation(z.object({ EventPattern: z.string(), Event: z.string() }), (input) => {
      let event: unknown;
      try {
        event = JSON.parse(input.Event);
      } catch {
        throw new AwsServiceError('ValidationException', 'Event is not valid JSON.');
      }
      return { Result: matchesEventPattern(compile(input.EventPattern), event) };
    }),
  };

  const server = await startAwsJsonServer(
    {
      serviceTarget: 'AWSEvents',
      jsonVersion: '1.1',
      operations,
      validationErrorCode: 'ValidationException',
    },
    options,
  );

  return {
    endpoint: server.endpoint,
    deliveryFailures: () => [...failures],
    whenIdle() {
      if (pendingDeliveries === 0) return Promise.resolve();
      return new Promise((resolve) => idleListeners.push(resolve));
    },
    async stop() {
      stopped = true;
      for (const timer of retryTimers) clearTimeout(timer);
      retryTimers.clear();
      // Cancelled retries never settle: release whoever waits for idleness.
      pendingDeliveries = 0;
      for (const listener of idleListeners.splice(0)) listener();
      await server.stop();
    },
  };
}

type PutEventsEntry = {
  Source?: string;
  DetailType?: string;
  Detail?: string;
  Resources?: string[];
  EventBusName?: string;
  Time?: number | string;
};

/** Why a target cannot be stored, or undefined when it can. */
function targetProblem(target: z.infer<typeof targetSchema>): string | undefined {
  if (target.InputTransformer !== undefined)
    return 'InputTransformer is not supported by the local emulator.';
  if (target.Input !== undefined && target.InputPath !== undefined)
    return 'Only one of Input and InputPath may be set.';
  if (target.Input !== undefined) {
    try {
      JSON.parse(target.Input);
    } catch {
      return 'Input is not valid JSON.';
    }
  }
  if (target.InputPath !== undefined) {
    try {
      parseReferencePath(target.InputPath);
    } catch (error) {
      if (error instanceof InvalidReferencePathError) return error.message;
      throw error;
    }
  }
  return undefined;
}

/** EventBridge's `time`: ISO 8601 to the second. */
function eventTime(time: number | string | undefined): string {
  let date = new Date();
  if (typeof time === 'number') date = new Date(time * 1000);
  else if (typeof time === 'string' && !Number.isNaN(Date.parse(time))) date = new Date(time);
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
