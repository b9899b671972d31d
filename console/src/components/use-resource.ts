/**
 * Loads something from the API for a page and keeps it fresh: reloads on demand, and every
 * `poll_interval_ms` (settings) while `keepPolling` says work is still in flight.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { settings } from '../settings.ts';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  reload: () => Promise<void>;
}

export function useResource<T>(
  load: () => Promise<T>,
  keys: readonly unknown[],
  keepPolling: (data: T) => boolean = () => false,
): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const loadRef = useRef(load);
  loadRef.current = load;

  const reload = useCallback(async () => {
    try {
      setData(await loadRef.current());
      setError(null);
    } catch (caught) {
      setError(caught);
    }
  }, []);

  useEffect(() => {
    void reload();
  }, keys);

  const polling = data !== undefined && keepPolling(data);
  useEffect(() => {
    if (!polling) return;
    const timer = setInterval(() => void reload(), settings().poll_interval_ms);
    return () => clearInterval(timer);
  }, [polling, reload]);

  return { data, error, reload };
}
