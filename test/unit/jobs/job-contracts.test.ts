/**
 * Every job's workflow file against its definition: each Task state runs a step the definition
 * declares (or the framework's failure step), passes exactly the fields the step's input schema names,
 * each from the execution's input or from an earlier step's result of the same shape, and keeps a
 * result exactly when the step declares one. Every failure reaches the failure step with the name of
 * the step that failed. A Map state's Task states take their fields from its item (`ItemSelector`: the
 * execution's state and `$$.Map.Item.Value`, an element of `ItemsPath`) and leave failures to the Map,
 * whose Catch names it. A workflow edited without its definition, or the reverse, fails here.
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
  ItemSelector?: Record<string, unknown>;
  ItemProcessor?: { StartAt: string; States: Record<string, AslState> };
}

/** A Task state, and the Map state whose items it runs on (none at the top level). */
type TaskEntry = [name: string, state: AslState, map?: [name: string, state: AslState]];

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

const MAP_ITEM = '$$.Map.Item.Value';

/** The schema at a `$.a.b` path of a state whose top-level fields are `scope`. */
function schemaOfPath(path: string, scope: ReadonlyMap<string, z.ZodType>): z.ZodType | undefined {
  const [root = '', ...rest] = path.replace(/^\$\./, '').split('.');
  const source = scope.get(root);
  return source && schemaAt(source, rest);
}

/** What a Map state's item holds: its `ItemSelector`'s fields, from the state or from an element of `ItemsPath`. */
function itemScope(map: AslState, scope: ReadonlyMap<string, z.ZodType>): Map<string, z.ZodType> {
  let items = schemaOfPath(map.ItemsPath ?? '$', scope);
  while (items instanceof z.ZodNullable || items instanceof z.ZodOptional)
    items = items.unwrap() as z.ZodType;
  const element = items instanceof z.ZodArray ? (items.element as z.ZodType) : undefined;
  const item = new Map<string, z.ZodType>();
  for (const [key, value] of Object.entries(map.ItemSelector ?? {})) {
    const path = String(value);
    const schema = path.startsWith(MAP_ITEM)
      ? element && schemaAt(element, path.slice(MAP_ITEM.length).split('.').filter(Boolean))
      : schemaOfPath(path, scope);
    if (schema) item.set(key.replace(/\.\$$/, ''), schema);
  }
  return item;
}

describe.each(JOBS.map((job) => [job.name, job] as const))('the %s workflow', (_name, job) => {
  const { StartAt: startAt, States: states } = workflowOf(job);
  const maps = Object.entries(states).filter(([, state]) => state.Type === 'Map');
  const tasks: TaskEntry[] = [
    ...Object.entries(states).filter(([, state]) => state.Type === 'Task'),
    ...maps.flatMap(([mapName, map]) =>
      Object.entries(map.ItemProcessor?.States ?? {})
        .filter(([, state]) => state.Type === 'Task')
        .map(([name, state]): TaskEntry => [name, state, [mapName, map]]),
    ),
  ];
  const stepOf = (state: AslState) => {
    const name = TASK_FUNCTION.exec(state.Resource ?? '')?.[1] ?? '';
    expect(name.startsWith(job.taskPrefix), `${state.Resource} belongs to ${job.taskPrefix}`).toBe(true);
    return name.slice(job.taskPrefix.length);
  };
  /** What the execution's state holds at a top-level path: the input's ref fields and each step's result. */
  const resultsByPath = new Map<string, z.ZodType>(
    Object.entries(job.ref.shape as Record<string, z.ZodType>).map(([key, schema]) => [key, schema]),
  );
  for (const [, state] of tasks) {
    const contract = job.steps[stepOf(state)];
    if (contract && typeof state.ResultPath === 'string') {
      resultsByPath.set(state.ResultPath.replace(/^\$\./, ''), contract.output);
    }
  }

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
    for (const [stateName, state, map] of tasks) {
      const scope = map ? itemScope(map[1], resultsByPath) : resultsByPath;
      const step = stepOf(state);
      if (FRAMEWORK_STEPS.includes(step)) continue;
      const input = job.steps[step]?.input as z.ZodObject;
      const parameters = state.Parameters ?? {};
      const passed = Object.keys(parameters).map((key) => key.replace(/\.\$$/, ''));
      expect(passed.sort(), stateName).toEqual(Object.keys(input.shape).sort());
      for (const [key, value] of Object.entries(parameters)) {
        expect(key.endsWith('.$'), `${stateName}.${key} is a path`).toBe(true);
        const [root = ''] = String(value).replace(/^\$\./, '').split('.');
        expect(scope.get(root), `${stateName}.${key}: nothing writes $.${root}`).toBeDefined();
        const given = schemaOfPath(String(value), scope);
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
    const catchers: [string, AslState][] = [
      ...tasks.filter(([, , map]) => !map).map(([name, state]): [string, AslState] => [name, state]),
      ...maps,
    ];
    // Inside a Map, a failure fails the Map: its Catch is the one that names it.
    for (const [stateName, state, map] of tasks) if (map) expect(state.Catch, stateName).toBeUndefined();
    for (const [stateName, state] of catchers) {
      if (state.Type === 'Task' && stepOf(state) === RECORD_FAILURE_STEP) continue;
      const [catcher] = state.Catch ?? [];
      expect(catcher, stateName).toMatchObject({ ErrorEquals: ['States.ALL'], ResultPath: '$.failure' });
      const namer = states[catcher?.Next ?? ''];
      expect(namer, stateName).toMatchObject({ Type: 'Pass', Result: stateName, ResultPath: '$.step' });
      expect(states[namer?.Next ?? '']?.Resource).toBe(
        `\${TaskFunction_${job.taskPrefix}${RECORD_FAILURE_STEP}}`,
      );
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
