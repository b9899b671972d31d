/**
 * The streaming service's container entry (lib/stack/realtime-service.ts runs
 * `node /var/task/realtime/realtime-worker.mjs` from the media image): one worker until ECS stops the
 * task. On SIGTERM (a deploy, a scale-in) the worker ends its streams, saying why, before ECS's stop
 * timeout, and exits.
 */
import { logger } from '../core/observability.js';
import { startRealtimeService } from './realtime-service.js';

const service = startRealtimeService();
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
