/**
 * One Standard state machine per `<name>.asl.json` file of a directory (the same files the local
 * stack executes with aws-local-stepfunctions).
 *
 * Task convention: a Lambda Task state names its function with a placeholder,
 *
 *     "Resource": "${TaskFunction_RenderVideo}"
 *
 * and this construct maps `TaskFunction_<Name>` to the ARN of `taskFunctions[<Name>]` through
 * CloudFormation `DefinitionSubstitutions`, so the file deploys unchanged. Names are letters and
 * digits only: the key is an identifier in every substitution example AWS documents, and
 * asl-validator accepts a `${...}` Resource as a pre-deployment substitution.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Aws, Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';

export const DEFINITION_FILE_SUFFIX = '.asl.json';
/** `${TaskFunction_<Name>}`; the capture is `<Name>`. */
export const TASK_FUNCTION_PLACEHOLDER = /\$\{TaskFunction_([A-Za-z][A-Za-z0-9]*)\}/g;
const ANY_PLACEHOLDER = /\$\{([^}]*)\}/g;

export function substitutionKey(taskName: string): string {
  return `TaskFunction_${taskName}`;
}

/** The task function names a definition refers to, in order of first use. */
export function taskFunctionNames(definition: string): string[] {
  return [...new Set([...definition.matchAll(TASK_FUNCTION_PLACEHOLDER)].map((match) => match[1] ?? ''))];
}

/** `render-video.asl.json` → `RenderVideo`. */
function constructIdOf(fileName: string): string {
  return fileName
    .slice(0, -DEFINITION_FILE_SUFFIX.length)
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]?.toUpperCase() + word.slice(1))
    .join('');
}

/**
 * Step Functions delivers execution logs as vended logs. Under `/aws/vendedlogs/` one resource
 * policy entry covers every group; elsewhere each log group adds its ARN to the account's CloudWatch
 * Logs resource policy, which is capped at 5,120 characters, and deployments start failing once it
 * is full. The stack's id (its last ARN segment, a UUID) makes the name unique per stack instance,
 * so redeploying a deleted stack does not collide with the log groups it retained.
 */
export const VENDED_LOGS_PREFIX = '/aws/vendedlogs/states/';

function executionLogGroupName(scope: Construct, constructId: string): string {
  const stackUuid = Fn.select(2, Fn.split('/', Aws.STACK_ID));
  return `${VENDED_LOGS_PREFIX}${Stack.of(scope).stackName}-${constructId}-${stackUuid}`;
}

export interface WorkflowStateMachinesProps {
  /** Directory of `*.asl.json` definitions. A missing or empty directory yields no state machines. */
  definitionsDirectory: string;
  /** Functions Task states may call, by the `<Name>` of `${TaskFunction_<Name>}`. @default {} */
  taskFunctions?: Readonly<Record<string, IFunction>>;
  /** Retention of the execution logs. @default RetentionDays.ONE_MONTH */
  logRetention?: RetentionDays;
  /** Of the execution log groups. @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE */
  removalPolicy?: RemovalPolicy;
}

export class WorkflowStateMachines extends Construct {
  /** By definition file name without `.asl.json`. */
  readonly stateMachines: ReadonlyMap<string, StateMachine>;

  constructor(scope: Construct, id: string, props: WorkflowStateMachinesProps) {
    super(scope, id);
    const taskFunctions = props.taskFunctions ?? {};
    const files = existsSync(props.definitionsDirectory)
      ? readdirSync(props.definitionsDirectory)
          .filter((file) => file.endsWith(DEFINITION_FILE_SUFFIX))
          .sort()
      : [];
    const stateMachines = new Map<string, StateMachine>();
    for (const file of files) {
      const definition = readFileSync(path.join(props.definitionsDirectory, file), 'utf8');
      try {
        JSON.parse(definition);
      } catch (error) {
        throw new Error(`${file} is not valid JSON: ${(error as Error).message}`);
      }
      for (const [, key] of definition.matchAll(ANY_PLACEHOLDER)) {
        if (!key?.match(/^TaskFunction_[A-Za-z][A-Za-z0-9]*$/)) {
          throw new Error(
            `${file}: placeholder \${${key}} does not follow the \${TaskFunction_<Name>} convention`,
          );
        }
      }
      const names = taskFunctionNames(definition);
      const unknown = names.filter((name) => !taskFunctions[name]);
      if (unknown.length > 0) {
        throw new Error(`${file} uses task functions without a function: ${unknown.join(', ')}`);
      }
      const used = names.map((name) => [name, taskFunctions[name] as IFunction] as const);

      const constructId = constructIdOf(file);
      const stateMachine = new StateMachine(this, constructId, {
        stateMachineType: StateMachineType.STANDARD,
        definitionBody: DefinitionBody.fromString(definition),
        definitionSubstitutions: Object.fromEntries(
          used.map(([name, fn]) => [substitutionKey(name), fn.functionArn]),
        ),
        tracingEnabled: true,
        logs: {
          destination: new LogGroup(this, `${constructId}Logs`, {
            logGroupName: executionLogGroupName(this, constructId),
            retention: props.logRetention ?? RetentionDays.ONE_MONTH,
            removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
          }),
          level: LogLevel.ALL,
          // Inputs and outputs carry customer content (scripts, URLs): keep them out of the logs.
          includeExecutionData: false,
        },
      });
      if (used.length > 0) {
        // Unqualified function ARNs only (not `fn.grantInvoke`, which adds `<arn>:*` for versions):
        // Task states call $LATEST.
        stateMachine.addToRolePolicy(
          new PolicyStatement({
            actions: ['lambda:InvokeFunction'],
            resources: used.map(([, fn]) => fn.functionArn),
          }),
        );
      }
      Validations.of(stateMachine).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Added by the logging and tracing configuration: CloudWatch Logs delivery (logs:*LogDelivery*) and X-Ray actions support no resource-level permissions.',
      });
      stateMachines.set(file.slice(0, -DEFINITION_FILE_SUFFIX.length), stateMachine);
    }
    this.stateMachines = stateMachines;
  }
}
