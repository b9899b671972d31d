/**
 * What a process keeps between invocations (configuration, SDK clients, caches, engines), and the one
 * way to forget all of it at once: `resetProcessState()`, a cold start without a new process. The local
 * stack calls it whenever it (re)starts, after setting the environment, so nothing of a previous stack
 * or environment survives (a restarted stack has new endpoints and new KMS keys).
 *
 * Every module that keeps such state registers how to drop it with `onProcessReset`, next to the state
 * itself, when it loads; a module that was never loaded holds nothing to drop. The modules' own reset
 * functions stay exported for unit tests that reset one thing.
 */

type Reset = () => void | Promise<void>;

const resets = new Set<Reset>();

/** Registers how to drop a module's process state; call it once, at module load. */
export function onProcessReset(reset: Reset): void {
  resets.add(reset);
}

/** Drops every registered piece of process state, in the order the modules loaded. */
export async function resetProcessState(): Promise<void> {
  for (const reset of resets) await reset();
}
