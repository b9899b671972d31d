/**
 * `npm run admin -- <command>`: workspaces, API keys, plans and credits, workspace encryption keys.
 * Talks to the running local stack (found through DATA_DIR/local-stack.json), starts the local stack
 * on DATA_DIR when none runs, or, when TABLE_NAME is set, works on a deployed stack's table with the
 * ambient AWS credentials.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { resetProcessState } from '../lambdas/core/process-state.js';
import { ADMIN_USAGE, AdminUsageError, runAdminCommand } from '../lib/admin/admin-commands.js';

async function runningLocalStack(dataDir: string): Promise<Record<string, string> | undefined> {
  try {
    const runtime = JSON.parse(await readFile(join(dataDir, 'local-stack.json'), 'utf8')) as {
      pid?: number;
      environment?: Record<string, string>;
    };
    if (!runtime.pid || !runtime.environment) return undefined;
    process.kill(runtime.pid, 0); // throws when that process is gone
    return runtime.environment;
  } catch {
    return undefined;
  }
}

async function connect(): Promise<() => Promise<void>> {
  if (process.env.TABLE_NAME) return async () => undefined; // a deployed stack, by environment
  const dataDir = resolve(process.env.DATA_DIR ?? '.data');
  const environment = await runningLocalStack(dataDir);
  if (environment) {
    Object.assign(process.env, environment);
    await resetProcessState();
    return async () => undefined;
  }
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  const { startLocalStack } = await import('../lib/local/local-stack.js');
  // A command starts no workflow, and validating every definition costs about 1.5 s of each run.
  const stack = await startLocalStack({ dataDir, validateStateMachines: false });
  return () => stack.stop();
}

const argv = process.argv.slice(2);
if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
  console.log(ADMIN_USAGE);
} else {
  const disconnect = await connect();
  try {
    const result = await runAdminCommand(argv);
    console.log(typeof result.output === 'string' ? result.output : JSON.stringify(result.output, null, 2));
  } catch (error) {
    process.exitCode =
      error instanceof AdminUsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
        ? 2
        : 1;
    console.error(error instanceof Error ? error.message : error);
  } finally {
    await disconnect();
  }
}
