/**
 * Throughput of `GET /v3/folders/{id}` through the whole local stack (local API Gateway, authorizer,
 * pipeline, handler) against a bare `node:http` server doing the same DynamoDB read with the same SDK
 * client against the same dynalite, in one run. The load comes from autocannon in a child process so
 * it does not share the servers' event loop. Target: ratio ≥ 0.7.
 *
 *   npm run bench -- folder-read-throughput     (BENCH_SECONDS, BENCH_CONNECTIONS to tune)
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { GetCommand } from '@aws-sdk/lib-dynamodb';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const { startLocalStack } = await import('../lib/local/local-stack.js');
const { benchWorkspace } = await import('./support/bench-workspace.js');
const { createFolder } = await import('../lambdas/folders/folders.js');
const { documents } = await import('../lambdas/core/aws-clients.js');
const { config } = await import('../lambdas/core/config.js');
const { keys, RESOURCE_TYPES } = await import('../lambdas/core/table-schema.js');

const seconds = Number(process.env.BENCH_SECONDS ?? '5');
const connections = Number(process.env.BENCH_CONNECTIONS ?? '16');
const run = promisify(execFile);

async function load(
  url: string,
  headers: Record<string, string>,
): Promise<{ requestsPerSecond: number; non2xx: number; p99: number }> {
  const headerArgs = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}=${value}`]);
  const { stdout } = await run(
    process.execPath,
    [
      new URL('../node_modules/autocannon/autocannon.js', import.meta.url).pathname,
      '-j',
      '-c',
      String(connections),
      '-d',
      String(seconds),
      ...headerArgs,
      url,
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const result = JSON.parse(stdout) as {
    requests: { average: number };
    non2xx: number;
    latency: { p99: number };
  };
  return { requestsPerSecond: result.requests.average, non2xx: result.non2xx, p99: result.latency.p99 };
}

const stack = await startLocalStack({ port: 0 });
const { workspaceId, apiKey: secret } = await benchWorkspace({ name: 'Bench' });
const folder = await createFolder(workspaceId, 'bench', { name: 'Bench folder' });

// The bare server: the same read, the same client, the same table, nothing else.
const bare = createServer((_request, response) => {
  documents()
    .send(
      new GetCommand({
        TableName: config().tableName,
        Key: keys.resource(workspaceId, RESOURCE_TYPES.folder, folder.folder_id),
      }),
    )
    .then((result) => {
      const body = JSON.stringify({ data: result.Item });
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
    })
    .catch(() => response.writeHead(500).end());
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/v3/folders/${folder.folder_id}`;
const stackUrl = `${stack.baseUrl}/v3/folders/${folder.folder_id}`;

// Rounds alternate the two servers so neither gets all the JIT warm-up or a quieter machine; the
// first round only warms up (JIT, SDK connections, the authorizer's cache).
const rounds = Number(process.env.BENCH_ROUNDS ?? '3');
const serviceRuns: Awaited<ReturnType<typeof load>>[] = [];
const baselineRuns: Awaited<ReturnType<typeof load>>[] = [];
for (let round = 0; round <= rounds; round++) {
  const serviceRun = await load(stackUrl, { 'X-Api-Key': secret });
  const baselineRun = await load(bareUrl, {});
  if (round === 0) continue;
  serviceRuns.push(serviceRun);
  baselineRuns.push(baselineRun);
}
const best = (runs: Awaited<ReturnType<typeof load>>[]) =>
  runs.reduce((top, run) => (run.requestsPerSecond > top.requestsPerSecond ? run : top));
const service = best(serviceRuns);
const baseline = best(baselineRuns);
bare.close();
await stack.stop();

const ratio = service.requestsPerSecond / baseline.requestsPerSecond;
console.log(
  `GET /v3/folders/{id}, ${connections} connections, best of ${rounds} rounds of ${seconds} s after a warm-up round`,
);
console.log(
  `  local stack (full pipeline): ${service.requestsPerSecond.toFixed(0)} req/s, p99 ${service.p99} ms, non-2xx ${service.non2xx}`,
);
console.log(
  `  bare node:http + same read:  ${baseline.requestsPerSecond.toFixed(0)} req/s, p99 ${baseline.p99} ms, non-2xx ${baseline.non2xx}`,
);
console.log(`  ratio: ${ratio.toFixed(2)} (target ≥ 0.70) ${ratio >= 0.7 ? 'OK' : 'BELOW TARGET'}`);
