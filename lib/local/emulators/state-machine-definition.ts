/**
 * Turns an Amazon States Language definition into what aws-local-stepfunctions runs locally.
 *
 * - `${Name}` placeholders are replaced from the substitution map in the definition text, like
 *   CloudFormation's `DefinitionSubstitutions` (CDK's `definitionSubstitutions`).
 * - Features the local runner would silently get wrong are refused with `InvalidDefinition`
 *   (JSONata, variables, callback and `.sync` integrations, activities, distributed Map), so a
 *   state machine never behaves differently locally without saying so.
 * - The runner overrides Task states by state name only, so two Task states with one name must
 *   call the same resource.
 * - Wait states become local tasks that sleep `duration x timeScale` (the runner's own Wait
 *   override is a fixed number per state and cannot scale `SecondsPath` or `TimestampPath`), and
 *   Retry intervals are multiplied by `timeScale`, so tests run in milliseconds.
 * - A Task without `TimeoutSeconds` gets the AWS default (99999999 s, clamped to what a timer
 *   can hold) instead of the runner's 60 s, which would fail long media jobs that pass on AWS.
 */
import { AwsServiceError, type JsonObject, type JsonValue } from './aws-json-protocol.js';
import { InvalidReferencePathError, type PathSegment, parseReferencePath } from './json-reference-path.js';

/** How long a Wait state waits, resolved when the state runs. */
export type WaitSpec =
  | { kind: 'seconds'; seconds: number }
  | { kind: 'timestamp'; timestamp: string }
  | { kind: 'secondsPath'; path: PathSegment[]; fromContext: boolean }
  | { kind: 'timestampPath'; path: PathSegment[]; fromContext: boolean };

export interface PreparedDefinition {
  /** The definition text after substitutions: what `DescribeStateMachine` returns. */
  definition: string;
  /** The rewritten definition handed to the runner (validated in its original form). */
  runtimeDefinition: JsonObject;
  /** Task state name → `Resource`. */
  tasks: Map<string, string>;
  /** Former Wait state name → how long it waits. */
  waits: Map<string, WaitSpec>;
}

/** setTimeout holds at most 2^31-1 ms; longer timeouts fire at once. */
const MAX_TIMER_SECONDS = Math.floor(2_147_483_647 / 1000);
const AWS_DEFAULT_TASK_TIMEOUT_SECONDS = 99_999_999;
/** Resource of a rewritten Wait state: never invoked, the runner calls its local override. */
export const LOCAL_WAIT_RESOURCE = 'arn:aws:lambda:local:000000000000:function:local-wait-state';

/** Replaces `${Name}` placeholders; unknown placeholders are left as they are, as CloudFormation does. */
export function applySubstitutions(
  definition: string,
  substitutions: Readonly<Record<string, string>>,
): string {
  return definition.replace(/\$\{([^}]+)\}/g, (placeholder, name: string) =>
    Object.hasOwn(substitutions, name) ? (substitutions[name] ?? placeholder) : placeholder,
  );
}

function invalid(message: string): AwsServiceError {
  return new AwsServiceError('InvalidDefinition', `Invalid State Machine Definition: ${message}`);
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses, checks and rewrites a definition.
 * @param validate throws when the runner's own validator (asl-validator) rejects the definition.
 */
export function prepareDefinition(
  definitionText: string,
  substitutions: Readonly<Record<string, string>>,
  timeScale: number,
  validate: (definition: JsonObject) => void,
): PreparedDefinition {
  const definition = applySubstitutions(definitionText, substitutions);
  let parsed: JsonValue;
  try {
    parsed = JSON.parse(definition) as JsonValue;
  } catch (error) {
    throw invalid(`not valid JSON (${(error as Error).message})`);
  }
  if (!isObject(parsed)) throw invalid('the definition must be a JSON object');
  if (parsed.QueryLanguage === 'JSONata') throw invalid('JSONata is not supported locally; use JSONPath');

  // Local refusals first: they are cheap, and the validator costs hundreds of milliseconds.
  const runtimeDefinition = structuredClone(parsed);
  const tasks = new Map<string, string>();
  const waits = new Map<string, WaitSpec>();
  if (typeof runtimeDefinition.TimeoutSeconds === 'number') {
    runtimeDefinition.TimeoutSeconds = Math.min(runtimeDefinition.TimeoutSeconds, MAX_TIMER_SECONDS);
  }
  rewriteStates(runtimeDefinition, { tasks, waits, timeScale });

  if (!validatedDefinitions.has(definition)) {
    try {
      // The validator writes defaults into what it checks: give it a copy.
      validate(structuredClone(parsed));
    } catch (error) {
      throw invalid((error as Error).message);
    }
    validatedDefinitions.add(definition);
  }
  return { definition, runtimeDefinition, tasks, waits };
}

/**
 * Definitions that passed validation in this process. asl-validator compiles its JSON schemas on
 * every call (about 0.5 s), and the local stack re-creates the same state machines on every boot.
 */
const validatedDefinitions = new Set<string>();

/** Marks a definition as valid without checking it (one that was validated before it was journaled). */
export function trustDefinition(definition: string): void {
  validatedDefinitions.add(definition);
}

interface RewriteContext {
  tasks: Map<string, string>;
  waits: Map<string, WaitSpec>;
  timeScale: number;
}

function rewriteStates(machine: JsonObject, context: RewriteContext): void {
  const states = machine.States;
  if (!isObject(states)) return;
  for (const [name, state] of Object.entries(states)) {
    if (!isObject(state)) continue;
    rejectUnsupported(name, state);
    switch (state.Type) {
      case 'Task':
        registerTask(name, state, context);
        break;
      case 'Wait':
        states[name] = waitAsLocalTask(name, state, context);
        break;
      case 'Parallel':
        for (const branch of Array.isArray(state.Branches) ? state.Branches : []) {
          if (isObject(branch)) rewriteStates(branch, context);
        }
        break;
      case 'Map':
        for (const processor of [state.ItemProcessor, state.Iterator]) {
          if (isObject(processor)) rewriteStates(processor, context);
        }
        break;
    }
    scaleRetries(state, context.timeScale);
  }
}

function rejectUnsupported(name: string, state: JsonObject): void {
  if (state.QueryLanguage === 'JSONata') throw invalid(`state ${name}: JSONata is not supported locally`);
  if ('Assign' in state) throw invalid(`state ${name}: variables (Assign) are not supported locally`);
  if (state.Type === 'Map') {
    const processor = state.ItemProcessor;
    const mode =
      isObject(processor) && isObject(processor.ProcessorConfig) ? processor.ProcessorConfig.Mode : undefined;
    if (mode === 'DISTRIBUTED' || 'ItemReader' in state || 'ResultWriter' in state) {
      throw invalid(`state ${name}: distributed Map is not supported locally`);
    }
  }
  if (state.Type === 'Task') {
    const resource = typeof state.Resource === 'string' ? state.Resource : '';
    if (/\.(waitForTaskToken|sync(:\d+)?)$/.test(resource)) {
      throw invalid(`state ${name}: ${resource} (callback or .sync integration) is not supported locally`);
    }
    if (/^arn:aws:states:[^:]*:[^:]*:activity:/.test(resource)) {
      throw invalid(`state ${name}: activities are not supported locally`);
    }
  }
}

function registerTask(name: string, state: JsonObject, context: RewriteContext): void {
  const resource = String(state.Resource);
  const known = context.tasks.get(name);
  if ((known !== undefined && known !== resource) || context.waits.has(name)) {
    throw invalid(`two states are named ${name}; locally, Task and Wait state names must be unique`);
  }
  context.tasks.set(name, resource);
  if (state.TimeoutSeconds === undefined && state.TimeoutSecondsPath === undefined) {
    state.TimeoutSeconds = Math.min(AWS_DEFAULT_TASK_TIMEOUT_SECONDS, MAX_TIMER_SECONDS);
  } else if (typeof state.TimeoutSeconds === 'number') {
    state.TimeoutSeconds = Math.min(state.TimeoutSeconds, MAX_TIMER_SECONDS);
  }
}

function waitAsLocalTask(name: string, state: JsonObject, context: RewriteContext): JsonObject {
  const spec = waitSpecOf(name, state);
  const known = context.waits.get(name);
  if ((known !== undefined && JSON.stringify(known) !== JSON.stringify(spec)) || context.tasks.has(name)) {
    throw invalid(`two states are named ${name}; locally, Task and Wait state names must be unique`);
  }
  context.waits.set(name, spec);
  const task: JsonObject = {
    Type: 'Task',
    Resource: LOCAL_WAIT_RESOURCE,
    TimeoutSeconds: MAX_TIMER_SECONDS,
  };
  // Only the fields a Wait state has: the task returns its (InputPath-filtered) input unchanged.
  for (const field of ['Comment', 'InputPath', 'OutputPath', 'Next', 'End'] as const) {
    const value = state[field];
    if (value !== undefined) task[field] = value;
  }
  return task;
}

function waitSpecOf(name: string, state: JsonObject): WaitSpec {
  const path = (value: JsonValue | undefined) => {
    const text = String(value);
    try {
      const fromContext = text.startsWith('$$');
      return { path: parseReferencePath(fromContext ? text.slice(1) : text), fromContext };
    } catch (error) {
      if (error instanceof InvalidReferencePathError) throw invalid(`state ${name}: ${error.message}`);
      throw error;
    }
  };
  if (typeof state.Seconds === 'number') return { kind: 'seconds', seconds: state.Seconds };
  if (typeof state.Timestamp === 'string') return { kind: 'timestamp', timestamp: state.Timestamp };
  if (state.SecondsPath !== undefined) return { kind: 'secondsPath', ...path(state.SecondsPath) };
  if (state.TimestampPath !== undefined) return { kind: 'timestampPath', ...path(state.TimestampPath) };
  throw invalid(`state ${name}: a Wait state needs Seconds, Timestamp, SecondsPath or TimestampPath`);
}

function scaleRetries(state: JsonObject, timeScale: number): void {
  if (!Array.isArray(state.Retry)) return;
  for (const retrier of state.Retry) {
    if (!isObject(retrier)) continue;
    // The runner computes IntervalSeconds x BackoffRate^attempt (default interval 1 s).
    const interval = typeof retrier.IntervalSeconds === 'number' ? retrier.IntervalSeconds : 1;
    retrier.IntervalSeconds = interval * timeScale;
    if (typeof retrier.MaxDelaySeconds === 'number') retrier.MaxDelaySeconds *= timeScale;
  }
}
