/** A hash router: `#/videos/123` → route `videos`, parameters `['123']`. Works on any static host. */
import { signal } from '@preact/signals';

export interface Location {
  page: string;
  parameters: string[];
}

function parse(hash: string): Location {
  const [page = 'videos', ...parameters] = hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  return { page, parameters: parameters.map(decodeURIComponent) };
}

export const location = signal<Location>(parse(window.location.hash));

window.addEventListener('hashchange', () => {
  location.value = parse(window.location.hash);
});

export function navigate(path: string): void {
  window.location.hash = `#/${path}`;
}

export const href = (path: string) => `#/${path}`;
