/**
 * The Lambda functions behind Step Functions Task states, one per entry of
 * `lambdas/workflows/task-functions.ts`, each with its own execution role holding exactly the
 * grants its entry names (`grant-statements.ts`).
 *
 * Packaging: a definition's `packaging` is `zip` (a `HandlerBundles` bundle) or `media-image` (the
 * media container image, `media-image.ts`, with the definition's module and export as its CMD);
 * memory and timeout come from the definition. A job's steps share their module's bundle, each
 * function running its own export.
 */
import { Duration, type RemovalPolicy, Size } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { TASK_PACKAGING } from '../../lambdas/jobs/task-deployment.js';
import {
  TASK_FUNCTIONS,
  type TaskFunctionDefinition,
  type TaskFunctionName,
} from '../../lambdas/workflows/task-functions.js';
import { type GrantTargets, grantToRole } from './grant-statements.js';
import type { HandlerBundles } from './handler-bundles.js';
import type { MediaImage } from './media-image.js';
import { MODEL_ENGINE_GRANTS, modelEngineEnvironment } from './model-engines.js';
import { createServiceFunction } from './service-function.js';
import type { ModelCapability } from './service-options.js';

/** Scratch space of the media image's functions: inputs (uploads up to 1 GiB each) and renders. */
export const MEDIA_IMAGE_EPHEMERAL_STORAGE = Size.gibibytes(10);

const DEFAULT_MEMORY_MB = 256;
const DEFAULT_TIMEOUT_SECONDS = 30;

const definitions = Object.entries(TASK_FUNCTIONS) as [TaskFunctionName, TaskFunctionDefinition][];

function isMediaImage(definition: TaskFunctionDefinition): boolean {
  return definition.packaging === TASK_PACKAGING.mediaImage;
}

/** Task modules bundled as zips, for `HandlerBundles`. */
export const TASK_FUNCTION_MODULES: readonly string[] = [
  ...new Set(definitions.filter(([, definition]) => !isMediaImage(definition)).map(([, d]) => d.module)),
];

/** Task modules served by the media image, for `MediaImage`. */
export const MEDIA_IMAGE_TASK_MODULES: readonly string[] = [
  ...new Set(definitions.filter(([, definition]) => isMediaImage(definition)).map(([, d]) => d.module)),
];

export interface WorkflowTaskFunctionsProps {
  bundles: HandlerBundles;
  /** Holds every module of {@link MEDIA_IMAGE_TASK_MODULES}. */
  mediaImage: MediaImage;
  /** Environment of every task function (what `lambdas/core/config.ts` reads). */
  environment: Readonly<Record<string, string>>;
  /** What the entries' grants name (no job workflows: they are built from these functions). */
  grantTargets: GrantTargets;
  logRetention: RetentionDays;
  /** Of the log groups. */
  removalPolicy: RemovalPolicy;
}

/** The settings of the model capabilities whose grants a step has (the grant and its settings go together). */
function modelEnvironment(access: readonly string[], targets: GrantTargets): Record<string, string> {
  if (!targets.modelEngines) return {};
  const capabilities = (Object.keys(MODEL_ENGINE_GRANTS) as ModelCapability[]).filter((capability) =>
    access.includes(MODEL_ENGINE_GRANTS[capability]),
  );
  return modelEngineEnvironment(targets.modelEngines, capabilities);
}

export class WorkflowTaskFunctions extends Construct {
  /** By the `<Name>` of `${TaskFunction_<Name>}`. */
  readonly functions: Readonly<Record<TaskFunctionName, LambdaFunction>>;

  constructor(scope: Construct, id: string, props: WorkflowTaskFunctionsProps) {
    super(scope, id);
    const functions: Partial<Record<TaskFunctionName, LambdaFunction>> = {};
    for (const [name, definition] of definitions) {
      const role = new Role(this, `${name}Role`, {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
        description: definition.description,
      });
      grantToRole(role, definition.access, props.grantTargets);
      const mediaImage = isMediaImage(definition);
      const exportName = definition.exportName ?? 'handler';
      functions[name] = createServiceFunction(this, name, {
        code: mediaImage
          ? props.mediaImage.codeFor(definition.module, exportName)
          : props.bundles.codeFor(this, definition.module),
        runs: { bundle: definition.module, exportName },
        role,
        environment: { ...props.environment, ...modelEnvironment(definition.access, props.grantTargets) },
        description: definition.description,
        logRetention: props.logRetention,
        removalPolicy: props.removalPolicy,
        timeout: Duration.seconds(definition.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
        memorySize: definition.memorySize ?? DEFAULT_MEMORY_MB,
        ...(mediaImage ? { ephemeralStorageSize: MEDIA_IMAGE_EPHEMERAL_STORAGE } : {}),
      });
    }
    this.functions = functions as Record<TaskFunctionName, LambdaFunction>;
  }
}
