/**
 * Synthesizes the service the way `cdk synth` does (cdk.json context), minus esbuild bundling, and
 * reads the API back out of the templates: which method sits on which path, resolved across the
 * nested-stack parameters, so the tests check the wiring CloudFormation will actually see.
 *
 * Two ways to get the service:
 * - `buildService(options)`: the construct tree itself, in this process (about 3 CPU-seconds plus the
 *   template validation when it is on). For tests that look at constructs (`stack.getLogicalId(...)`,
 *   `service.stack.messaging...`), run cdk-nag, or build a variant with their own context.
 * - `sharedAssembly(options)`: the synthesized cloud assembly of the same build, synthesized once per
 *   set of inputs and shared by every test file and worker that asks for it (a directory under
 *   `node_modules/.cache/infra-synth`). For tests that only read templates, manifests and synthesis
 *   messages. `assemblyTemplates(assembly)` gives the root and nested templates,
 *   `assemblyMessages(assembly, level)` the annotations as `synthesisMessages` does. A new test file
 *   (test/infra/realtime-service.test.ts, console-site.test.ts, ...) that only reads templates:
 *
 *     const assembly = sharedAssembly({ validateTemplates: false });
 *     const { root, nested } = assemblyTemplates(assembly);
 *
 * - `sharedService(options)`: `buildService`'s construct tree for logical ids, with the templates
 *   (`templateJson`) of the shared assembly: for tests that look up constructs but change nothing.
 *   A file that changes the tree, applies cdk-nag, or synthesizes it (`Template.fromStack`,
 *   `synthesisMessages`) keeps `buildService`, as do builds with other context (their own variant).
 *
 *   The cache is keyed by a hash of everything the synthesis reads (lib/, lambdas/, state-machines/,
 *   vendor/, bin/app.ts, cdk.json, package.json, package-lock.json, tsconfig.json, this file; add to
 *   `SYNTHESIS_INPUTS` what a new construct reads) and of the options, so any source change
 *   synthesizes afresh; a lock file makes workers starting together wait for the first synthesis
 *   instead of repeating it, and an entry appears whole (written aside, then renamed) or not at all.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { App, cx_api, type NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { type CloudAssemblyContents, readCloudAssembly } from '../../lib/preflight/cloud-assembly.js';
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
  /** Where the app writes its cloud assembly. @default a fresh temporary directory (CDK's) */
  outdir?: string;
}

/** The service as `cdk synth` builds it, with bundling skipped (context `aws:cdk:bundling-stacks: []`). */
export function buildService(options: BuildOptions = {}): SynthesizedService {
  const app = new App({
    context: { ...cdkJsonContext(), ...options.context, 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: options.validateTemplates ?? true,
    ...(options.outdir ? { outdir: options.outdir } : {}),
  });
  const stack = new VideoCreationServiceStack(app, 'VideoCreationService', {
    options: serviceOptionsFromContext(app.node),
    projectRoot: PROJECT_ROOT,
  });
  return { app, stack, areaStacks: [...stack.api.areaStacks.values()] };
}

// ---------------------------------------------------------------------------------------------------
// The shared synthesis (see the top of this file)

/** The root stack's artifact id, which `buildService` names the stack. */
const ROOT_STACK_ID = 'VideoCreationService';
/** What the synthesis reads, besides node_modules (covered by package-lock.json). */
const SYNTHESIS_INPUTS = [
  'lib',
  'lambdas',
  'state-machines',
  'bin/app.ts',
  'cdk.json',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  // The media image's build context (lib/stack/media-image.ts) copies its models: its asset hash is in the template.
  'vendor',
];
const SHARED_SYNTHESIS_CACHE = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'infra-synth');
/** A lock older than this belongs to a synthesis that will not finish: taken over. */
const SYNTHESIS_LOCK_TIMEOUT_MS = 10 * 60_000;
/** Entries of other inputs (other branches, earlier edits) are removed once this old. */
const STALE_ENTRY_MS = 24 * 60 * 60_000;

/** Every file under `relative` (or the file itself), sorted: the same tree hashes the same. */
function filesOf(relative: string): string[] {
  const absolute = path.join(PROJECT_ROOT, relative);
  if (!existsSync(absolute)) return [];
  if (statSync(absolute).isFile()) return [relative];
  return readdirSync(absolute, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(PROJECT_ROOT, path.join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * The cache key of a build: its options and the name and bytes of every input file, this helper
 * included (it decides how the app is built). A file added, removed, renamed or edited changes it.
 */
function synthesisKey(options: BuildOptions): string {
  const hash = createHash('sha256');
  hash.update(
    JSON.stringify({ context: options.context ?? {}, validate: options.validateTemplates ?? true }),
  );
  for (const file of [
    ...SYNTHESIS_INPUTS.flatMap(filesOf),
    path.relative(PROJECT_ROOT, import.meta.filename),
  ]) {
    hash.update(`\0${file}\0`);
    hash.update(readFileSync(path.join(PROJECT_ROOT, file)));
  }
  return hash.digest('hex').slice(0, 32);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Blocks the thread for `ms` (test files build their assembly synchronously, at module load or in hooks). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Takes the lock file, or returns false when a live process holds it. */
function tryLock(lock: string): boolean {
  try {
    const handle = openSync(lock, 'wx');
    writeSync(handle, String(process.pid));
    closeSync(handle);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    let owner = 0;
    let age = 0;
    try {
      owner = Number(readFileSync(lock, 'utf8'));
      age = Date.now() - statSync(lock).mtimeMs;
    } catch {
      return false; // Released in between: try again.
    }
    // An owner that has not written its pid yet is alive (it is between open and write).
    const dead = Number.isInteger(owner) && owner > 0 && !processAlive(owner);
    if (dead || age > SYNTHESIS_LOCK_TIMEOUT_MS) rmSync(lock, { force: true });
    return false;
  }
}

function removeStaleEntries(keep: string): void {
  for (const name of readdirSync(SHARED_SYNTHESIS_CACHE)) {
    const entry = path.join(SHARED_SYNTHESIS_CACHE, name);
    if (name === keep || !/^[0-9a-f]{32}$/.test(name)) continue;
    try {
      if (Date.now() - statSync(entry).mtimeMs > STALE_ENTRY_MS)
        rmSync(entry, { recursive: true, force: true });
    } catch {
      // Another worker removed it first.
    }
  }
}

/**
 * The cloud assembly directory of `buildService(options)`, synthesized once for these inputs and
 * options by whichever test file asks first; the others (and later runs) read it. Read-only: a test
 * that changes an assembly copies what it reads (`readCloudAssembly` gives plain objects).
 */
export function sharedAssembly(options: Omit<BuildOptions, 'outdir'> = {}): string {
  const key = synthesisKey(options);
  const entry = path.join(SHARED_SYNTHESIS_CACHE, key);
  const lock = `${entry}.lock`;
  mkdirSync(SHARED_SYNTHESIS_CACHE, { recursive: true });
  for (;;) {
    // An entry exists only complete: it is renamed into place after its synthesis.
    if (existsSync(path.join(entry, 'manifest.json'))) return entry;
    if (!tryLock(lock)) {
      sleepSync(200);
      continue;
    }
    try {
      if (existsSync(path.join(entry, 'manifest.json'))) return entry;
      const partial = `${entry}.${process.pid}.partial`;
      rmSync(partial, { recursive: true, force: true });
      buildService({ ...options, outdir: partial }).app.synth();
      rmSync(entry, { recursive: true, force: true });
      renameSync(partial, entry);
      removeStaleEntries(key);
      return entry;
    } finally {
      rmSync(lock, { force: true });
    }
  }
}

/**
 * `buildService(options)` whose stacks' templates (`templateJson`) come from the shared assembly of
 * the same options instead of a synthesis of their own: the construct tree still answers
 * `stack.getLogicalId(...)` and the like, and skipping the synthesis saves about 2 CPU-seconds per
 * file. Read-only: a test that changes the tree (aspects, cdk-nag) needs `buildService`, since the
 * shared templates would not show its change.
 */
export function sharedService(options: Omit<BuildOptions, 'outdir'> = {}): SynthesizedService {
  const directory = sharedAssembly(options);
  const service = buildService(options);
  // The same inputs and options build the same tree, so each stack's file in the assembly is its template.
  for (const stack of [service.stack, ...service.areaStacks]) {
    templates.set(stack, JSON.parse(readFileSync(path.join(directory, stack.templateFile), 'utf8')));
  }
  return service;
}

export interface AssemblyTemplates {
  /** The root stack's template. */
  root: TemplateJson;
  /** The nested stacks' templates (the API's area stacks), in the root template's order. */
  nested: TemplateJson[];
  /** Every template of the assembly as the preflight reads it, parents first. */
  contents: CloudAssemblyContents;
}

/** The templates of a shared assembly (`sharedAssembly`). */
export function assemblyTemplates(directory: string): AssemblyTemplates {
  const contents = readCloudAssembly(directory);
  const root = contents.stacks.find((stack) => stack.name === ROOT_STACK_ID && !stack.parent);
  if (!root) throw new Error(`${directory} holds no ${ROOT_STACK_ID} stack`);
  return {
    root: root.template as TemplateJson,
    nested: contents.stacks
      .filter((stack) => stack.parent?.stack === root)
      .map((stack) => stack.template as TemplateJson),
    contents,
  };
}

/** The root stack's synthesis messages at a level, read from a shared assembly as `synthesisMessages` reads the app's. */
export function assemblyMessages(directory: string, level: 'error' | 'warning'): string[] {
  return new cx_api.CloudAssembly(directory)
    .getStackArtifact(ROOT_STACK_ID)
    .messages.filter((message) => message.level === level)
    .map((message) => `${message.id}: ${String(message.entry.data)}`);
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
