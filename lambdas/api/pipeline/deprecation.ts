/**
 * `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) headers of the routes kept only for older clients
 * (rows with `deprecated`: the `/v1` and `/v2` routes, the `/v3/overdubs` aliases). Set when the
 * request enters the pipeline, so every answer carries them, errors included (a 401 as well as a 200):
 * a client learns the route is going whatever it got back.
 */
import type { RouteDefinition } from './route-types.js';

/**
 * When the legacy routes were deprecated: the day the spec's deprecations took effect (2026-10-31,
 * when the `/v1` brand-voice routes were removed and `/v3` became the only current interface).
 */
export const LEGACY_DEPRECATED_AT = new Date('2026-10-31T00:00:00Z');
/**
 * When they may stop answering. The spec gives no date for the routes it says "still exist"; this is
 * this service's own notice period, one year after the deprecation.
 */
export const LEGACY_SUNSET_AT = new Date('2027-10-31T00:00:00Z');

export function deprecationHeaders(route: RouteDefinition): Record<string, string> {
  if (!route.deprecated) return {};
  return {
    // RFC 9745: a structured-field date, `@` and Unix seconds.
    Deprecation: `@${Math.floor(LEGACY_DEPRECATED_AT.getTime() / 1000)}`,
    // RFC 8594: an HTTP-date.
    Sunset: LEGACY_SUNSET_AT.toUTCString(),
  };
}
