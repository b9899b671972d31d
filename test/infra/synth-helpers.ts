/**
 * Synthesizes the service the way `cdk synth` does (cdk.json context), minus esbuild bundling, and
 * reads the API back out of the templates: which method sits on which path, resolved across the
 * nested-stack parameters, so the tests check the wiring CloudFormation will actually see.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { App, type NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { AreaRoutesStack } from '../../lib/stack/area-routes-stack.js';
import { serviceOptionsFromContext } from '../../lib/stack/service-options.js';
import { VideoCreationServiceStack } from '../../lib/stack/video-creation-service-stack.js';

export const PROJECT_ROOT = path.resolve(import.meta.dirname, '../..');

export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  return cdkJson.context;
}

export interface SynthesizedService {
  app: App;
  stack: VideoCreationServiceStack;
  areaStacks: AreaRoutesStack[];
}

export interface BuildOptions {
  /** Context on top of cdk.json's. @default {} */
  context?: Record<string, unknown>;
  /**
   * CDK's built-in CloudFormation template validation (schema and lint rules, errors with cdk.json's
   * `validateAgainstDefaultRules`). It costs seconds per synthesis, so variants of the base build
   * turn it off. @default true
   */
  validateTemplates?: boolean;
}

/** The service as `cdk synth` builds it, with bundling skipped (context `aws:cdk:bundling-stacks: []`). */
export function buildService(options: BuildOptions = {}): SynthesizedService {
  const app = new App({
    context: { ...cdkJsonContext(), ...options.context, 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: options.validateTemplates ?? true,
  });
  const stack = new VideoCreationServiceStack(app, 'VideoCreationService', {
    options: serviceOptionsFromContext(app.node),
    projectRoot: PROJECT_ROOT,
  });
  return { app, stack, areaStacks: [...stack.api.areaStacks.values()] };
}

export interface CfnResourceJson {
  Type: string;
  Properties?: Record<string, unknown>;
  DependsOn?: string[];
  DeletionPolicy?: string;
}
export interface TemplateJson {
  Resources: Record<string, CfnResourceJson>;
  Parameters?: Record<string, unknown>;
}

const templates = new WeakMap<Stack, TemplateJson>();

/** The synthesized template of a stack (parsed once per stack). */
export function templateJson(stack: Stack): TemplateJson {
  let template = templates.get(stack);
  if (!template) {
    template = Template.fromStack(stack).toJSON() as TemplateJson;
    templates.set(stack, template);
  }
  return template;
}

/**
 * The root stack's synthesis messages at a level, as `path: message` (nested stacks' annotations are
 * part of the root stack's artifact). From the app's synthesized assembly: `Annotations.fromStack`
 * forces a new synthesis of the whole app for each call, seconds each.
 */
export function synthesisMessages(service: SynthesizedService, level: 'error' | 'warning'): string[] {
  return service.app
    .synth()
    .getStackArtifact(service.stack.artifactId)
    .messages.filter((message) => message.level === level)
    .map((message) => `${message.id}: ${String(message.entry.data)}`);
}

export function resourcesOfType(template: TemplateJson, type: string): [string, CfnResourceJson][] {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

function refOf(value: unknown): string | undefined {
  if (typeof value === 'object' && value !== null && 'Ref' in value && typeof value.Ref === 'string')
    return value.Ref;
  return undefined;
}

function getAttOf(value: unknown): [string, string] | undefined {
  if (typeof value !== 'object' || value === null || !('Fn::GetAtt' in value)) return undefined;
  const getAtt = value['Fn::GetAtt'];
  return Array.isArray(getAtt) ? [String(getAtt[0]), String(getAtt[1])] : undefined;
}

export interface ApiMethodJson {
  /** Construct path of the stack holding the method. */
  stackPath: string;
  path: string;
  httpMethod: string;
  properties: Record<string, unknown>;
  /** The method's `AuthorizerId` traced back to a root-stack logical id, if any. */
  rootAuthorizer: string | undefined;
}

/** Every API Gateway method of the root stack and its area stacks, with its full resource path. */
export function apiMethods(service: SynthesizedService): ApiMethodJson[] {
  const root = templateJson(service.stack);
  const rootPaths = new Map<string, string>();
  const rootValuePath = (value: unknown): string | undefined => {
    const getAtt = getAttOf(value);
    if (getAtt?.[1] === 'RootResourceId') return '/';
    const ref = refOf(value);
    return ref ? rootPaths.get(ref) : undefined;
  };
  // Root resources, parents first (resolve until nothing changes).
  const rootResources = resourcesOfType(root, 'AWS::ApiGateway::Resource');
  for (let pass = 0; pass < rootResources.length; pass++) {
    for (const [logicalId, resource] of rootResources) {
      const parentPath = rootValuePath(resource.Properties?.ParentId);
      if (parentPath) rootPaths.set(logicalId, joinPath(parentPath, String(resource.Properties?.PathPart)));
    }
  }

  /** Values the root stack passes to a nested stack's parameters. */
  const parameterValues = (nested: NestedStack): Map<string, unknown> => {
    const parent = nested.nestedStackParent;
    const resource = nested.nestedStackResource;
    if (!parent || !resource) throw new Error(`${nested.node.path} is not a nested stack`);
    const stackResource = root.Resources[parent.getLogicalId(resource)];
    return new Map(Object.entries((stackResource?.Properties?.Parameters ?? {}) as Record<string, unknown>));
  };

  const methods: ApiMethodJson[] = [];
  const collect = (
    stack: Stack,
    template: TemplateJson,
    valuePath: (value: unknown) => string | undefined,
  ) => {
    const authorizerOf = (value: unknown): string | undefined => {
      const ref = refOf(value);
      if (!ref || stack === service.stack) return ref;
      return refOf(parameterValues(stack as NestedStack).get(ref));
    };
    for (const [, method] of resourcesOfType(template, 'AWS::ApiGateway::Method')) {
      const properties = method.Properties ?? {};
      const methodPath = valuePath(properties.ResourceId);
      if (!methodPath) throw new Error(`Cannot resolve the path of a method in ${stack.node.path}`);
      methods.push({
        stackPath: stack.node.path,
        path: methodPath,
        httpMethod: String(properties.HttpMethod),
        properties,
        rootAuthorizer: authorizerOf(properties.AuthorizerId),
      });
    }
  };
  collect(service.stack, root, rootValuePath);

  for (const areaStack of service.areaStacks) {
    const template = templateJson(areaStack);
    const parameters = parameterValues(areaStack);
    const localPaths = new Map<string, string>();
    const valuePath = (value: unknown): string | undefined => {
      const ref = refOf(value);
      if (!ref) return undefined;
      return localPaths.get(ref) ?? (parameters.has(ref) ? rootValuePath(parameters.get(ref)) : undefined);
    };
    const resources = resourcesOfType(template, 'AWS::ApiGateway::Resource');
    for (let pass = 0; pass < resources.length; pass++) {
      for (const [logicalId, resource] of resources) {
        const parentPath = valuePath(resource.Properties?.ParentId);
        if (parentPath)
          localPaths.set(logicalId, joinPath(parentPath, String(resource.Properties?.PathPart)));
      }
    }
    collect(areaStack, template, valuePath);
  }
  return methods;
}

function joinPath(parent: string, part: string): string {
  return parent === '/' ? `/${part}` : `${parent}/${part}`;
}
