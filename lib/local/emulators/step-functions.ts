/**
 * Local Step Functions: the AWS JSON 1.0 API (`X-Amz-Target: AWSStepFunctions.<Operation>`) over
 * aws-local-stepfunctions, which runs the same ASL files the stack deploys.
 *
 * Task states run in process: the emulator asks `resolveTask(resource, stateName)` for a function
 * and calls it with the state's input, like Lambda would (JSON in, JSON out). A thrown error fails
 * the state the way a Lambda error does: `Error` is the error's `name`, `Cause` the JSON
 * `{"errorType","errorMessage","trace"}`, so Retry / Catch on error names work as on AWS. The
 * optimized integration `arn:aws:states:::lambda:invoke` is understood too: the function comes from
 * `Parameters.FunctionName`, gets `Parameters.Payload`, and the state's result is
 * `{ Payload, StatusCode: 200, ... }` as on AWS.
 *
 * Restarts: with `dataFile`, state machines and executions are journaled. Executions that were
 * RUNNING when the process stopped cannot be resumed (the runner keeps no checkpoint); after a
 * restart they are reported by `listRunningExecutions()` with `interrupted: true`, and the local
 * stack decides: start them again, or `failInterruptedExecutions()`, which marks them FAILED with
 * error `States.Runtime` and cause `local stack restarted`.
 */
import { randomUUID } from 'node:crypto';
import {
  ExecutionError,
  ExecutionTimeoutError,
  type RunOptions,
  StateMachine,
  type StateMachineDefinition,
} from 'aws-local-stepfunctions';
import { z } from 'zod';
import {
  AwsServiceError,
  type JsonObject,
  type JsonValue,
  type ListenOptions,
  operation,
  sleep,
  startAwsJsonServer,
  toEpochSeconds,
} from './aws-json-protocol.js';
import { JsonFileStore } from './json-file-store.js';
import { readPath } from './json-reference-path.js';
import {
  applySubstitutions,
  type PreparedDefinition,
  prepareDefinition,
  trustDefinition,
  type WaitSpec,
} from './state-machine-definition.js';

installPromiseWithResolvers();

export const EXECUTION_STATUSES = {
  running: 'RUNNING',
  succeeded: 'SUCCEEDED',
  failed: 'FAILED',
  timedOut: 'TIMED_OUT',
  aborted: 'ABORTED',
} as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[keyof typeof EXECUTION_STATUSES];
const STATUS_VALUES = Object.values(EXECUTION_STATUSES) as [ExecutionStatus, ...ExecutionStatus[]];

/** The in-process function a Task state runs: JSON-compatible input, JSON-compatible result. */
export type TaskFunction = (input: unknown) => Promise<unknown>;

/**
 * Maps a Task state to its function. `resource` is the state's `Resource` after substitutions
 * (for `arn:aws:states:::lambda:invoke`, the `FunctionName` it was given). Throw to fail the state.
 */
export type TaskResolver = (resource: string, stateName: string) => TaskFunction | Promise<TaskFunction>;

export interface StepFunctionsEmulatorOptions extends ListenOptions {
  /** Supplies the function of every Task state. */
  resolveTask: TaskResolver;
  /**
   * `${Name}` placeholders replaced in every definition at CreateStateMachine / UpdateStateMachine,
   * like CDK's `definitionSubstitutions`.
   * @default {}
   */
  definitionSubstitutions?: Readonly<Record<string, string>>;
  /**
   * Multiplies Wait state durations and Retry intervals: `0.001` turns seconds into milliseconds.
   * Timeouts (`TimeoutSeconds`) are deadlines, not waits, and are never scaled.
   * @default 1
   */
  timeScale?: number;
  /**
   * JSON journal of state machines and executions; in memory only when absent.
   * @default undefined
   */
  dataFile?: string;
  /**
   * Check definitions with asl-validator (as the runner does) at CreateStateMachine. It costs about
   * 0.5 s per distinct definition; turn it off where the ASL files are validated by their own tests.
   * The local refusals (JSONata, callbacks, ...) always apply.
   * @default true
   */
  validateDefinitions?: boolean;
  /**
   * Finished executions kept (oldest dropped first); running ones are always kept.
   * @default 1000
   */
  retainedExecutions?: number;
  /**
   * @default 'us-east-1'
   */
  region?: string;
  /**
   * @default '000000000000'
   */
  accountId?: string;
}

/** What `DescribeExecution` reports, with dates in epoch milliseconds. */
export interface ExecutionDescription {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  status: ExecutionStatus;
  startDate: number;
  stopDate?: number;
  input: string;
  output?: string;
  error?: string;
  cause?: string;
}

export interface RunningExecution extends ExecutionDescription {
  /** True when it was RUNNING in the journal of a previous process and nothing runs it now. */
  interrupted: boolean;
}

export interface StateMachineInput {
  name: string;
  /** ASL text, or the parsed object. */
  definition: string | object;
  /**
   * @default 'arn:aws:iam::<account>:role/local-step-functions'
   */
  roleArn?: string;
}

export interface StepFunctionsEmulator {
  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_SFN` or a client's `endpoint`. */
  endpoint: string;
  /** Creates the state machine, or updates its definition when the name exists; returns its ARN. */
  putStateMachine(input: StateMachineInput): Promise<string>;
  /** Executions with status RUNNING, including interrupted ones from before a restart. */
  listRunningExecutions(): RunningExecution[];
  /**
   * Marks every interrupted execution FAILED.
   * @returns the executions it changed
   */
  failInterruptedExecutions(reason?: { error?: string; cause?: string }): Promise<ExecutionDescription[]>;
  /** Resolves with the execution once it is no longer RUNNING. */
  waitForExecution(executionArn: string, options?: { timeoutMs?: number }): Promise<ExecutionDescription>;
  /** Stops the runners without recording an outcome (the journal keeps them RUNNING), then the server. */
  stop(): Promise<void>;
}

/** `waitForExecution` gave up. */
export class ExecutionWaitTimeoutError extends Error {
  readonly executionArn: string;

  constructor(executionArn: string, timeoutMs: number) {
    super(`Execution ${executionArn} still RUNNING after ${timeoutMs} ms`);
    this.name = 'ExecutionWaitTimeoutError';
    this.executionArn = executionArn;
  }
}

const stateMachineRecordSchema = z.object({
  stateMachineArn: z.string(),
  name: z.string(),
  definition: z.string(),
  roleArn: z.string(),
  creationDate: z.number(),
});
type StateMachineRecord = z.infer<typeof stateMachineRecordSchema>;

const executionRecordSchema = z.object({
  executionArn: z.string(),
  stateMachineArn: z.string(),
  name: z.string(),
  status: z.enum(STATUS_VALUES),
  startDate: z.number(),
  stopDate: z.number().optional(),
  input: z.string(),
  output: z.string().optional(),
  error: z.string().optional(),
  cause: z.string().optional(),
});
type ExecutionRecord = z.infer<typeof executionRecordSchema>;

const journalSchema = z.object({
  format: z.literal('local-sfn/1'),
  stateMachines: z.array(stateMachineRecordSchema),
  executions: z.array(executionRecordSchema),
});
type Journal = z.infer<typeof journalSchema>;

const NAME_PATTERN = /^[A-Za-z0-9_-]{1,80}$/;
const INTERRUPTED = { error: 'States.Runtime', cause: 'local stack restarted' } as const;

/** Starts the Step Functions emulator. */
export async function startStepFunctionsEmulator(
  options: StepFunctionsEmulatorOptions,
): Promise<StepFunctionsEmulator> {
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '000000000000';
  const timeScale = options.timeScale ?? 1;
  if (!(timeScale >= 0)) throw new RangeError('timeScale must be a number >= 0');
  const substitutions = options.definitionSubstitutions ?? {};
  const retainedExecutions = options.retainedExecutions ?? 1000;
  const validateDefinitions = options.validateDefinitions ?? true;
  const store = options.dataFile ? new JsonFileStore(options.dataFile, journalSchema, 0o644) : undefined;

  const stateMachines = new Map<string, StateMachineRecord>();
  const prepared = new Map<string, PreparedDefinition>();
  const executions = new Map<string, ExecutionRecord>();
  const runners = new Map<string, () => void>();
  const settleListeners = new Map<string, Set<() => void>>();
  let stopping = false;

  const journal = await store?.load();
  for (const machine of journal?.stateMachines ?? []) {
    stateMachines.set(machine.stateMachineArn, machine);
    trustDefinition(machine.definition);
    prepared.set(machine.stateMachineArn, prepare(machine.definition));
  }
  for (const execution of journal?.executions ?? []) executions.set(execution.executionArn, execution);

  const stateMachineArn = (name: string) => `arn:aws:states:${region}:${accountId}:stateMachine:${name}`;
  const executionArn = (machineName: string, name: string) =>
    `arn:aws:states:${region}:${accountId}:execution:${machineName}:${name}`;

  function snapshot(): Journal {
    return {
      format: 'local-sfn/1',
      stateMachines: [...stateMachines.values()],
      executions: [...executions.values()],
    };
  }
  async function persist(): Promise<void> {
    await store?.save(snapshot);
  }

  function prepare(definition: string): PreparedDefinition {
    return prepareDefinition(definition, substitutions, timeScale, (parsed) => {
      // The runner's constructor runs asl-validator with ARN and path checks.
      if (validateDefinitions) new StateMachine(parsed as unknown as StateMachineDefinition);
    });
  }

  function requireArn(arn: string, kind: 'stateMachine' | 'execution'): void {
    if (!arn.startsWith(`arn:aws:states:`) || arn.split(':')[5] !== kind) {
      throw new AwsServiceError('InvalidArn', `Invalid Arn: '${arn}'`);
    }
  }

  function findStateMachine(arn: string): StateMachineRecord {
    requireArn(arn, 'stateMachine');
    const machine = stateMachines.get(arn);
    if (!machine)
      throw new AwsServiceError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${arn}'`);
    return machine;
  }

  function findExecution(arn: string): ExecutionRecord {
    requireArn(arn, 'execution');
    const execution = executions.get(arn);
    if (!execution) throw new AwsServiceError('ExecutionDoesNotExist', `Execution Does Not Exist: '${arn}'`);
    return execution;
  }

  function describe(execution: ExecutionRecord): ExecutionDescription {
    return { ...execution };
  }

  function settle(
    execution: ExecutionRecord,
    outcome: Omit<Partial<ExecutionRecord>, 'status'> & { status: ExecutionStatus },
  ) {
    Object.assign(execution, outcome, { stopDate: Date.now() });
    const listeners = settleListeners.get(execution.executionArn);
    settleListeners.delete(execution.executionArn);
    for (const listener of listeners ?? []) listener();
    pruneExecutions();
  }

  function pruneExecutions(): void {
    const finished = [...executions.values()].filter(
      (execution) => execution.status !== EXECUTION_STATUSES.running,
    );
    const excess = finished.length - retainedExecutions;
    if (excess <= 0) return;
    finished.sort((a, b) => (a.stopDate ?? 0) - (b.stopDate ?? 0));
    for (const execution of finished.slice(0, excess)) executions.delete(execution.executionArn);
  }

  async function putStateMachine(input: StateMachineInput): Promise<string> {
    if (!NAME_PATTERN.test(input.name))
      throw new AwsServiceError('InvalidName', `Invalid Name: '${input.name}'`);
    const text = typeof input.definition === 'string' ? input.definition : JSON.stringify(input.definition);
    const definition = prepare(text);
    const arn = stateMachineArn(input.name);
    const existing = stateMachines.get(arn);
    stateMachines.set(arn, {
      stateMachineArn: arn,
      name: input.name,
      definition: definition.definition,
      roleArn: input.roleArn ?? existing?.roleArn ?? `arn:aws:iam::${accountId}:role/local-step-functions`,
      creationDate: existing?.creationDate ?? Date.now(),
    });
    prepared.set(arn, definition);
    await persist();
    return arn;
  }

  async function startExecution(
    machine: StateMachineRecord,
    name: string,
    input: string,
  ): Promise<ExecutionRecord> {
    const arn = executionArn(machine.name, name);
    const existing = executions.get(arn);
    if (existing) {
      // StartExecution is idempotent for the same name and input while the execution runs.
      if (existing.status === EXECUTION_STATUSES.running && existing.input === input) return existing;
      throw new AwsServiceError('ExecutionAlreadyExists', `Execution Already Exists: '${arn}'`);
    }
    const definition = prepared.get(machine.stateMachineArn);
    if (!definition) throw new AwsServiceError('StateMachineDoesNotExist', `State Machine Does Not Exist`);
    const execution: ExecutionRecord = {
      executionArn: arn,
      stateMachineArn: machine.stateMachineArn,
      name,
      status: EXECUTION_STATUSES.running,
      startDate: Date.now(),
      input,
    };
    executions.set(arn, execution);
    // Journal first: a crash right after StartExecution answers must leave a RUNNING trace.
    await persist();
    run(execution, machine, definition);
    return execution;
  }

  function run(
    execution: ExecutionRecord,
    machine: StateMachineRecord,
    definition: PreparedDefinition,
  ): void {
    // Aborted when the execution ends or is stopped: ends local waits, and settles tasks that are
    // still running in process (their results are ignored) so the runner clears its timers.
    const cancel = new AbortController();
    const runner = new StateMachine(definition.runtimeDefinition as unknown as StateMachineDefinition, {
      validationOptions: { noValidate: true },
    });
    const parsedInput = JSON.parse(execution.input) as JsonValue;
    const context = {
      Execution: { Id: execution.executionArn, Name: execution.name, RoleArn: machine.roleArn },
      StateMachine: { Id: machine.stateMachineArn, Name: machine.name },
    };
    const handlers: NonNullable<NonNullable<RunOptions['overrides']>['taskResourceLocalHandlers']> = {};
    for (const [stateName, resource] of definition.tasks) {
      handlers[stateName] = (input) =>
        settleOnAbort(invokeTask(options.resolveTask, resource, stateName, input), cancel.signal);
    }
    // What `$$` means to a SecondsPath / TimestampPath (the runner adds Input and StartTime the same way).
    const waitContext: JsonObject = {
      ...context,
      Execution: {
        ...context.Execution,
        Input: parsedInput,
        StartTime: new Date(execution.startDate).toISOString(),
      },
    };
    for (const [stateName, wait] of definition.waits) {
      handlers[stateName] = async (input) => {
        await sleep(waitMilliseconds(wait, input, waitContext) * timeScale, cancel.signal);
        return input;
      };
    }
    const running = runner.run(parsedInput, {
      overrides: { taskResourceLocalHandlers: handlers },
      noThrowOnAbort: true,
      context,
    });
    runners.set(execution.executionArn, () => {
      running.abort();
      cancel.abort();
    });

    void running.result
      .then(
        (output) => ({ status: EXECUTION_STATUSES.succeeded, output: JSON.stringify(output ?? null) }),
        (error: unknown) => failureOf(error),
      )
      .then(async (outcome) => {
        runners.delete(execution.executionArn);
        cancel.abort();
        // A stop (StopExecution or emulator shutdown) has already decided what the journal says.
        if (stopping || execution.status !== EXECUTION_STATUSES.running) return;
        settle(execution, outcome);
        await persist();
      })
      .catch((error: unknown) => {
        console.error(`[local-sfn] could not record the outcome of ${execution.executionArn}`, error);
      });
  }

  function listRunningExecutions(): RunningExecution[] {
    return [...executions.values()]
      .filter((execution) => execution.status === EXECUTION_STATUSES.running)
      .map((execution) => ({ ...describe(execution), interrupted: !runners.has(execution.executionArn) }));
  }

  async function failInterruptedExecutions(reason: { error?: string; cause?: string } = {}) {
    const changed: ExecutionDescription[] = [];
    for (const execution of listRunningExecutions().filter((candidate) => candidate.interrupted)) {
      const record = executions.get(execution.executionArn);
      if (!record) continue;
      settle(record, {
        status: EXECUTION_STATUSES.failed,
        error: reason.error ?? INTERRUPTED.error,
        cause: reason.cause ?? INTERRUPTED.cause,
      });
      changed.push(describe(record));
    }
    if (changed.length > 0) await persist();
    return changed;
  }

  function waitForExecution(
    arn: string,
    waitOptions: { timeoutMs?: number } = {},
  ): Promise<ExecutionDescription> {
    const execution = findExecution(arn);
    if (execution.status !== EXECUTION_STATUSES.running) return Promise.resolve(describe(execution));
    const timeoutMs = waitOptions.timeoutMs ?? 10_000;
    return new Promise((resolve, reject) => {
      const listeners = settleListeners.get(arn) ?? new Set();
      settleListeners.set(arn, listeners);
      const timer = setTimeout(() => {
        listeners.delete(onSettle);
        reject(new ExecutionWaitTimeoutError(arn, timeoutMs));
      }, timeoutMs);
      function onSettle() {
        clearTimeout(timer);
        resolve(describe(execution));
      }
      listeners.add(onSettle);
    });
  }

  function pageOf<T>(items: T[], maxResults: number | undefined, nextToken: string | undefined) {
    const start = nextToken === undefined ? 0 : Number.parseInt(nextToken, 10);
    if (!Number.isInteger(start) || start < 0 || start > items.length) {
      throw new AwsServiceError('InvalidToken', 'Invalid Token');
    }
    const end = start + (maxResults || 100);
    return { items: items.slice(start, end), nextToken: end < items.length ? String(end) : undefined };
  }

  const listOptions = {
    maxResults: z.number().int().min(0).max(1000).optional(),
    nextToken: z.string().optional(),
  };

  const operations = {
    CreateStateMachine: operation(
      z.object({
        name: z.string(),
        definition: z.string().min(1),
        roleArn: z.string().optional(),
        type: z.enum(['STANDARD', 'EXPRESS']).optional(),
      }),
      async (input) => {
        if (input.type === 'EXPRESS') {
          throw new AwsServiceError(
            'StateMachineTypeNotSupported',
            'Only STANDARD state machines run locally.',
          );
        }
        const arn = stateMachineArn(input.name);
        const existing = stateMachines.get(arn);
        if (existing) {
          const definition = applySubstitutions(input.definition, substitutions);
          // CreateStateMachine is idempotent only for an identical definition and role.
          if (definition !== existing.definition || (input.roleArn && input.roleArn !== existing.roleArn)) {
            throw new AwsServiceError('StateMachineAlreadyExists', `State Machine Already Exists: '${arn}'`);
          }
          return { stateMachineArn: arn, creationDate: toEpochSeconds(existing.creationDate) };
        }
        await putStateMachine({ name: input.name, definition: input.definition, roleArn: input.roleArn });
        return {
          stateMachineArn: arn,
          creationDate: toEpochSeconds(stateMachines.get(arn)?.creationDate ?? Date.now()),
        };
      },
    ),

    UpdateStateMachine: operation(
      z.object({
        stateMachineArn: z.string(),
        definition: z.string().min(1).optional(),
        roleArn: z.string().optional(),
      }),
      async (input) => {
        const machine = findStateMachine(input.stateMachineArn);
        await putStateMachine({
          name: machine.name,
          definition: input.definition ?? machine.definition,
          roleArn: input.roleArn ?? machine.roleArn,
        });
        return { updateDate: toEpochSeconds(Date.now()) };
      },
    ),

    DescribeStateMachine: operation(z.object({ stateMachineArn: z.string() }), (input) => {
      const machine = findStateMachine(input.stateMachineArn);
      return {
        stateMachineArn: machine.stateMachineArn,
        name: machine.name,
        status: 'ACTIVE',
        definition: machine.definition,
        roleArn: machine.roleArn,
        type: 'STANDARD',
        creationDate: toEpochSeconds(machine.creationDate),
        loggingConfiguration: { level: 'OFF', includeExecutionData: false },
      };
    }),

    DeleteStateMachine: operation(z.object({ stateMachineArn: z.string() }), async (input) => {
      requireArn(input.stateMachineArn, 'stateMachine');
      stateMachines.delete(input.stateMachineArn);
      prepared.delete(input.stateMachineArn);
      await persist();
      return {};
    }),

    ListStateMachines: operation(z.object(listOptions), (input) => {
      const machines = [...stateMachines.values()].sort((a, b) => a.name.localeCompare(b.name));
      const page = pageOf(machines, input.maxResults, input.nextToken);
      return {
        stateMachines: page.items.map((machine) => ({
          stateMachineArn: machine.stateMachineArn,
          name: machine.name,
          type: 'STANDARD',
          creationDate: toEpochSeconds(machine.creationDate),
        })),
        nextToken: page.nextToken,
      };
    }),

    StartExecution: operation(
      z.object({ stateMachineArn: z.string(), name: z.string().optional(), input: z.string().optional() }),
      async (input) => {
        const machine = findStateMachine(input.stateMachineArn);
        const name = input.name ?? randomUUID();
        if (!NAME_PATTERN.test(name)) throw new AwsServiceError('InvalidName', `Invalid Name: '${name}'`);
        const executionInput = input.input ?? '{}';
        try {
          JSON.parse(executionInput);
        } catch {
          throw new AwsServiceError(
            'InvalidExecutionInput',
            'Invalid State Machine Execution Input: not valid JSON',
          );
        }
        const execution = await startExecution(machine, name, executionInput);
        return { executionArn: execution.executionArn, startDate: toEpochSeconds(execution.startDate) };
      },
    ),

    DescribeExecution: operation(z.object({ executionArn: z.string() }), (input) => {
      const execution = findExecution(input.executionArn);
      return {
        ...execution,
        startDate: toEpochSeconds(execution.startDate),
        stopDate: execution.stopDate === undefined ? undefined : toEpochSeconds(execution.stopDate),
        inputDetails: { included: true },
        outputDetails: execution.output === undefined ? undefined : { included: true },
      };
    }),

    StopExecution: operation(
      z.object({
        executionArn: z.string(),
        error: z.string().max(256).optional(),
        cause: z.string().max(32768).optional(),
      }),
      async (input) => {
        const execution = findExecution(input.executionArn);
        if (execution.status === EXECUTION_STATUSES.running) {
          settle(execution, { status: EXECUTION_STATUSES.aborted, error: input.error, cause: input.cause });
          runners.get(execution.executionArn)?.();
          await persist();
        }
        return { stopDate: toEpochSeconds(execution.stopDate ?? Date.now()) };
      },
    ),

    ListExecutions: operation(
      z.object({
        stateMachineArn: z.string(),
        statusFilter: z.enum(STATUS_VALUES).optional(),
        ...listOptions,
      }),
      (input) => {
        findStateMachine(input.stateMachineArn);
        const matching = [...executions.values()]
          .filter((execution) => execution.stateMachineArn === input.stateMachineArn)
          .filter((execution) => !input.statusFilter || execution.status === input.statusFilter)
          .sort((a, b) => b.startDate - a.startDate);
        const page = pageOf(matching, input.maxResults, input.nextToken);
        return {
          executions: page.items.map((execution) => ({
            executionArn: execution.executionArn,
            stateMachineArn: execution.stateMachineArn,
            name: execution.name,
            status: execution.status,
            startDate: toEpochSeconds(execution.startDate),
            stopDate: execution.stopDate === undefined ? undefined : toEpochSeconds(execution.stopDate),
          })),
          nextToken: page.nextToken,
        };
      },
    ),
  };

  const server = await startAwsJsonServer(
    {
      serviceTarget: 'AWSStepFunctions',
      jsonVersion: '1.0',
      operations,
      validationErrorCode: 'ValidationException',
    },
    options,
  );

  return {
    endpoint: server.endpoint,
    putStateMachine,
    listRunningExecutions,
    failInterruptedExecutions,
    waitForExecution,
    async stop() {
      stopping = true;
      for (const abort of runners.values()) abort();
      runners.clear();
      await store?.flush();
      await server.stop();
    },
  };
}

/**
 * `promise`, or a rejection as soon as `signal` aborts. A task abandoned that way still settles later
 * (often failing, as the emulators it calls shut down); its outcome is observed here, because an
 * unhandled rejection ends the process (the WebAssembly runtime of the vision engine rethrows them).
 */
function settleOnAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(new Error('execution ended'));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('execution ended'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Runs a Task's function with Lambda's contract: JSON in, JSON out, errors as errorType / Cause. */
async function invokeTask(resolveTask: TaskResolver, resource: string, stateName: string, input: JsonValue) {
  const lambdaInvoke = resource === 'arn:aws:states:::lambda:invoke';
  let target = resource;
  let payload: JsonValue = input;
  if (lambdaInvoke) {
    const parameters = typeof input === 'object' && input !== null && !Array.isArray(input) ? input : {};
    target = String(parameters.FunctionName ?? '');
    payload = parameters.Payload ?? null;
  }
  let result: unknown;
  try {
    const taskFunction = await resolveTask(target, stateName);
    result = await taskFunction(JSON.parse(JSON.stringify(payload)));
  } catch (error) {
    throw new TaskFailedError(error);
  }
  const json = JSON.parse(JSON.stringify(result ?? null)) as JsonValue;
  if (!lambdaInvoke) return json;
  return {
    ExecutedVersion: '$LATEST',
    Payload: json,
    SdkHttpMetadata: { HttpStatusCode: 200 },
    SdkResponseMetadata: { RequestId: randomUUID() },
    StatusCode: 200,
  };
}

/**
 * A Task function's error as Step Functions sees a Lambda error: the runner matches Retry / Catch
 * on `name` and reports `message` as the cause.
 */
class TaskFailedError extends Error {
  constructor(error: unknown) {
    const errorType = error instanceof Error ? error.name : 'Error';
    const errorMessage = error instanceof Error ? error.message : String(error);
    const trace =
      error instanceof Error
        ? (error.stack ?? '')
            .split('\n')
            .slice(1)
            .map((line) => line.trim())
        : [];
    super(JSON.stringify({ errorType, errorMessage, trace }));
    this.name = errorType;
  }
}

function failureOf(error: unknown): Pick<ExecutionRecord, 'status' | 'error' | 'cause'> {
  if (error instanceof ExecutionTimeoutError) {
    return {
      status: EXECUTION_STATUSES.timedOut,
      error: 'States.Timeout',
      cause: 'The execution timed out.',
    };
  }
  const cause = error instanceof ExecutionError ? error.cause : error;
  if (cause instanceof Error) {
    // A Fail state without Error/Cause: AWS reports neither.
    if (cause.name === 'FailStateError' && cause.message === 'Execution failed because of a Fail state') {
      return { status: EXECUTION_STATUSES.failed };
    }
    return { status: EXECUTION_STATUSES.failed, error: cause.name, cause: cause.message };
  }
  return { status: EXECUTION_STATUSES.failed, error: 'States.Runtime', cause: String(cause) };
}

/** Unscaled duration of a Wait state for this input. */
function waitMilliseconds(wait: WaitSpec, input: JsonValue, context: JsonObject): number {
  switch (wait.kind) {
    case 'seconds':
      return wait.seconds * 1000;
    case 'timestamp':
      return Math.max(0, Date.parse(wait.timestamp) - Date.now());
    case 'secondsPath': {
      const seconds = readPath(wait.fromContext ? context : input, wait.path);
      if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 0) {
        throw new StatesRuntimeError(
          `SecondsPath did not resolve to a non-negative integer: ${JSON.stringify(seconds)}`,
        );
      }
      return seconds * 1000;
    }
    case 'timestampPath': {
      const timestamp = readPath(wait.fromContext ? context : input, wait.path);
      const time = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN;
      if (Number.isNaN(time)) {
        throw new StatesRuntimeError(
          `TimestampPath did not resolve to a timestamp: ${JSON.stringify(timestamp)}`,
        );
      }
      return Math.max(0, time - Date.now());
    }
  }
}

/** Matches the runner's `States.Runtime`: never retried or caught. */
class StatesRuntimeError extends Error {
  readonly isRetryable = false;
  readonly isCatchable = false;

  constructor(message: string) {
    super(message);
    this.name = 'States.Runtime';
  }
}

/** aws-local-stepfunctions calls `Promise.withResolvers` (ES2024), which Node 20 lacks. */
function installPromiseWithResolvers(): void {
  const promiseConstructor = Promise as PromiseConstructor & { withResolvers?: unknown };
  if (typeof promiseConstructor.withResolvers === 'function') return;
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers<T>() {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new Promise<T>((onResolve, onReject) => {
        resolve = onResolve;
        reject = onReject;
      });
      return { promise, resolve, reject };
    },
  });
}
