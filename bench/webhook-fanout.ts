/**
 * Webhook fan-out through the local stack: 2,000 domain events (`avatar_video.success`, as a render's
 * last step publishes them) to a workspace with 5 endpoints on loopback, each event signed and POSTed
 * to all five: 10,000 deliveries. The events are published at a steady rate, as jobs complete, and
 * every receipt is timed from the moment its event was published: deliveries per second and the
 * p50/p95/p99 latency from publish to receipt (target: p95 ≤ 500 ms). Then a burst (1,000 events
 * published at once) shows the capacity in deliveries per second. The steady rate (20 events/s by
 * default) stays well under that capacity: the local stack runs DynamoDB writes one at a time (its
 * TransactWriteItems emulation), so latency climbs steeply once writes queue up, long before the CPU
 * is the limit.
 *
 *   npm run bench -- webhook-fanout     (BENCH_EVENTS, BENCH_ENDPOINTS, BENCH_EVENTS_PER_SECOND,
 *                                        BENCH_BURST_EVENTS to tune; 0 burst events skips the burst)
 *
 * The receivers verify nothing and answer 204 at once; they run in a child process so they do not
 * share the dispatcher's event loop.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const RECEIVER_FLAG = '--webhook-receivers';

if (process.argv.includes(RECEIVER_FLAG)) {
  // Child: `count` receivers; each receipt goes to the parent as [receiver, event id, time].
  const count = Number(process.argv[process.argv.indexOf(RECEIVER_FLAG) + 1]);
  const ports: number[] = [];
  let pending: [number, string, number][] = [];
  const flush = () => {
    if (pending.length > 0) process.send?.(pending);
    pending = [];
  };
  setInterval(flush, 20);
  for (let index = 0; index < count; index++) {
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        pending.push([index, String(request.headers['service-event-id']), Date.now()]);
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ports.push((server.address() as AddressInfo).port);
  }
  process.send?.({ ports });
} else {
  await run();
}

interface PhaseResult {
  events: number;
  rate: number;
  delivered: number;
  duplicates: number;
  seconds: number;
  latencies: number[];
}

async function run(): Promise<void> {
  const events = Number(process.env.BENCH_EVENTS ?? '2000');
  const endpoints = Number(process.env.BENCH_ENDPOINTS ?? '5');
  const rate = Number(process.env.BENCH_EVENTS_PER_SECOND ?? '20');
  const burstEvents = Number(process.env.BENCH_BURST_EVENTS ?? '1000');
  const { startLocalStack } = await import('../lib/local/local-stack.js');
  const { createWorkspace } = await import('../lambdas/accounts/workspaces.js');
  const { createEndpoint } = await import('../lambdas/webhooks/endpoints.js');
  const { publishEvent } = await import('../lambdas/events/domain-events.js');

  const receivers: ChildProcess = fork(
    new URL(import.meta.url).pathname,
    [RECEIVER_FLAG, String(endpoints)],
    {
      execArgv: ['--import', 'tsx'],
    },
  );
  const publishedAt = new Map<string, number>();
  let latencies: number[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  let lastReceipt = 0;
  let expected = Number.POSITIVE_INFINITY;
  let onAll: (() => void) | undefined;
  const ports = await new Promise<number[]>((resolve) => {
    receivers.on('message', (message: { ports: number[] } | [number, string, number][]) => {
      if (!Array.isArray(message)) {
        resolve(message.ports);
        return;
      }
      for (const [receiver, eventId, receivedAt] of message) {
        const key = `${receiver} ${eventId}`;
        if (seen.has(key)) duplicates += 1;
        seen.add(key);
        latencies.push(receivedAt - (publishedAt.get(eventId) ?? receivedAt));
        lastReceipt = Math.max(lastReceipt, receivedAt);
      }
      if (seen.size >= expected) onAll?.();
    });
  });

  const stack = await startLocalStack({ port: 0, allowLoopbackUrls: true });
  const workspace = await createWorkspace({ name: 'Webhook bench', plan: 'enterprise' });
  for (const port of ports) {
    await createEndpoint(workspace.workspace_id, {
      url: `http://127.0.0.1:${port}/hook`,
      events: ['avatar_video.success'],
    });
  }

  const publish = async (videoId: string) => {
    const eventId = `avatar_video.success:${videoId}`;
    publishedAt.set(eventId, Date.now());
    await publishEvent({
      event_id: eventId,
      event_type: 'avatar_video.success',
      workspace_id: workspace.workspace_id,
      entity_id: videoId,
      event_data: {
        video_id: videoId,
        url: `https://media.example.com/${videoId}.mp4?X-Amz-Signature=${'0'.repeat(64)}`,
        gif_download_url: `https://media.example.com/${videoId}.gif`,
        video_page_url: null,
        video_share_page_url: null,
        folder_id: null,
        callback_id: null,
      },
    });
  };

  /** Publishes `count` events at `perSecond` (0: all at once) and waits for every delivery. */
  async function phase(name: string, count: number, perSecond: number): Promise<PhaseResult> {
    latencies = [];
    seen.clear();
    duplicates = 0;
    expected = count * endpoints;
    const done = new Promise<void>((resolve) => {
      onAll = resolve;
    });
    const started = Date.now();
    const publishing: Promise<void>[] = [];
    for (let index = 0; index < count; index++) {
      if (perSecond > 0) {
        const wait = started + (index * 1000) / perSecond - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
      publishing.push(publish(`${name}-${index}`));
    }
    await Promise.all(publishing);
    const timeout = setTimeout(() => onAll?.(), 180_000);
    await done;
    clearTimeout(timeout);
    return {
      events: count,
      rate: perSecond,
      delivered: seen.size,
      duplicates,
      seconds: (lastReceipt - started) / 1000,
      latencies: [...latencies].sort((a, b) => a - b),
    };
  }

  // Warm-up: connections, JIT and the dispatcher's caches; not counted.
  await phase('warmup', 20, 0);
  const steady = await phase('steady', events, rate);
  const burst = burstEvents > 0 ? await phase('burst', burstEvents, 0) : undefined;
  receivers.kill();
  await stack.stop();

  const percentile = (sorted: number[], p: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
  const report = (label: string, result: PhaseResult) => {
    console.log(
      `${label}: ${result.events} events × ${endpoints} endpoints, published ${result.rate > 0 ? `at ${result.rate} events/s` : 'all at once'}`,
    );
    console.log(
      `  delivered ${result.delivered} of ${result.events * endpoints} in ${result.seconds.toFixed(1)} s: ${(result.delivered / result.seconds).toFixed(0)} deliveries/s (duplicates: ${result.duplicates})`,
    );
    const sorted = result.latencies;
    console.log(
      `  publish → receipt: p50 ${percentile(sorted, 50)} ms, p95 ${percentile(sorted, 95)} ms, p99 ${percentile(sorted, 99)} ms, max ${sorted.at(-1)} ms`,
    );
  };
  report('Steady', steady);
  const p95 = percentile(steady.latencies, 95);
  console.log(`  p95 target ≤ 500 ms: ${p95 <= 500 ? 'OK' : 'ABOVE TARGET'}`);
  if (burst) {
    report('Burst (capacity; latency is mostly queueing)', burst);
  }
  process.exit(0);
}
