/**
 * Step Functions task functions in the local stack: the same `${TaskFunction_<Name>}` placeholders
 * the CDK stack substitutes with function ARNs are substituted here with local, ARN-shaped function
 * names, and the Step Functions emulator's `resolveTask` maps those back to the handler modules of
 * `lambdas/workflows/task-functions.ts`, run in process with the stack's environment.
 */
import {
  ADMIN_WORKFLOWS,
  JOB_WORKFLOWS,
  TASK_FUNCTIONS,
  type TaskFunctionName,
} from '../../lambdas/workflows/task-functions.js';
import type { ServiceFunctionName } from '../access/function-access.js';
import type { TaskFunction } from './emulators/index.js';
import { LOCAL_ACCOUNT } from './storage-emulators.js';

/** The local ARN standing in for the deployed function of `name`. */
export function localTaskFunctionArn(region: string, name: TaskFunctionName): string {
  return `arn:aws:lambda:${region}:${LOCAL_ACCOUNT}:function:local-${name}`;
}

/** `TaskFunction_<Name>` → local function ARN, for the emulator's `definitionSubstitutions`. */
export function localTaskSubstitutions(region: string): Record<string, string> {
  return Object.fromEntries(
    (Object.keys(TASK_FUNCTIONS) as TaskFunctionName[]).map((name) => [
      `TaskFunction_${name}`,
      localTaskFunctionArn(region, name),
    ]),
  );
}

/**
 * A `resolveTask` for the emulator: the handler behind a local task function ARN, run as its function
 * (`runAs`: the local stack checks its AWS calls against the task function's own role).
 * @throws for a resource no task function stands behind (the execution fails loudly)
 */
export function localTaskResolver(
  region: string,
  runAs: <Result>(name: ServiceFunctionName, work: () => Promise<Result>) => Promise<Result> = (
    _name,
    work,
  ) => work(),
): (resource: string) => Promise<TaskFunction> {
  const byArn = new Map(
    (Object.keys(TASK_FUNCTIONS) as TaskFunctionName[]).map((name) => [
      localTaskFunctionArn(region, name),
      name,
    ]),
  );
  return async (resource) => {
    const name = byArn.get(resource);
    const definition = name ? TASK_FUNCTIONS[name] : undefined;
    if (!definition) throw new Error(`The local stack has no task function for ${resource}`);
    const modulePath = `../../lambdas/${definition.module}.js`;
    const exportName = definition.exportName ?? 'handler';
    const module = (await import(modulePath)) as Record<string, TaskFunction | undefined>;
    const handler = module[exportName];
    if (typeof handler !== 'function') throw new Error(`${modulePath} does not export ${exportName}`);
    return (input) => runAs(`task:${name}`, () => Promise.resolve(handler(input)));
  };
}

/** The local ARN of a workflow's state machine. */
export function localWorkflowArn(region: string, workflow: string): string {
  return `arn:aws:states:${region}:${LOCAL_ACCOUNT}:stateMachine:${workflow}`;
}

/**
 * The environment naming the ARNs of the workflows: job workflows as the stack sets them on its
 * functions, admin workflows as the deployed stack's outputs give them to the admin CLI.
 */
export function localWorkflowEnvironment(region: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries({ ...JOB_WORKFLOWS, ...ADMIN_WORKFLOWS }).map(([workflow, { environmentVariable }]) => [
      environmentVariable,
      localWorkflowArn(region, workflow),
    ]),
  );
}
