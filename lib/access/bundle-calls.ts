/**
 * The AWS SDK commands a function's code can send, read from what esbuild keeps of it.
 *
 * A function runs one export of one bundle. esbuild builds that export alone, with every package
 * external and tree shaking on: the output's code is what the export can reach. (Its import statements
 * are not: esbuild keeps every name a kept module imports from an external package, used or not.) A
 * `…Command` imported from an `@aws-sdk/…` package and named in that code is a command it can send.
 * Reachable as esbuild sees it: a command in a module the export imports counts even if no run ever
 * gets there, which is the point (a role must cover every path, not the paths tests happen to take).
 * One build per function takes tens of milliseconds (only this project's sources are parsed).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { ROUTE_AREAS } from '../../lambdas/api/pipeline/route-types.js';
import { areaBundle, areaBundleEntry } from '../stack/route-plan.js';
import { operationOfCommand, SERVICE_OF_PACKAGE } from './sdk-calls.js';

/** What a function runs: one export of a module under `lambdas/`, or a generated entry's `handler`. */
export type FunctionEntry =
  | { module: string; exportName: string }
  | { generatedSource: string; resolveDirectory: string };

/** One SDK command a function can send. */
export interface SdkCommand {
  /** `@aws-sdk/client-dynamodb`, `@aws-sdk/lib-dynamodb`, … */
  package: string;
  /** The command class: `GetItemCommand`, `PutCommand`. */
  command: string;
  /** The IAM service prefix: `dynamodb`. */
  service: string;
  /** The operation it sends: `GetItem`, `PutItem`. */
  operation: string;
}

const IMPORT_STATEMENT = /^import\s[^;]*?from\s*"([^"]+)";/gms;
const NAMED_IMPORTS = /\{([^}]*)\}/;

/** The SDK commands `entry` can send, sorted and without repeats. */
export function sdkCommandsOf(projectRoot: string, entry: FunctionEntry): SdkCommand[] {
  const stdin =
    'generatedSource' in entry
      ? { contents: entry.generatedSource, resolveDir: entry.resolveDirectory, loader: 'js' as const }
      : {
          contents: `export { ${entry.exportName} as handler } from ${JSON.stringify(
            path.join(projectRoot, 'lambdas', `${entry.module}.ts`),
          )};`,
          resolveDir: projectRoot,
          loader: 'ts' as const,
        };
  const { outputFiles } = buildSync({
    absWorkingDir: projectRoot,
    stdin,
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    treeShaking: true,
    logLevel: 'silent',
  });
  const output = outputFiles?.[0]?.text ?? '';
  const code = output.replace(IMPORT_STATEMENT, '');
  const commands = new Map<string, SdkCommand>();
  for (const [statement, sdkPackage = ''] of output.matchAll(IMPORT_STATEMENT)) {
    if (!sdkPackage.startsWith('@aws-sdk/')) continue;
    const service = SERVICE_OF_PACKAGE[sdkPackage];
    for (const imported of (statement.match(NAMED_IMPORTS)?.[1] ?? '').split(',')) {
      const [command = '', binding = command] = imported.trim().split(/\s+as\s+/);
      if (!command.endsWith('Command') || !new RegExp(`\\b${binding}\\b`).test(code)) continue;
      if (!service) throw new Error(`No IAM service is known for ${sdkPackage} (lib/access/sdk-calls.ts)`);
      commands.set(`${sdkPackage}:${command}`, {
        package: sdkPackage,
        command,
        service,
        operation: operationOfCommand(sdkPackage, command),
      });
    }
  }
  return [...commands.values()].sort((a, b) =>
    `${a.service}:${a.operation}`.localeCompare(`${b.service}:${b.operation}`),
  );
}

/**
 * The entry of a function that runs `exportName` of `bundle`: `lambdas/<bundle>.ts`, or, for a route
 * area's bundle (`api/<area>`), the entry the stack generates for it (`lib/stack/route-plan.ts`).
 */
export function functionEntryOf(projectRoot: string, bundle: string, exportName: string): FunctionEntry {
  if (existsSync(path.join(projectRoot, 'lambdas', `${bundle}.ts`))) return { module: bundle, exportName };
  const area = ROUTE_AREAS.find((candidate) => areaBundle(candidate) === bundle);
  if (!area) throw new Error(`No module or route area is bundled as ${bundle}`);
  return { generatedSource: areaBundleEntry(projectRoot, area), resolveDirectory: projectRoot };
}
