/**
 * The sliding window of a rate limit, as a log of held slots: pure functions over the shared state
 * that `rate-limit.ts` keeps in DynamoDB.
 *
 * A request is admitted only with a slot, and a slot is reserved in the log together with the time it
 * is released (`until`). A reservation succeeds only if, at the moment it is made, the slots of every
 * reservation still in the log (`until` after now) plus the new ones are at most the limit.
 *
 * Guarantee: if every slot reserved at time `r` is spent (its request admitted) at some `s` with
 * `r ≤ s` and `s + window ≤ until`, then no interval of the window's length admits more than the
 * limit. Proof: take any interval [a, a + window) and the requests it admitted. Each used a slot of a
 * reservation made at `r_i ≤ s_i < a + window` and held until `until_i ≥ s_i + window ≥ a + window`.
 * Let R be the one of these reservations made last, at `r* < a + window`. Every other one was made
 * before it and is still held at `r*` (`until_i ≥ a + window > r*`), so R's check counted all of them:
 * together they hold at most the limit, and the interval admitted at most the limit. ∎
 *
 * The check needs no record of when a reservation was made, only of when it ends, and it holds
 * whatever order reservations arrive in, as long as each sees every earlier one (DynamoDB's
 * conditional write on the log's version serialises them). Releasing a slot later than needed only
 * costs capacity, never the guarantee: so `until` is rounded up to a step of the window, which merges
 * reservations and bounds the log to about (window + lease) / step entries.
 *
 * What it does not promise: times are the deciding instances' clocks. If two instances' clocks differ
 * by δ, the guarantee holds for intervals of `window − δ` (Lambda clocks are NTP-synchronised to
 * milliseconds). A fixed-window counter, or a token bucket whose burst is the limit, admits up to twice
 * the limit across a window boundary; a sliding-window *counter* (weighted previous window) only
 * approximates; neither is used.
 */

export interface Reservation {
  /** When the slots are released (ms since the epoch, exclusive). */
  until: number;
  /** How many slots. */
  count: number;
}

export interface WindowLog {
  /** Held reservations, ordered by `until`; released ones may linger until the next write. */
  reservations: Reservation[];
  /** Bumped by every write: the condition of the next one. 0: no log stored yet. */
  version: number;
}

export const EMPTY_LOG: WindowLog = { reservations: [], version: 0 };

/** Slots held at `nowMs`. */
export function heldSlots(log: WindowLog, nowMs: number): number {
  return log.reservations.reduce((held, slot) => (slot.until > nowMs ? held + slot.count : held), 0);
}

/** When a reservation reserved at `nowMs` is released: `holdMs` later, rounded up to a step. */
export function releaseTime(nowMs: number, holdMs: number, stepMs: number): number {
  return Math.ceil((nowMs + holdMs) / stepMs) * stepMs;
}

/**
 * Reserves up to `wanted` slots released at `until`: as many as fit under `limit` at `nowMs`. The
 * returned log drops released reservations and is one version on, when anything was granted.
 */
export function reserve(
  log: WindowLog,
  nowMs: number,
  wanted: number,
  limit: number,
  until: number,
): { log: WindowLog; granted: number } {
  const granted = Math.max(0, Math.min(wanted, limit - heldSlots(log, nowMs)));
  if (granted === 0) return { log, granted };
  const held = log.reservations.filter((slot) => slot.until > nowMs);
  const same = held.find((slot) => slot.until === until);
  const reservations = same
    ? held.map((slot) => (slot === same ? { until, count: slot.count + granted } : slot))
    : [...held, { until, count: granted }].sort((left, right) => left.until - right.until);
  return { log: { reservations, version: log.version + 1 }, granted };
}

/**
 * When at least `needed` more slots will be free, after `nowMs` (`nowMs` itself if they are free
 * now): the time the X-RateLimit-Reset and Retry-After headers count down to.
 */
export function freeAt(log: WindowLog, nowMs: number, limit: number, needed = 1): number {
  let held = heldSlots(log, nowMs);
  if (limit - held >= needed) return nowMs;
  for (const slot of log.reservations) {
    if (slot.until <= nowMs) continue;
    held -= slot.count;
    if (limit - held >= needed) return slot.until;
  }
  return nowMs;
}
