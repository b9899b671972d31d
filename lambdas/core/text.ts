/**
 * User-supplied text that the service shows back: names, titles, file names. Control characters in
 * them break logs, headers and terminals, and bidirectional controls make a name display as something
 * it is not (`invoice\u202Egnp.exe` shows as `invoiceexe.png`), so none of them belong in a name.
 */

/**
 * Unicode `Cc` (C0, DEL, C1) and the bidirectional controls: marks (U+200E/U+200F), embeddings and
 * overrides (U+202A–U+202E) and isolates (U+2066–U+2069).
 */
const CONTROL_CHARACTER = /[\p{Cc}\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
const CONTROL_CHARACTERS = new RegExp(CONTROL_CHARACTER.source, 'gu');

export function hasControlCharacters(text: string): boolean {
  return CONTROL_CHARACTER.test(text);
}

/** `text` without its control characters (for names the service receives but cannot refuse). */
export function stripControlCharacters(text: string): string {
  return text.replace(CONTROL_CHARACTERS, '');
}

/**
 * A `Content-Disposition` value for `fileName` (RFC 6266): an ASCII `filename` for old clients, every
 * character outside printable ASCII (and the quote and backslash) replaced by `_`, and the exact name
 * as `filename*=UTF-8''…` (RFC 5987), which clients that know it prefer.
 */
export function contentDisposition(disposition: 'inline' | 'attachment', fileName: string): string {
  const clean = stripControlCharacters(fileName);
  const fallback = clean.replace(/[^\x20-\x7E]|["\\]/g, '_');
  // encodeURIComponent leaves !'()* alone; RFC 5987's attr-char excludes ' ( ) *.
  const encoded = encodeURIComponent(clean).replace(
    /['()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${disposition}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
