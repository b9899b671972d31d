/**
 * Every job's workflow file against its definition: each Task state runs a step the definition
 * declares (or the framework's failure step), passes exactly the fields the step's input schema names,
 * each from the execution's input or from an earlier step's result of the same shape, and keeps a
 * result exactly when the step declares one. Every failure reaches the failure step with the name of
 * the step that failed. A workflow edited without its definition, or the reverse, fails here.
 *
 * Task states inside a Map state's `ItemProcessor` are held the same way, against what each iteration
 * receives: the Map's `ItemSelector`, whose fields come from the state around the Map or from the item
 * (`$$.Map.Item.Value`, an element of the array at `ItemsPath`). A Map's `MaxConcurrencyPath` names a
 * whole number; its tasks' failures are caught by the Map, whose Catch names the task that failed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AnyJobDefinition } from '../../../lambdas/jobs/job-definition.js';
import { ADMIT_STEP, RECORD_FAILURE_STEP } from '../../../lambdas/jobs/job-steps.js';
import { JOBS } from '../../../lambdas/workflows/jobs.js';
import { TASK_FUNCTIONS } from '../../../lambdas/workflows/task-functions.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** Steps every job workflow has from the framework, not from its definition. */
const FRAMEWORK_STEPS: readonly string[] = [ADMIT_STEP, RECORD_FAILURE_STEP];

interface AslState {
  Type: string;
  Choices?: { Variable: string; BooleanEquals?: boolean; Next: string }[];
  Default?: string;
  SecondsPath?: string;
  Resource?: string;
  Parameters?: Record<string, unknown>;
  ResultPath?: string | null;
  Result?: unknown;
  Next?: string;
  End?: boolean;
  Catch?: { ErrorEquals: string[]; ResultPath?: string; Next: string }[];
  ItemsPath?: string;
  MaxConcurrencyPath?: string;
  ItemSelector?: Record<string, unknown>;
  ItemProcessor?: { StartAt: string; States: Record<string, AslState> };
}

/** A Task state and the Map state it runs in, if any (one level: the workflows nest no deeper). */
interface TaskEntry {
  name: string;
  state: AslState;
  map?: { name: string; state: AslState };
}

/** The Task states of a workflow, those inside its Map states' item processors included. */
function taskStates(states: Record<string, AslState>): TaskEntry[] {
  return Object.entries(states).flatMap(([name, state]): TaskEntry[] => {
    if (state.Type === 'Task') return [{ name, state }];
    if (state.Type !== 'Map') return [];
    const inner = Object.entries(state.ItemProcessor?.States ?? {});
    expect(
      inner.every(([, innerState]) => innerState.Type === 'Task'),
      `${name}: a Map's item processor holds Task states only`,
    ).toBe(true);
    return inner.map(([innerName, innerState]) => ({
      name: innerName,
      state: innerState,
      map: { name, state },
    }));
  });
}

const MAP_ITEM_VALUE = '$$.Map.Item.Value';

function workflowOf(job: AnyJobDefinition): { StartAt: string; States: Record<string, AslState> } {
  return JSON.parse(readFileSync(path.join(ROOT, 'state-machines', `${job.name}.asl.json`), 'utf8'));
}

const TASK_FUNCTION = /^\$\{TaskFunction_(\w+)\}$/;

/** The schema at `segments` inside `schema` (objects by key, through nullable and optional). */
function schemaAt(schema: z.ZodType, segments: readonly string[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = schema;
  for (const segment of segments) {
    while (current instanceof z.ZodNullable || current instanceof z.ZodOptional) {
      current = current.unwrap() as z.ZodType;
    }
    if (!(current instanceof z.ZodObject)) return undefined;
    current = (current.shape as Record<string, z.ZodType>)[segment];
  }
  return current;
}

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { unrepresentable: 'any' });

describe.each(JOBS.map((job) => [job.name, job] as const))('the %s workflow', (_name, job) => {
  const { StartAt: startAt, States: states } = workflowOf(job);
  const taskEntries = taskStates(states);
  const tasks = taskEntries.map(({ name, state }) => [name, state] as const);
  const topLevelTasks = taskEntries.filter((entry) => !entry.map);
  const stepOf = (state: AslState) => {
    const name = TASK_FUNCTION.exec(state.Resource ?? '')?.[1] ?? '';
    expect(name.startsWith(job.taskPrefix), `${state.Resource} belongs to ${job.taskPrefix}`).toBe(true);
    return name.slice(job.taskPrefix.length);
  };
  /** What the execution's state holds at a top-level path: the input's ref fields and each step's result. */
  const resultsByPath = new Map<string, z.ZodType>(
    Object.entries(job.ref.shape as Record<string, z.ZodType>).map(([key, schema]) => [key, schema]),
  );
  for (const { state } of topLevelTasks) {
    const contract = job.steps[stepOf(state)];
    if (contract && typeof state.ResultPath === 'string') {
      resultsByPath.set(state.ResultPath.replace(/^\$\./, ''), contract.output);
    }
  }
  // A Map that keeps its result keeps an array of its last task's outputs.
  for (const [, state] of Object.entries(states)) {
    if (state.Type !== 'Map' || typeof state.ResultPath !== 'string') continue;
    const inner = Object.values(state.ItemProcessor?.States ?? {});
    const last = inner.find((innerState) => innerState.End);
    const contract = last && job.steps[stepOf(last)];
    if (contract) resultsByPath.set(state.ResultPath.replace(/^\$\./, ''), z.array(contract.output));
  }

  /** The schema a path names in the state around the Maps (the execution's input and the results). */
  const outerSchemaAt = (path: string): z.ZodType | undefined => {
    const [root = '', ...rest] = path.replace(/^\$\./, '').split('.');
    const source = resultsByPath.get(root);
    return source && schemaAt(source, rest);
  };

  /** What one iteration of a Map receives, by field: its ItemSelector resolved. */
  const itemSchemas = (mapName: string, map: AslState): Map<string, z.ZodType> => {
    const items = outerSchemaAt(map.ItemsPath ?? '$');
    expect(items, `${mapName}.ItemsPath ${map.ItemsPath} names an array`).toBeInstanceOf(z.ZodArray);
    const element = (items as z.ZodArray<z.ZodType>).element;
    const fields = new Map<string, z.ZodType>();
    for (const [key, value] of Object.entries(map.ItemSelector ?? {})) {
      expect(key.endsWith('.$'), `${mapName}.ItemSelector.${key} is a path`).toBe(true);
      const path = String(value);
      const schema = path.startsWith(MAP_ITEM_VALUE)
        ? schemaAt(element, path.slice(MAP_ITEM_VALUE.length).split('.').filter(Boolean))
        : outerSchemaAt(path);
      expect(schema, `${mapName}.ItemSelector.${key} ← ${path}`).toBeDefined();
      fields.set(key.replace(/\.\$$/, ''), schema as z.ZodType);
    }
    return fields;
  };
  it('runs every declared step in exactly one Task state, each a known task function', () => {
    const steps = tasks.map(([, state]) => stepOf(state));
    expect(steps.filter((step) => !FRAMEWORK_STEPS.includes(step)).sort()).toEqual(
      Object.keys(job.steps).sort(),
    );
    expect(steps.filter((step) => step === RECORD_FAILURE_STEP)).toHaveLength(1);
    expect(steps.filter((step) => step === ADMIT_STEP)).toHaveLength(job.concurrencyLimited ? 1 : 0);
    for (const step of steps) expect(TASK_FUNCTIONS[`${job.taskPrefix}${step}`], step).toBeDefined();
  });

  it("passes each step exactly its input schema's fields, from where the same shape is", () => {
    for (const { name: stateName, state, map } of taskEntries) {
      const step = stepOf(state);
      if (FRAMEWORK_STEPS.includes(step)) continue;
      const input = job.steps[step]?.input as z.ZodObject;
      const parameters = state.Parameters ?? {};
      const passed = Object.keys(parameters).map((key) => key.replace(/\.\$$/, ''));
      expect(passed.sort(), stateName).toEqual(Object.keys(input.shape).sort());
      // Inside a Map, a task reads what its iteration received; elsewhere the execution's state.
      const scope = map ? itemSchemas(map.name, map.state) : resultsByPath;
      for (const [key, value] of Object.entries(parameters)) {
        expect(key.endsWith('.$'), `${stateName}.${key} is a path`).toBe(true);
        const [root = '', ...rest] = String(value).replace(/^\$\./, '').split('.');
        const source = scope.get(root);
        expect(source, `${stateName}.${key}: nothing writes $.${root}`).toBeDefined();
        const given = schemaAt(source as z.ZodType, rest);
        const wanted = (input.shape as Record<string, z.ZodType>)[key.replace(/\.\$$/, '')];
        expect(given && jsonSchema(given), `${stateName}.${key} ← ${String(value)}`).toEqual(
          wanted && jsonSchema(wanted),
        );
      }
    }
  });

  it('keeps a step result exactly when the step declares one', () => {
    for (const [stateName, state] of tasks) {
      const step = stepOf(state);
      if (FRAMEWORK_STEPS.includes(step)) continue;
      const declaresNone = job.steps[step]?.output instanceof z.ZodNull;
      expect(state.ResultPath === null, stateName).toBe(declaresNone);
    }
  });

  it('starts by waiting for a slot (Admit, then its first step or Wait and Admit again), if concurrency-limited', () => {
    if (!job.concurrencyLimited) {
      expect(Object.values(states).map((state) => state.Resource)).not.toContain(
        `\${TaskFunction_${job.taskPrefix}${ADMIT_STEP}}`,
      );
      return;
    }
    const admit = states[startAt];
    expect(startAt).toBe('Admit');
    expect(admit).toMatchObject({
      Type: 'Task',
      Resource: `\${TaskFunction_${job.taskPrefix}${ADMIT_STEP}}`,
      Parameters: {
        job: job.name,
        ...Object.fromEntries(Object.keys(job.ref.shape).map((field) => [`${field}.$`, `$.${field}`])),
      },
      ResultPath: '$.admission',
    });
    const choice = states[admit?.Next ?? ''];
    expect(choice?.Type).toBe('Choice');
    const [admitted] = choice?.Choices ?? [];
    expect(admitted).toMatchObject({ Variable: '$.admission.admitted', BooleanEquals: true });
    const first = states[admitted?.Next ?? ''];
    expect(first?.Type).toBe('Task');
    expect(Object.keys(job.steps)).toContain(stepOf(first as AslState));
    const wait = states[choice?.Default ?? ''];
    expect(wait).toMatchObject({ Type: 'Wait', SecondsPath: '$.admission.wait_seconds', Next: 'Admit' });
  });

  it("catches every failure of every step into the failure step, naming the step, with the job's ref", () => {
    const [, failure] = tasks.find(([, state]) => stepOf(state) === RECORD_FAILURE_STEP) ?? [];
    const refFields = Object.keys(job.ref.shape);
    expect(failure?.Parameters).toEqual({
      job: job.name,
      ...Object.fromEntries(refFields.map((field) => [`${field}.$`, `$.${field}`])),
      'step.$': '$.step',
      'failure.$': '$.failure',
    });
    for (const { name: stateName, state, map } of taskEntries) {
      if (stepOf(state) === RECORD_FAILURE_STEP) continue;
      // A task inside a Map is caught by the Map (a Catch inside would end only its iteration).
      if (map) expect(state.Catch, `${stateName} is caught by ${map.name}`).toBeUndefined();
      const [catcher] = (map ? map.state : state).Catch ?? [];
      expect(catcher, stateName).toMatchObject({ ErrorEquals: ['States.ALL'], ResultPath: '$.failure' });
      const namer = states[catcher?.Next ?? ''];
      expect(namer, stateName).toMatchObject({ Type: 'Pass', Result: stateName, ResultPath: '$.step' });
      expect(states[namer?.Next ?? '']?.Resource).toBe(
        `\${TaskFunction_${job.taskPrefix}${RECORD_FAILURE_STEP}}`,
      );
    }
  });

  it('bounds every Map by a whole number from the state around it, or by a literal', () => {
    for (const [name, state] of Object.entries(states)) {
      if (state.Type !== 'Map') continue;
      if (state.MaxConcurrencyPath === undefined) continue;
      const concurrency = outerSchemaAt(state.MaxConcurrencyPath);
      expect(concurrency && jsonSchema(concurrency), `${name}.MaxConcurrencyPath`).toMatchObject({
        type: 'integer',
      });
    }
  });

  it('has a steps module that exports a handler under each step name', async () => {
    const module = (await import(path.join(ROOT, 'lambdas', `${job.stepsModule}.ts`))) as Record<
      string,
      unknown
    >;
    for (const step of Object.keys(job.steps)) expect(typeof module[step], step).toBe('function');
  });
});
