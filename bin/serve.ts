/**
 * `npm start`: the whole service on this machine, on its embedded default. State persists under
 * DATA_DIR across restarts. Prints the base URL and a usable API key on every start.
 *
 * Environment: PORT (default 3000), HOST (default 127.0.0.1), DATA_DIR (default ./.data),
 * LOG_LEVEL (DEBUG|INFO|WARN|ERROR|SILENT, default WARN), ALLOW_LOOPBACK_URLS=true (or 1, yes, on) to
 * accept http:// and loopback webhook URLs for receivers on this machine (never enable in deployments),
 * REALTIME_WORKER=service to run realtime streams in a streaming service worker as deployed (the
 * default, in_process, runs them in the API's process).
 * A setting the service cannot read stops the start with one line naming it.
 */
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

// Powertools reads its settings when the handler modules load, so set them before importing them.
// Metrics go to CloudWatch as EMF log lines in Lambda; on a laptop they are noise.
process.env.POWERTOOLS_LOG_LEVEL = (process.env.LOG_LEVEL ?? 'WARN').toUpperCase();
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

/** A misconfiguration is the operator's to fix: say which setting, without a stack trace. */
function refuseToStart(error: unknown): never {
  console.error(`Cannot start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

// Some settings are read as the modules load (tracing): a bad one must stop the start the same way.
const { startLocalStack } = await import('../lib/local/local-stack.js').catch(refuseToStart);
const { booleanFrom } = await import('../lambdas/core/config.js');

const dataDir = resolve(process.env.DATA_DIR ?? '.data');
const port = Number(process.env.PORT ?? '3000');
if (!Number.isInteger(port) || port < 0 || port > 65_535)
  refuseToStart(new Error(`PORT must be a port number, got ${process.env.PORT}`));

let allowLoopbackUrls: boolean;
try {
  allowLoopbackUrls = booleanFrom('ALLOW_LOOPBACK_URLS');
} catch (error) {
  refuseToStart(error);
}
const stack = await startLocalStack({
  dataDir,
  port,
  host: process.env.HOST ?? '127.0.0.1',
  allowLoopbackUrls,
  ...(process.env.REALTIME_WORKER ? { environment: { REALTIME_WORKER: process.env.REALTIME_WORKER } } : {}),
}).catch(refuseToStart);

// The admin CLI talks to this running stack through the endpoints recorded here.
const runtimeFile = join(dataDir, 'local-stack.json');
await writeFile(
  runtimeFile,
  `${JSON.stringify({ pid: process.pid, baseUrl: stack.baseUrl, environment: stack.environment }, null, 2)}\n`,
  {
    mode: 0o600,
  },
);

console.log(`
Video Creation Service is running (local stack, data in ${dataDir})

  Base URL:  ${stack.baseUrl}
  API key:   ${stack.apiKey}

  Try:       curl -H "X-Api-Key: ${stack.apiKey}" ${stack.baseUrl}/v3/users/me
  OpenAPI:   ${stack.baseUrl}/v3/openapi.json
  Console:   ${stack.baseUrl}/console/ (sign in with the API key above)
  Admin:     npm run admin -- --help
`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping…`);
  await stack.stop();
  await writeFile(runtimeFile, '{}\n').catch(() => undefined);
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
