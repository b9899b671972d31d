/** Colour arithmetic on `#rrggbb` strings, shared by the portrait and its sprites. */

function channels(hex: string): [number, number, number] {
  const value = Number.parseInt(hex.slice(1), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

function toHex([r, g, b]: [number, number, number]): string {
  return `#${[r, g, b].map((channel) => Math.round(channel).toString(16).padStart(2, '0')).join('')}`;
}

/** `from` moved `amount` (0..1) of the way to `to`. */
export function mix(from: string, to: string, amount: number): string {
  const a = channels(from);
  const b = channels(to);
  return toHex(
    [0, 1, 2].map((i) => (a[i] ?? 0) + ((b[i] ?? 0) - (a[i] ?? 0)) * amount) as [number, number, number],
  );
}

export const darken = (color: string, amount: number) => mix(color, '#000000', amount);
export const lighten = (color: string, amount: number) => mix(color, '#ffffff', amount);
