/**
 * What the server tells the page about itself (`/console/config.json`): whether OAuth sign-in is
 * offered, and how often the page polls jobs in flight. Fetched once, before the first page shows.
 */
export interface OAuthSettings {
  issuer: string;
  client_id: string;
  /** Sent as `audience` on the authorize request when the issuer needs it. */
  audience: string | null;
  scope: string;
}

export interface ConsoleSettings {
  oauth: OAuthSettings | null;
  /** How often lists with jobs in flight are refreshed, in milliseconds. */
  poll_interval_ms: number;
}

const DEFAULT_SETTINGS: ConsoleSettings = { oauth: null, poll_interval_ms: 2000 };

let current: ConsoleSettings = DEFAULT_SETTINGS;

export async function loadSettings(): Promise<ConsoleSettings> {
  try {
    const response = await fetch('/console/config.json', { cache: 'no-store' });
    if (response.ok)
      current = { ...DEFAULT_SETTINGS, ...((await response.json()) as Partial<ConsoleSettings>) };
  } catch {
    // No settings file: API-key sign-in and the default polling.
  }
  return current;
}

export function settings(): ConsoleSettings {
  return current;
}
