/**
 * Tools the tests run as real clients, installed from the npm registry once into
 * `node_modules/.cache/npm-tools/` (so CI needs nothing but the registry it already uses):
 * other Node.js versions (the official binaries as `node-<platform>-<arch>`, the packages the `node`
 * package installs) and published CLIs such as HyperFrames'.
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
/** Installing a package of ~100 MB from the registry on a busy machine. */
const INSTALL_TIMEOUT_MS = 300_000;

/**
 * `file` inside package `name@version`, installed into its own prefix when it is not there yet.
 * Each version has its own directory, so a partly installed one is never taken for another.
 */
async function installedFile(name: string, version: string, file: string): Promise<string> {
  const prefix = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'npm-tools', `${name}@${version}`);
  const target = path.join(prefix, 'node_modules', name, file);
  if (existsSync(target)) return target;
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
      `${name}@${version}`,
    ],
    { timeout: INSTALL_TIMEOUT_MS },
  );
  if (!existsSync(target)) throw new Error(`npm installed ${name}@${version} without ${target}`);
  return target;
}

/** The `node` binary of `version`. */
export function nodeRuntime(version: string): Promise<string> {
  return installedFile(`node-${process.platform}-${process.arch}`, version, path.join('bin', 'node'));
}

/** The HyperFrames CLI this suite drives (`hyperframes cloud render`): it needs Node ≥ 22. */
export const HYPERFRAMES_CLI_VERSION = '0.8.170';

/** The HyperFrames CLI's entry script, to run with a Node ≥ 22 from `nodeRuntime`. */
export function hyperframesCli(): Promise<string> {
  return installedFile('hyperframes', HYPERFRAMES_CLI_VERSION, path.join('bin', 'hyperframes.mjs'));
}
