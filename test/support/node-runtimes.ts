/**
 * Other Node.js versions for the smoke runs: the official binaries as the npm registry ships them
 * (`node-<platform>-<arch>`, the packages the `node` package installs), installed once into
 * `node_modules/.cache/node-runtimes/` with npm, so CI needs nothing but the registry it already uses.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The Node.js versions the product supports besides the one the suite runs on: Lambda runs 22 and 24. */
export const SMOKE_NODE_VERSIONS = ['22.23.3', '24.21.0'] as const;

const PROJECT_ROOT = path.resolve(import.meta.dirname, '../..');

/** The `node` binary of `version`, installed from the npm registry when it is not there yet. */
export async function nodeRuntime(version: string): Promise<string> {
  const packageName = `node-${process.platform}-${process.arch}`;
  const prefix = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'node-runtimes', version);
  const binary = path.join(prefix, 'node_modules', packageName, 'bin', 'node');
  if (existsSync(binary)) return binary;
  await mkdir(prefix, { recursive: true });
  await run(
    'npm',
    [
      'install',
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--prefix',
      prefix,
      `${packageName}@${version}`,
    ],
    { timeout: 180_000 },
  );
  if (!existsSync(binary)) throw new Error(`npm installed ${packageName}@${version} without ${binary}`);
  return binary;
}
