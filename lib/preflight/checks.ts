/**
 * The deploy preflight's checks: each reads the assembly's templates and returns what it measured,
 * value against limit, for every stack or resource it applies to. Limits are CloudFormation's, API
 * Gateway's, Lambda's, IAM's and Step Functions' documented quotas (the default values of adjustable
 * ones); a value past its limit is what would fail `cdk deploy` halfway, or (the queue rule) what AWS
 * documents as needed for the service to work.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import {
  assetNamedIn,
  type CfnResource,
  type CloudAssemblyContents,
  type StackTemplate,
} from './cloud-assembly.js';
import { checkRolesCoverCode, type RoleCoverageOptions } from './role-coverage.js';
import { byteLength, referencedResource, resolvedForSizing, sizedString } from './template-values.js';

/** One value measured against its limit. */
export interface Measurement {
  /** Top-level or nested stack name. */
  stack: string;
  /** Logical id, or `(template)` for a measure of the whole template. */
  resource: string;
  value: number;
  limit: number;
  /** What the value is made of, where the resource alone does not say (a ratio's operands, the asset). */
  detail?: string;
}

export interface CheckResult {
  /** What is measured, as the report's row names it. */
  measure: string;
  /** Unit of the values, as the report prints it after them (`''` for a plain count). */
  unit: '' | 'bytes' | 'characters' | '× function timeout';
  /** `max`: the value must not exceed the limit; `min`: it must reach it. */
  bound: 'max' | 'min';
  measurements: Measurement[];
  /** Why some of what the check covers could not be measured (the report says so instead of passing). */
  notMeasured?: string;
}

export function passes(check: Pick<CheckResult, 'bound'>, measurement: Measurement): boolean {
  return check.bound === 'max'
    ? measurement.value <= measurement.limit
    : measurement.value >= measurement.limit;
}

function resourcesOf(stack: StackTemplate, type: string): [string, CfnResource][] {
  return Object.entries(stack.template.Resources ?? {}).filter(([, resource]) => resource.Type === type);
}

/** CloudFormation: 500 resources per template; a nested stack is its own template. */
export function checkResourceCount(assembly: CloudAssemblyContents): CheckResult {
  return templateCount(assembly, 'resources per stack', 'Resources', 500);
}

/** CloudFormation: 200 outputs per template. */
export function checkOutputCount(assembly: CloudAssemblyContents): CheckResult {
  return templateCount(assembly, 'outputs per stack', 'Outputs', 200);
}

/** CloudFormation: 200 parameters per template (nested stacks receive their references as parameters). */
export function checkParameterCount(assembly: CloudAssemblyContents): CheckResult {
  return templateCount(assembly, 'parameters per stack', 'Parameters', 200);
}

function templateCount(
  assembly: CloudAssemblyContents,
  measure: string,
  section: 'Resources' | 'Outputs' | 'Parameters',
  limit: number,
): CheckResult {
  return {
    measure,
    unit: '',
    bound: 'max',
    measurements: assembly.stacks.map((stack) => ({
      stack: stack.name,
      resource: '(template)',
      value: Object.keys(stack.template[section] ?? {}).length,
      limit,
    })),
  };
}

/** CloudFormation: 1 MB for a template read from S3, 51,200 bytes for one sent inline. */
export function checkTemplateBodySize(assembly: CloudAssemblyContents): CheckResult {
  return {
    measure: 'template body size',
    unit: 'bytes',
    bound: 'max',
    measurements: assembly.stacks.map((stack) => ({
      stack: stack.name,
      resource: '(template)',
      value: stack.bodyBytes,
      limit: stack.uploadedToS3 ? 1_048_576 : 51_200,
      detail: stack.uploadedToS3 ? 'from S3' : 'inline',
    })),
  };
}

/**
 * API Gateway: 300 resources per REST API (adjustable). They are counted across every stack that adds
 * to the API (the area stacks receive its id as a parameter), plus the root resource `/`.
 */
export function checkApiResourceCount(assembly: CloudAssemblyContents): CheckResult {
  const counts = new Map<string, Measurement>();
  for (const stack of assembly.stacks) {
    for (const [, resource] of resourcesOf(stack, 'AWS::ApiGateway::Resource')) {
      const api = referencedResource(stack, resource.Properties?.RestApiId);
      if (!api) continue;
      const key = `${api.stack.name}/${api.logicalId}`;
      const counted = counts.get(key) ?? {
        stack: api.stack.name,
        resource: api.logicalId,
        value: 1,
        limit: 300,
      };
      counted.value += 1;
      counts.set(key, counted);
    }
  }
  for (const stack of assembly.stacks) {
    for (const [logicalId] of resourcesOf(stack, 'AWS::ApiGateway::RestApi')) {
      const key = `${stack.name}/${logicalId}`;
      if (!counts.has(key)) counts.set(key, { stack: stack.name, resource: logicalId, value: 1, limit: 300 });
    }
  }
  return {
    measure: 'API Gateway resources per REST API',
    unit: '',
    bound: 'max',
    measurements: [...counts.values()],
  };
}

/**
 * Lambda: 4 KB for a function's environment variables, measured as their JSON (`{"KEY":"value",...}`),
 * with values only known at deploy time at their allowance (template-values.ts).
 */
export function checkEnvironmentSize(assembly: CloudAssemblyContents): CheckResult {
  const measurements: Measurement[] = [];
  for (const stack of assembly.stacks) {
    for (const [logicalId, resource] of resourcesOf(stack, 'AWS::Lambda::Function')) {
      const environment = resource.Properties?.Environment as { Variables?: unknown } | undefined;
      if (!environment?.Variables) continue;
      measurements.push({
        stack: stack.name,
        resource: logicalId,
        value: byteLength(JSON.stringify(resolvedForSizing(stack, environment.Variables))),
        limit: 4096,
      });
    }
  }
  return { measure: 'Lambda environment variables', unit: 'bytes', bound: 'max', measurements };
}

/** IAM counts a policy's characters without whitespace: the minified JSON of the resolved document. */
function policyCharacters(stack: StackTemplate, document: unknown): number {
  return JSON.stringify(resolvedForSizing(stack, document)).length;
}

/**
 * IAM: 10,240 characters for all of a role's inline policies together. CDK's `AWS::IAM::Policy`
 * resources are inline policies of the roles they name, so they count with the role's own `Policies`.
 */
export function checkRoleInlinePolicySize(assembly: CloudAssemblyContents): CheckResult {
  const totals = new Map<CfnResource, Measurement>();
  const totalOf = (stack: StackTemplate, logicalId: string, role: CfnResource): Measurement => {
    let total = totals.get(role);
    if (!total) {
      total = { stack: stack.name, resource: logicalId, value: 0, limit: 10_240 };
      totals.set(role, total);
    }
    return total;
  };
  for (const stack of assembly.stacks) {
    for (const [logicalId, role] of resourcesOf(stack, 'AWS::IAM::Role')) {
      const total = totalOf(stack, logicalId, role);
      const policies = (role.Properties?.Policies ?? []) as { PolicyDocument?: unknown }[];
      for (const policy of policies) total.value += policyCharacters(stack, policy.PolicyDocument);
    }
  }
  for (const stack of assembly.stacks) {
    for (const [, policy] of resourcesOf(stack, 'AWS::IAM::Policy')) {
      const size = policyCharacters(stack, policy.Properties?.PolicyDocument);
      for (const roleValue of (policy.Properties?.Roles ?? []) as unknown[]) {
        const role = referencedResource(stack, roleValue);
        if (role?.resource.Type === 'AWS::IAM::Role')
          totalOf(role.stack, role.logicalId, role.resource).value += size;
      }
    }
  }
  return {
    measure: 'IAM role inline policies (total)',
    unit: 'characters',
    bound: 'max',
    measurements: [...totals.values()],
  };
}

/** IAM: 6,144 characters for a customer managed policy. */
export function checkManagedPolicySize(assembly: CloudAssemblyContents): CheckResult {
  const measurements = assembly.stacks.flatMap((stack) =>
    resourcesOf(stack, 'AWS::IAM::ManagedPolicy').map(([logicalId, policy]) => ({
      stack: stack.name,
      resource: logicalId,
      value: policyCharacters(stack, policy.Properties?.PolicyDocument),
      limit: 6_144,
    })),
  );
  return { measure: 'IAM managed policy', unit: 'characters', bound: 'max', measurements };
}

/** Name properties with a length limit, by resource type. */
const NAME_LIMITS: readonly { type: string; property: string; limit: number }[] = [
  { type: 'AWS::Lambda::Function', property: 'FunctionName', limit: 64 },
  { type: 'AWS::IAM::Role', property: 'RoleName', limit: 64 },
  { type: 'AWS::Logs::LogGroup', property: 'LogGroupName', limit: 512 },
  { type: 'AWS::StepFunctions::StateMachine', property: 'StateMachineName', limit: 80 },
];

/** Names set explicitly (generated ones stay within their limits by construction). */
export function checkNameLengths(assembly: CloudAssemblyContents): CheckResult {
  const measurements: Measurement[] = [];
  for (const stack of assembly.stacks) {
    for (const { type, property, limit } of NAME_LIMITS) {
      for (const [logicalId, resource] of resourcesOf(stack, type)) {
        const name = resource.Properties?.[property];
        if (name === undefined) continue;
        const sized = sizedString(stack, name);
        measurements.push({
          stack: stack.name,
          resource: logicalId,
          value: sized.length,
          limit,
          detail: property,
        });
      }
    }
  }
  return { measure: 'explicit name length', unit: 'characters', bound: 'max', measurements };
}

/**
 * Lambda documents 50 MB for a zip uploaded directly and 250 MB for its contents unzipped. CloudFormation
 * deploys code from S3, where only the unzipped limit binds; the zipped one is held as a ceiling that
 * keeps every bundle deployable by direct upload too (`aws lambda update-function-code --zip-file`).
 */
const ZIPPED_LIMIT = 50 * 1024 * 1024;
const UNZIPPED_LIMIT = 250 * 1024 * 1024;

/** Bytes a zip adds per file besides its name: local header (30), data descriptor (16), central entry (46). */
const ZIP_ENTRY_OVERHEAD = 30 + 16 + 46;
/** Bytes a zip adds once: the end of central directory record. */
const ZIP_END_RECORD = 22;

interface DirectorySize {
  unzipped: number;
  zipped: number;
}

/**
 * Sizes of the zip the CLI will make of an asset directory (cdk-assets zips with zlib level 9): each
 * file deflated at level 9, plus the zip's records for it, its name twice (local and central).
 */
function zipSizeOf(directory: string): DirectorySize {
  const size: DirectorySize = { unzipped: 0, zipped: ZIP_END_RECORD };
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(full);
        continue;
      }
      const name = byteLength(path.relative(directory, full));
      size.unzipped += statSync(full).size;
      size.zipped += deflateRawSync(readFileSync(full), { level: 9 }).length + ZIP_ENTRY_OVERHEAD + 2 * name;
    }
  };
  walk(directory);
  return size;
}

/**
 * Lambda: 50 MB zipped and 250 MB unzipped for a function's code, measured on the zip assets of the
 * assembly (a prebuilt `.zip` asset: zipped only). Functions with inline code (an assembly synthesized
 * without bundling) or code from outside the assembly are reported as not measured; container image
 * functions are out of scope (their limit is the image's, 10 GB).
 */
export function checkLambdaCodeSize(assembly: CloudAssemblyContents): CheckResult[] {
  const sizes = new Map<string, DirectorySize>();
  const zipped: Measurement[] = [];
  const unzipped: Measurement[] = [];
  let functions = 0;
  let inline = 0;
  let elsewhere = 0;
  for (const stack of assembly.stacks) {
    for (const [logicalId, resource] of resourcesOf(stack, 'AWS::Lambda::Function')) {
      const code = (resource.Properties?.Code ?? {}) as Record<string, unknown>;
      if (code.ImageUri !== undefined) continue;
      functions += 1;
      if (code.ZipFile !== undefined) {
        inline += 1;
        continue;
      }
      const asset = assetNamedIn(code.S3Key, assembly.assetsByObjectKey);
      if (!asset) {
        elsewhere += 1;
        continue;
      }
      let size = sizes.get(asset.sourcePath);
      if (!size) {
        size =
          asset.packaging === 'zip'
            ? zipSizeOf(asset.sourcePath)
            : { zipped: statSync(asset.sourcePath).size, unzipped: Number.NaN };
        sizes.set(asset.sourcePath, size);
      }
      const detail = path.basename(asset.sourcePath);
      zipped.push({
        stack: stack.name,
        resource: logicalId,
        value: size.zipped,
        limit: ZIPPED_LIMIT,
        detail,
      });
      if (!Number.isNaN(size.unzipped))
        unzipped.push({
          stack: stack.name,
          resource: logicalId,
          value: size.unzipped,
          limit: UNZIPPED_LIMIT,
          detail,
        });
    }
  }
  const unmeasured = [
    ...(inline > 0
      ? [`${inline} of ${functions} functions have inline code (assembly synthesized without bundling)`]
      : []),
    ...(elsewhere > 0 ? [`${elsewhere} of ${functions} functions have code from outside the assembly`] : []),
  ];
  const notMeasured = unmeasured.length > 0 ? `${unmeasured.join('; ')}: not measured` : undefined;
  return [
    {
      measure: 'Lambda code, zipped',
      unit: 'bytes',
      bound: 'max',
      measurements: zipped,
      ...(notMeasured ? { notMeasured } : {}),
    },
    {
      measure: 'Lambda code, unzipped',
      unit: 'bytes',
      bound: 'max',
      measurements: unzipped,
      ...(notMeasured ? { notMeasured } : {}),
    },
  ];
}

/**
 * SQS and Lambda: AWS asks for a source queue's visibility timeout of at least six times the consuming
 * function's timeout, so a message a throttled or retried batch still holds does not become visible to
 * another poller meanwhile. (Below 1×, CloudFormation refuses the event source mapping outright.)
 * Defaults when unset: 30 s visibility, 3 s function timeout.
 */
export function checkQueueVisibilityTimeout(assembly: CloudAssemblyContents): CheckResult {
  const measurements: Measurement[] = [];
  for (const stack of assembly.stacks) {
    for (const [logicalId, mapping] of resourcesOf(stack, 'AWS::Lambda::EventSourceMapping')) {
      const queue = referencedResource(stack, mapping.Properties?.EventSourceArn);
      const consumer = referencedResource(stack, mapping.Properties?.FunctionName);
      if (queue?.resource.Type !== 'AWS::SQS::Queue' || consumer?.resource.Type !== 'AWS::Lambda::Function')
        continue;
      const visibility = Number(queue.resource.Properties?.VisibilityTimeout ?? 30);
      const timeout = Number(consumer.resource.Properties?.Timeout ?? 3);
      measurements.push({
        stack: stack.name,
        resource: logicalId,
        value: Math.round((visibility / timeout) * 100) / 100,
        limit: 6,
        detail: `${queue.logicalId} ${visibility} s / ${consumer.logicalId} ${timeout} s`,
      });
    }
  }
  return { measure: 'SQS visibility timeout', unit: '× function timeout', bound: 'min', measurements };
}

/** A `${name}` placeholder of a definition (CloudFormation's DefinitionSubstitutions syntax). */
const PLACEHOLDER = /\$\{([^}]+)\}/g;

/**
 * Step Functions: every `${name}` of a state machine's definition (the ASL file, as the stack
 * inlines it) needs a DefinitionSubstitutions entry; CloudFormation leaves an unknown one in place and
 * the state machine fails when it reaches it.
 */
export function checkDefinitionSubstitutions(assembly: CloudAssemblyContents): CheckResult {
  const measurements: Measurement[] = [];
  for (const stack of assembly.stacks) {
    for (const [logicalId, machine] of resourcesOf(stack, 'AWS::StepFunctions::StateMachine')) {
      const properties = machine.Properties ?? {};
      const definition =
        typeof properties.DefinitionString === 'string'
          ? properties.DefinitionString
          : JSON.stringify(properties.DefinitionString ?? properties.Definition ?? '');
      const substitutions = new Set(Object.keys((properties.DefinitionSubstitutions ?? {}) as object));
      const missing = [
        ...new Set([...definition.matchAll(PLACEHOLDER)].map((match) => match[1] ?? '')),
      ].filter((name) => !substitutions.has(name));
      measurements.push({
        stack: stack.name,
        resource: logicalId,
        value: missing.length,
        limit: 0,
        ...(missing.length > 0 ? { detail: missing.join(', ') } : {}),
      });
    }
  }
  return { measure: 'ASL placeholders without substitution', unit: '', bound: 'max', measurements };
}

/**
 * API Gateway's control plane allows a few `CreateResource` and `PutMethod` calls per second per account
 * (about 5). Nested stacks with nothing ordering them are created at once; each creates its API
 * resources and methods in parallel, and past a handful of them the calls meet the quota: 429s fail
 * the deploy, and can fail its rollback as well. The limit is a judgement, not a documented quota: 4
 * stacks of this API's size (up to a dozen methods each) keep the calls within what CloudFormation's
 * own retries absorb.
 */
export const API_STACKS_AT_ONCE_LIMIT = 4;

const API_GATEWAY_CONTROL_PLANE_TYPES = new Set(['AWS::ApiGateway::Resource', 'AWS::ApiGateway::Method']);

/** Logical ids a template value names: `Ref`, `Fn::GetAtt` and the `${Name}` / `${Name.Attribute}` of `Fn::Sub`. */
function referencedLogicalIds(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) referencedLogicalIds(item, into);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'Ref' && typeof inner === 'string') into.add(inner);
      else if (key === 'Fn::GetAtt' && Array.isArray(inner)) into.add(String(inner[0]));
      else if (key === 'Fn::GetAtt' && typeof inner === 'string') into.add(inner.split('.')[0] ?? inner);
      else if (key === 'Fn::Sub') {
        const text = Array.isArray(inner) ? inner[0] : inner;
        if (typeof text === 'string')
          for (const match of text.matchAll(/\$\{([^!}.][^}.]*)(?:\.[^}]*)?\}/g)) into.add(match[1] ?? '');
        if (Array.isArray(inner)) referencedLogicalIds(inner[1], into);
      } else referencedLogicalIds(inner, into);
    }
  }
  return into;
}

/** What each resource of a template waits for before CloudFormation creates it: `DependsOn` and references. */
function creationDependencies(stack: StackTemplate): Map<string, Set<string>> {
  const resources = stack.template.Resources ?? {};
  const dependencies = new Map<string, Set<string>>();
  for (const [logicalId, resource] of Object.entries(resources)) {
    const dependsOn = resource.DependsOn === undefined ? [] : [resource.DependsOn].flat();
    const named = referencedLogicalIds(resource.Properties, new Set(dependsOn));
    dependencies.set(logicalId, new Set([...named].filter((id) => id in resources && id !== logicalId)));
  }
  return dependencies;
}

/**
 * The most of `nodes` no ordering separates (the widest antichain of the partial order `before`):
 * by Dilworth's theorem, the nodes minus a maximum matching of "u comes before v" (Kuhn's algorithm).
 */
function widestUnordered(nodes: readonly string[], before: (u: string, v: string) => boolean): number {
  const matchedTo = new Map<string, string>();
  const augment = (u: string, seen: Set<string>): boolean => {
    for (const v of nodes) {
      if (!before(u, v) || seen.has(v)) continue;
      seen.add(v);
      const current = matchedTo.get(v);
      if (current === undefined || augment(current, seen)) {
        matchedTo.set(v, u);
        return true;
      }
    }
    return false;
  };
  let matching = 0;
  for (const u of nodes) if (augment(u, new Set())) matching++;
  return nodes.length - matching;
}

/**
 * The most nested stacks holding API Gateway resources or methods that CloudFormation could be creating
 * at the same time: per parent stack, the widest set of them with no ordering (`DependsOn` or a
 * reference, through any chain of resources) between any two.
 */
export function checkApiStacksAtOnce(assembly: CloudAssemblyContents): CheckResult {
  const measurements: Measurement[] = [];
  for (const parent of assembly.stacks) {
    const apiStacks = assembly.stacks
      .filter(
        (nested) =>
          nested.parent?.stack === parent &&
          Object.values(nested.template.Resources ?? {}).some((resource) =>
            API_GATEWAY_CONTROL_PLANE_TYPES.has(resource.Type),
          ),
      )
      .map((nested) => nested.parent?.logicalId ?? '');
    if (apiStacks.length === 0) continue;
    const dependencies = creationDependencies(parent);
    const reachable = new Map<string, Set<string>>();
    const upstream = (logicalId: string): Set<string> => {
      let found = reachable.get(logicalId);
      if (found) return found;
      found = new Set();
      reachable.set(logicalId, found);
      for (const dependency of dependencies.get(logicalId) ?? []) {
        found.add(dependency);
        for (const further of upstream(dependency)) found.add(further);
      }
      return found;
    };
    measurements.push({
      stack: parent.name,
      resource: '(nested stacks)',
      value: widestUnordered(apiStacks, (u, v) => upstream(v).has(u)),
      limit: API_STACKS_AT_ONCE_LIMIT,
      detail: `${apiStacks.length} nested stacks with API Gateway resources`,
    });
  }
  return { measure: 'API stacks created at once', unit: '', bound: 'max', measurements };
}

/**
 * `DeletionPolicy: Retain` keeps a resource even when the stack's first create fails and rolls back:
 * the table, buckets, keys, queues and log groups of a deploy that never worked stay behind, and the
 * next attempt may collide with their names. `RetainExceptOnCreate` keeps them from then on only.
 */
export function checkRetainedOnFailedCreate(assembly: CloudAssemblyContents): CheckResult {
  return {
    measure: 'resources a failed first create orphans',
    unit: '',
    bound: 'max',
    measurements: assembly.stacks.map((stack) => {
      const retained = Object.entries(stack.template.Resources ?? {})
        .filter(([, resource]) => resource.DeletionPolicy === 'Retain')
        .map(([logicalId]) => logicalId);
      return {
        stack: stack.name,
        resource: '(template)',
        value: retained.length,
        limit: 0,
        ...(retained.length > 0
          ? {
              detail: `DeletionPolicy Retain: ${retained.slice(0, 5).join(', ')}${retained.length > 5 ? ', ...' : ''}`,
            }
          : {}),
      };
    }),
  };
}

/** Every check, in the report's order. */
export function runChecks(assembly: CloudAssemblyContents, options: RoleCoverageOptions): CheckResult[] {
  return [
    checkResourceCount(assembly),
    checkOutputCount(assembly),
    checkParameterCount(assembly),
    checkTemplateBodySize(assembly),
    checkApiResourceCount(assembly),
    checkApiStacksAtOnce(assembly),
    checkEnvironmentSize(assembly),
    checkRoleInlinePolicySize(assembly),
    checkManagedPolicySize(assembly),
    checkNameLengths(assembly),
    ...checkLambdaCodeSize(assembly),
    checkQueueVisibilityTimeout(assembly),
    checkDefinitionSubstitutions(assembly),
    checkRetainedOnFailedCreate(assembly),
    checkRolesCoverCode(assembly, options),
  ];
}
