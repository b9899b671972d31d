/**
 * The one way this stack makes a Lambda function: newest Node.js runtime, ARM64, active tracing, its
 * own log group with the deployment's retention, and an execution role passed in (shared per area).
 * A function is a zip bundle (`HandlerBundles`) or, where its packages need it, the media container
 * image (`MediaImage`, same Node.js version and architecture).
 */
import { type CfnResource, Duration, type RemovalPolicy, type Size } from 'aws-cdk-lib';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  Code,
  type DockerImageCode,
  DockerImageFunction,
  Function as LambdaFunction,
  Runtime,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { BUNDLE_HANDLER } from './handler-bundles.js';

/** Newest Node.js runtime in aws-cdk-lib 2.276 (cdk-nag's AwsSolutions-L1 checks for it). */
export const FUNCTION_RUNTIME = Runtime.NODEJS_24_X;

/** Every function's architecture (Graviton: cheaper per GB-second than x86-64). */
export const FUNCTION_ARCHITECTURE = Architecture.ARM_64;

/** The cdk-nag acknowledgement every role of a traced function needs. */
export const TRACING_WILDCARD_ACKNOWLEDGEMENT: { readonly id: string; readonly reason: string } = {
  id: 'AwsSolutions-IAM5[Resource::*]',
  reason:
    'Added by Lambda active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.',
};

/**
 * One acknowledgement of a finding with several causes: cdk-nag reports `Resource::*` once per
 * policy, so when tracing is not the only wildcard on a role, its reason must name every cause.
 */
export function withWildcardReasons(
  acknowledgement: { readonly id: string; readonly reason: string },
  ...reasons: readonly string[]
): { id: string; reason: string } {
  return { id: acknowledgement.id, reason: [acknowledgement.reason, ...reasons].join(' ') };
}

export interface ServiceFunctionProps {
  /** A zip bundle (`HandlerBundles.codeFor`) or the media image (`MediaImage.codeFor`). */
  code: Code | DockerImageCode;
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
  /** Size of `/tmp`. @default 512 MiB (Lambda's default) */
  ephemeralStorageSize?: Size;
  /**
   * What the function runs: its bundle (`lambdas/<bundle>.ts`, or an area's generated entry `api/<area>`)
   * and the export that handles its events (several functions may share a bundle; default `handler`).
   * Recorded in the function's template metadata ({@link FUNCTION_RUNS_METADATA}), where the deploy
   * preflight finds which code each role must cover.
   */
  runs: FunctionRuns;
}

export interface FunctionRuns {
  bundle: string;
  exportName?: string;
}

/** The template metadata key of a function's {@link FunctionRuns}. */
export const FUNCTION_RUNS_METADATA = 'video-service:runs';

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
  const common = {
    architecture: FUNCTION_ARCHITECTURE,
    role: props.role,
    environment: { ...props.environment },
    description: props.description,
    timeout: props.timeout ?? Duration.seconds(28),
    memorySize: props.memorySize ?? 512,
    ephemeralStorageSize: props.ephemeralStorageSize,
    tracing: Tracing.ACTIVE,
    logGroup,
  };
  const exportName = props.runs.exportName ?? 'handler';
  // DockerImageCode factories return plain objects, so the zip Code class is the one to test for.
  const fn =
    props.code instanceof Code
      ? new LambdaFunction(scope, id, {
          ...common,
          runtime: FUNCTION_RUNTIME,
          handler: exportName === 'handler' ? BUNDLE_HANDLER : `index.${exportName}`,
          code: props.code,
        })
      : new DockerImageFunction(scope, id, { ...common, code: props.code });
  (fn.node.defaultChild as CfnResource).addMetadata(FUNCTION_RUNS_METADATA, {
    bundle: props.runs.bundle,
    exportName,
  });
  return fn;
}
