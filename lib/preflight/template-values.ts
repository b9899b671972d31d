/**
 * Template values as the checks need them: which resource a reference points at (across nested-stack
 * parameters), and how long a value will be once CloudFormation resolves it.
 */
import type { CfnResource, StackTemplate } from './cloud-assembly.js';

/** A resource a template value points at, in the stack that declares it. */
export interface ResourceReference {
  stack: StackTemplate;
  logicalId: string;
  resource: CfnResource;
}

function singleKey(value: unknown): [string, unknown] | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value);
  return entries.length === 1 ? entries[0] : undefined;
}

/**
 * The resource `{ Ref }` or `{ Fn::GetAtt }` points at. A `Ref` to a nested stack's parameter is
 * followed to the value its parent passes, so a queue ARN handed to a nested stack still names the queue.
 */
export function referencedResource(stack: StackTemplate, value: unknown): ResourceReference | undefined {
  const [intrinsic, argument] = singleKey(value) ?? [];
  let logicalId: string | undefined;
  if (intrinsic === 'Ref' && typeof argument === 'string') logicalId = argument;
  else if (intrinsic === 'Fn::GetAtt' && Array.isArray(argument)) logicalId = String(argument[0]);
  else if (intrinsic === 'Fn::GetAtt' && typeof argument === 'string') logicalId = argument.split('.')[0];
  if (!logicalId) return undefined;

  const resource = stack.template.Resources?.[logicalId];
  if (resource) return { stack, logicalId, resource };
  if (intrinsic === 'Ref' && stack.parent && stack.template.Parameters?.[logicalId] !== undefined) {
    const { stack: parent, logicalId: stackResource } = stack.parent;
    const passed = parent.template.Resources?.[stackResource]?.Properties?.Parameters as
      | Record<string, unknown>
      | undefined;
    return referencedResource(parent, passed?.[logicalId]);
  }
  return undefined;
}

/**
 * Length allowed for a value only known at deploy time (a generated name, an ARN, a URL). Generated
 * physical names are `<stack>-<logical id prefix>-<13 random characters>`, and ARNs add ~50 characters
 * of partition, service, region and account: 128 covers this stack's, whose stack name is short. A
 * longer stack name (`-c stackName=...`) lengthens them all; the preflight uses the real one where
 * the template says `AWS::StackName`.
 */
export const UNRESOLVED_VALUE_LENGTH = 128;

/** Longest value of each pseudo parameter across the commercial, China and GovCloud partitions. */
const PSEUDO_PARAMETER_LENGTHS: Readonly<Record<string, number>> = {
  'AWS::AccountId': 12,
  'AWS::Partition': 'aws-us-gov'.length,
  'AWS::Region': 'ap-southeast-4'.length,
  'AWS::URLSuffix': 'amazonaws.com.cn'.length,
  'AWS::NoValue': 0,
};

/**
 * `value` with every intrinsic function replaced by a string of the length it may resolve to, so the
 * size of a resolved environment, policy or name can be measured before deployment: literal parts
 * count as written, pseudo parameters at their longest, `AWS::StackName` as the stack's name (a
 * nested stack's is generated: the allowance), and anything else at {@link UNRESOLVED_VALUE_LENGTH}.
 */
export function resolvedForSizing(stack: StackTemplate, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => resolvedForSizing(stack, item));
  if (typeof value !== 'object' || value === null) return value;
  const [key, argument] = singleKey(value) ?? [];
  if (key === 'Ref' && typeof argument === 'string') return placeholder(referenceLength(stack, argument));
  if (key === 'Fn::Join' && Array.isArray(argument)) {
    const [separator, parts] = argument;
    if (typeof separator === 'string' && Array.isArray(parts))
      return parts.map((part) => sizedString(stack, part)).join(separator);
  }
  if (key === 'Fn::Sub') {
    const template = Array.isArray(argument) ? argument[0] : argument;
    if (typeof template === 'string')
      return template.replace(/\$\{([^}!][^}]*)\}/g, (_, name: string) =>
        placeholder(name.includes('.') ? UNRESOLVED_VALUE_LENGTH : referenceLength(stack, name)),
      );
  }
  if (key?.startsWith('Fn::')) return placeholder(UNRESOLVED_VALUE_LENGTH);
  return Object.fromEntries(
    Object.entries(value).map(([name, item]) => [name, resolvedForSizing(stack, item)]),
  );
}

/** `value` resolved for sizing, as the string CloudFormation would pass on. */
export function sizedString(stack: StackTemplate, value: unknown): string {
  const resolved = resolvedForSizing(stack, value);
  return typeof resolved === 'string' ? resolved : JSON.stringify(resolved);
}

function referenceLength(stack: StackTemplate, name: string): number {
  if (name === 'AWS::StackName' && !stack.parent) return stack.name.length;
  return PSEUDO_PARAMETER_LENGTHS[name] ?? UNRESOLVED_VALUE_LENGTH;
}

function placeholder(length: number): string {
  return 'x'.repeat(length);
}

/** UTF-8 size of a string, as AWS counts bytes. */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
