/**
 * The one way this stack makes a Lambda function: newest Node.js runtime, ARM64, active tracing, its
 * own log group with the deployment's retention, and an execution role passed in (shared per area).
 */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  type Code,
  Function as LambdaFunction,
  Runtime,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { BUNDLE_HANDLER } from './handler-bundles.js';

/** Newest Node.js runtime in aws-cdk-lib 2.276 (cdk-nag's AwsSolutions-L1 checks for it). */
export const FUNCTION_RUNTIME = Runtime.NODEJS_24_X;

/** The cdk-nag acknowledgement every role of a traced function needs. */
export const TRACING_WILDCARD_ACKNOWLEDGEMENT: { readonly id: string; readonly reason: string } = {
  id: 'AwsSolutions-IAM5[Resource::*]',
  reason:
    'Added by Lambda active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.',
};

export interface ServiceFunctionProps {
  code: Code;
  /** Execution role; the function's log group write permission is added to it. */
  role: IRole;
  environment: Readonly<Record<string, string>>;
  /** Shown in the console: for an API function, `METHOD /path`. */
  description: string;
  logRetention: RetentionDays;
  /** Of the log group. */
  removalPolicy: RemovalPolicy;
  /** @default Duration.seconds(28): under API Gateway's 29 s integration timeout, so the function's own timeout error is what gets logged */
  timeout?: Duration;
  /** @default 512 (MiB): bundled SDK clients initialise noticeably faster than at 128 */
  memorySize?: number;
}

export function createServiceFunction(
  scope: Construct,
  id: string,
  props: ServiceFunctionProps,
): LambdaFunction {
  const logGroup = new LogGroup(scope, `${id}Logs`, {
    retention: props.logRetention,
    removalPolicy: props.removalPolicy,
  });
  logGroup.grantWrite(props.role);
  return new LambdaFunction(scope, id, {
    runtime: FUNCTION_RUNTIME,
    architecture: Architecture.ARM_64,
    handler: BUNDLE_HANDLER,
    code: props.code,
    role: props.role,
    environment: { ...props.environment },
    description: props.description,
    timeout: props.timeout ?? Duration.seconds(28),
    memorySize: props.memorySize ?? 512,
    tracing: Tracing.ACTIVE,
    logGroup,
  });
}
