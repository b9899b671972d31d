/**
 * The preflight's IAM rule: every function's role, as the templates grant it, allows every AWS action
 * the function's code can call. A call its role does not allow fails on AWS with AccessDenied, on the
 * first request that takes that path; the local stack's IAM enforcement (lib/local/access-enforcement.ts)
 * catches the paths tests take, this catches the rest, from the code alone.
 *
 * What a function runs comes from its template metadata (`video-service:runs`, set by
 * `createServiceFunction`); what that code can call, from esbuild (`lib/access/bundle-calls.ts`); what
 * each call needs, from `lib/access/sdk-calls.ts`; what the role allows, from the templates: its inline
 * policies, the `AWS::IAM::Policy` resources naming it and the customer-managed policies it attaches,
 * across nested stacks. Actions only: resources and conditions are the local enforcement's to check.
 */
import {
  type FunctionEntry,
  functionEntryOf,
  type SdkCommand,
  sdkCommandsOf,
} from '../access/bundle-calls.js';
import { matchesWildcard } from '../access/policy-evaluation.js';
import { requiredActions } from '../access/sdk-calls.js';
import { FUNCTION_RUNS_METADATA } from '../stack/service-function.js';
import type { CheckResult, Measurement } from './checks.js';
import type { CfnResource, CloudAssemblyContents, StackTemplate } from './cloud-assembly.js';
import { referencedResource } from './template-values.js';

/**
 * Calls a function's code can reach but never makes, each with the reason it is never made. Reviewed
 * like a grant; one that no longer matches a gap fails the check, so none outlives its reason.
 */
export const UNREACHED_CALLS: readonly { bundle: string; action: string; reason: string }[] = [
  ...(['dynamodb:GetItem', 'dynamodb:PutItem'] as const).map((action) => ({
    bundle: 'api/meta',
    action,
    reason:
      "The request pipeline's rate limiter reads and writes the window of a workspace's limit (rate-limiting.ts); the public OpenAPI document has no principal, so it returns before the limiter.",
  })),
  {
    bundle: 'workflows/record-job-failure',
    action: 'sqs:SendMessage',
    reason:
      "Every job's failure step runs this one bundle; only the video agent's ends a run that may have follow-ups queued, which it hands to the batch worker (video-agent-job.ts, `release`: `video_agent.next`), and its failure function has that grant (`failureAccess`). No other job's `release` sends anything.",
  },
  {
    bundle: 'workflows/admit-job',
    action: 'sqs:SendMessage',
    reason:
      "Every concurrency-limited job's Admit step runs this one bundle, which holds every job definition; Admit only reads records and takes slots, and never ends a job, so no `release` (the video agent's sends `video_agent.next`) runs in it.",
  },
];

/**
 * Services a deployment option switches off: Amazon Polly is only called where `SPEECH_ENGINE` is
 * `polly` (the engine factory picks one engine per deployment; lambdas/engines/speech/index.ts), and
 * likewise the model capabilities' AWS engines (lambdas/engines/{recognition,translation,
 * text-generation,generation}/index.ts) only where their engine variable names them.
 */
const CALLED_ONLY_WHEN: Readonly<
  Record<string, (environment: Readonly<Record<string, unknown>>) => boolean>
> = {
  polly: (environment) => environment.SPEECH_ENGINE === 'polly',
  transcribe: (environment) => environment.SPEECH_RECOGNITION_ENGINE === 'transcribe',
  translate: (environment) => environment.TRANSLATION_ENGINE === 'translate',
  bedrock: (environment) =>
    environment.TEXT_GENERATION_ENGINE === 'bedrock' || environment.MEDIA_GENERATION_ENGINE === 'bedrock',
};

interface PolicyStatementJson {
  Effect?: string;
  Action?: string | string[];
}

function allowedActions(document: unknown): string[] {
  const statements = (document as { Statement?: PolicyStatementJson[] } | undefined)?.Statement ?? [];
  return statements
    .filter((statement) => statement.Effect === 'Allow')
    .flatMap((statement) =>
      statement.Action === undefined
        ? []
        : Array.isArray(statement.Action)
          ? statement.Action
          : [statement.Action],
    );
}

/** Every action a role's policies allow: inline, `AWS::IAM::Policy` resources naming it, managed ones it attaches. */
function roleActions(assembly: CloudAssemblyContents, roleStack: StackTemplate, role: CfnResource): string[] {
  const actions = ((role.Properties?.Policies ?? []) as { PolicyDocument?: unknown }[]).flatMap((policy) =>
    allowedActions(policy.PolicyDocument),
  );
  for (const stack of assembly.stacks) {
    for (const resource of Object.values(stack.template.Resources ?? {})) {
      if (resource.Type !== 'AWS::IAM::Policy') continue;
      const roles = (resource.Properties?.Roles ?? []) as unknown[];
      if (roles.some((value) => referencedResource(stack, value)?.resource === role))
        actions.push(...allowedActions(resource.Properties?.PolicyDocument));
    }
  }
  for (const arn of (role.Properties?.ManagedPolicyArns ?? []) as unknown[]) {
    const policy = referencedResource(roleStack, arn);
    if (policy?.resource.Type === 'AWS::IAM::ManagedPolicy')
      actions.push(...allowedActions(policy.resource.Properties?.PolicyDocument));
  }
  return actions;
}

const covers = (actions: readonly string[], action: string) =>
  actions.some((allowed) => matchesWildcard(allowed, action, true));

export interface RoleCoverageOptions {
  /** The directory holding `lambdas/`, whose sources the functions' code is built from. */
  projectRoot: string;
}

/** IAM: each function's role allows every action its code can call (0 missing per function). */
export function checkRolesCoverCode(
  assembly: CloudAssemblyContents,
  options: RoleCoverageOptions,
): CheckResult {
  const commandsByEntry = new Map<string, SdkCommand[]>();
  const commandsOf = (entry: FunctionEntry, key: string) => {
    let commands = commandsByEntry.get(key);
    if (!commands) {
      commands = sdkCommandsOf(options.projectRoot, entry);
      commandsByEntry.set(key, commands);
    }
    return commands;
  };
  const acknowledged = new Set<(typeof UNREACHED_CALLS)[number]>();
  const measurements: Measurement[] = [];

  for (const stack of assembly.stacks) {
    for (const [logicalId, fn] of Object.entries(stack.template.Resources ?? {})) {
      if (fn.Type !== 'AWS::Lambda::Function') continue;
      const runs = fn.Metadata?.[FUNCTION_RUNS_METADATA] as
        | { bundle: string; exportName: string }
        | undefined;
      // Functions CDK makes itself (the custom resource provider's framework) run CDK's code with the
      // grants CDK gives them; only this service's functions (createServiceFunction) say what they run.
      if (!runs) continue;
      const role = referencedResource(stack, fn.Properties?.Role);
      if (role?.resource.Type !== 'AWS::IAM::Role') continue;
      const actions = roleActions(assembly, role.stack, role.resource);
      const environment = ((fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
        ?.Variables ?? {}) as Record<string, unknown>;
      const entry = functionEntryOf(options.projectRoot, runs.bundle, runs.exportName);
      const missing = new Set<string>();
      for (const command of commandsOf(entry, `${runs.bundle}#${runs.exportName}`)) {
        if (CALLED_ONLY_WHEN[command.service]?.(environment) === false) continue;
        for (const anyOf of requiredActions(command.service, command.operation)) {
          if (anyOf.some((action) => covers(actions, action))) continue;
          const action = anyOf.join(' or ');
          const reason = UNREACHED_CALLS.find(
            (call) => call.bundle === runs.bundle && call.action === action,
          );
          if (reason) acknowledged.add(reason);
          else missing.add(`${action} (${command.command})`);
        }
      }
      measurements.push({
        stack: stack.name,
        resource: logicalId,
        value: missing.size,
        limit: 0,
        detail: missing.size > 0 ? [...missing].join(', ') : `${runs.bundle}#${runs.exportName}`,
      });
    }
  }
  for (const call of UNREACHED_CALLS.filter((candidate) => !acknowledged.has(candidate))) {
    measurements.push({
      stack: '(preflight)',
      resource: 'UNREACHED_CALLS',
      value: 1,
      limit: 0,
      detail: `${call.bundle} ${call.action} is acknowledged but no longer missing: remove it from lib/preflight/role-coverage.ts`,
    });
  }
  return {
    measure: 'AWS actions a function can call that its role does not allow',
    unit: '',
    bound: 'max',
    measurements,
  };
}
