import { randomBytes } from 'node:crypto';

/**
 * Opaque 32-character identifiers: 12 hex digits of milliseconds since the epoch, then 20 random hex
 * digits. Sorting ids sorts by creation time, so "newest first" is a reverse key-order query.
 */
export function newId(now: number = Date.now()): string {
  return now.toString(16).padStart(12, '0') + randomBytes(10).toString('hex');
}

/** Ids this service issues: anything else cannot name one of our resources. */
export const ID_PATTERN = /^[0-9a-f]{32}$/;

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
