/**
 * Reads a cloud assembly (`cdk.out`, or the directory of an in-process `app.synth()`) into what the
 * preflight checks look at: every template CloudFormation will be handed, nested ones included, with
 * the bytes it will receive, and the zip assets the functions' code comes from. Read from the
 * manifests the CDK CLI publishes from (`manifest.json`, `<stack>.assets.json`), so the checks see
 * what `cdk deploy` would send.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
  DependsOn?: string | string[];
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

export interface CfnTemplate {
  Resources?: Record<string, CfnResource>;
  Parameters?: Record<string, unknown>;
  Outputs?: Record<string, unknown>;
}

/** One template CloudFormation deploys: a top-level stack or a nested one. */
export interface StackTemplate {
  /** The stack's name (top level) or its nested template's file name without `.nested.template.json`. */
  name: string;
  template: CfnTemplate;
  /** Size of the template file, as uploaded. */
  bodyBytes: number;
  /**
   * Whether CloudFormation receives the template from S3 (nested stacks, and stacks whose synthesizer
   * publishes the template as an asset) rather than inline in the API call.
   */
  uploadedToS3: boolean;
  /** For a nested stack: its parent and the `AWS::CloudFormation::Stack` resource that creates it. */
  parent?: { stack: StackTemplate; logicalId: string };
}

/** A file asset as the CLI will upload it. */
export interface FileAsset {
  /** Absolute path of the staged asset: a directory (`zip`: the CLI zips it) or a file. */
  sourcePath: string;
  packaging: 'zip' | 'file';
}

export interface CloudAssemblyContents {
  directory: string;
  /** Every template, parents before their nested stacks. */
  stacks: StackTemplate[];
  /** File assets by S3 object key (`<hash>.zip`, `<hash>.json`), which is how templates name them. */
  assetsByObjectKey: ReadonlyMap<string, FileAsset>;
}

interface ManifestJson {
  artifacts?: Record<
    string,
    {
      type: string;
      properties?: { templateFile?: string; stackTemplateAssetObjectUrl?: string; file?: string };
    }
  >;
}

interface AssetManifestJson {
  files?: Record<
    string,
    {
      source: { path?: string; packaging?: 'zip' | 'file' };
      destinations: Record<string, { objectKey: string }>;
    }
  >;
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

export function readCloudAssembly(directory: string): CloudAssemblyContents {
  const manifest = readJson<ManifestJson>(path.join(directory, 'manifest.json'));
  const artifacts = Object.entries(manifest.artifacts ?? {});

  const assetsByObjectKey = new Map<string, FileAsset>();
  for (const [, artifact] of artifacts) {
    if (artifact.type !== 'cdk:asset-manifest' || !artifact.properties?.file) continue;
    const assets = readJson<AssetManifestJson>(path.join(directory, artifact.properties.file));
    for (const { source, destinations } of Object.values(assets.files ?? {})) {
      if (!source.path) continue; // Produced by a command at publish time: nothing to measure here.
      const asset: FileAsset = {
        sourcePath: path.resolve(directory, source.path),
        packaging: source.packaging ?? 'file',
      };
      for (const { objectKey } of Object.values(destinations)) assetsByObjectKey.set(objectKey, asset);
    }
  }

  const stacks: StackTemplate[] = [];
  const load = (name: string, file: string, uploadedToS3: boolean, parent?: StackTemplate['parent']) => {
    const stack: StackTemplate = {
      name,
      template: readJson<CfnTemplate>(file),
      bodyBytes: statSync(file).size,
      uploadedToS3,
      ...(parent ? { parent } : {}),
    };
    stacks.push(stack);
    for (const [logicalId, resource] of Object.entries(stack.template.Resources ?? {})) {
      if (resource.Type !== 'AWS::CloudFormation::Stack') continue;
      const asset = assetNamedIn(resource.Properties?.TemplateURL, assetsByObjectKey);
      if (!asset) continue; // A stack from a template outside this assembly: not ours to check.
      load(path.basename(asset.sourcePath).replace(/\.nested\.template\.json$/, ''), asset.sourcePath, true, {
        stack,
        logicalId,
      });
    }
  };
  for (const [name, artifact] of artifacts) {
    if (artifact.type !== 'aws:cloudformation:stack' || !artifact.properties?.templateFile) continue;
    load(
      name,
      path.join(directory, artifact.properties.templateFile),
      // The CLI deploys from this URL when the synthesizer published the template (DefaultStackSynthesizer).
      artifact.properties.stackTemplateAssetObjectUrl !== undefined,
    );
  }
  return { directory, stacks, assetsByObjectKey };
}

/** The asset whose object key a template value names (`S3Key`, or the last segment of a `TemplateURL`). */
export function assetNamedIn(
  value: unknown,
  assetsByObjectKey: ReadonlyMap<string, FileAsset>,
): FileAsset | undefined {
  if (typeof value === 'string') return assetsByObjectKey.get(value.slice(value.lastIndexOf('/') + 1));
  if (Array.isArray(value)) {
    for (const item of value) {
      const asset = assetNamedIn(item, assetsByObjectKey);
      if (asset) return asset;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null)
    return assetNamedIn(Object.values(value), assetsByObjectKey);
  return undefined;
}
