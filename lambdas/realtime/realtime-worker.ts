/**
 * The streaming service's container entry (lib/stack/realtime-service.ts runs
 * `node /var/task/realtime/realtime-worker.mjs` from the media image): one worker until ECS stops the
 * task. While it runs streams, the task is protected from scale-in (the ECS agent's task protection
 * endpoint), so the service's autoscaling removes only idle tasks. On SIGTERM (a deploy, a scale-in)
 * the worker ends its streams, saying why, before ECS's stop timeout, and exits.
 */
import { config } from '../core/config.js';
import { logger } from '../core/observability.js';
import { startRealtimeService } from './realtime-service.js';

/** Protection outlives the longest stream, so a stream is never cut by a scale-in. */
const protectionMinutes = () => Math.ceil(config().realtimeMaxDurationMs / 60_000) + 10;

let protectedNow = false;
/** Protects the task while it runs streams; outside ECS (no agent endpoint) there is nothing to do. */
async function protectTask(running: number): Promise<void> {
  const agent = process.env.ECS_AGENT_URI;
  const wanted = running > 0;
  if (!agent || wanted === protectedNow) return;
  protectedNow = wanted;
  const response = await fetch(`${agent}/task-protection/v1/state`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(
      wanted
        ? { ProtectionEnabled: true, ExpiresInMinutes: protectionMinutes() }
        : { ProtectionEnabled: false },
    ),
  });
  if (!response.ok) {
    protectedNow = !wanted;
    logger.warn('The task scale-in protection was not changed', {
      status: response.status,
      body: await response.text(),
    });
  }
}

const service = startRealtimeService({
  onRunningChange: (running) => {
    protectTask(running).catch((error: unknown) =>
      logger.warn('The task scale-in protection was not changed', { error }),
    );
  },
});
logger.info('The realtime worker is receiving streams', { owner: service.owner });

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    logger.info('The realtime worker is stopping', { signal, streams: service.running() });
    void service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('The realtime worker did not stop cleanly', { error });
        process.exit(1);
      },
    );
  });
}
