/**
 * Font files (TrueType and OpenType, the "sfnt" container): what a font upload must be before captions
 * are drawn with it. The bytes are read, not trusted: the signature, a table directory that lies inside
 * the file, the tables every renderer needs, and the family name from the `name` table, which is what
 * a caption style refers to the font by.
 *
 * The layout is the OpenType specification's (https://learn.microsoft.com/typography/opentype/spec/otff):
 * a 12-byte header (sfnt version, numTables, searchRange, entrySelector, rangeShift), then 16 bytes per
 * table (tag, checksum, offset, length), big-endian throughout.
 */

/** Outline formats by their sfnt version: TrueType (`00 01 00 00`, or Apple's `true`), CFF (`OTTO`). */
export const FONT_SIGNATURES = {
  trueType: 0x0001_0000,
  appleTrueType: 0x7472_7565, // 'true'
  openTypeCff: 0x4f54_544f, // 'OTTO'
} as const;

/** Font collections (`ttcf`) hold several fonts; a caption style needs exactly one. */
const COLLECTION_SIGNATURE = 0x7474_6366;

const HEADER_BYTES = 12;
const TABLE_RECORD_BYTES = 16;
/** Real fonts have a few dozen tables; more than this is not a font. */
const MAX_TABLES = 256;
/** `head.magicNumber`, at offset 12 of the `head` table. */
const HEAD_MAGIC = 0x5f0f_3cf5;

/** Tables every font a renderer draws text with has (glyph outlines are checked by format below). */
const REQUIRED_TABLES = ['cmap', 'head', 'hhea', 'hmtx', 'maxp', 'name'] as const;

export type FontFormat = 'ttf' | 'otf';

export interface FontFileInfo {
  format: FontFormat;
  /** The MIME type of the format (media-types.ts accepts both). */
  mimeType: 'font/ttf' | 'font/otf';
  /** The family name (name ID 1, else the typographic family, ID 16), e.g. `DejaVu Sans`. */
  family: string;
  /** The subfamily (name ID 2), e.g. `Bold`; null when the font names none. */
  subfamily: string | null;
}

/** Why bytes are not a usable font; the message completes "`fonts[0].asset_id` ...". */
export class FontFileError extends Error {}

/** Whether the first bytes carry an sfnt signature with a plausible table directory (type sniffing). */
export function looksLikeSfnt(head: Uint8Array): boolean {
  if (head.length < HEADER_BYTES) return false;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const version = view.getUint32(0);
  if (!Object.values(FONT_SIGNATURES).includes(version as never)) return false;
  const tables = view.getUint16(4);
  if (tables < 1 || tables > MAX_TABLES) return false;
  // searchRange is 16 × the largest power of two not above numTables: text that happens to start
  // with `true` does not also get this right.
  const power = 2 ** Math.floor(Math.log2(tables));
  return view.getUint16(6) === power * 16 && view.getUint16(8) === Math.log2(power);
}

interface TableRecord {
  offset: number;
  length: number;
}

function tableDirectory(view: DataView): Map<string, TableRecord> {
  const count = view.getUint16(4);
  if (count < 1 || count > MAX_TABLES)
    throw new FontFileError(`declares ${count} tables; this is not a font`);
  if (view.byteLength < HEADER_BYTES + count * TABLE_RECORD_BYTES)
    throw new FontFileError('is cut short: its table directory does not fit in the file');
  const tables = new Map<string, TableRecord>();
  for (let index = 0; index < count; index++) {
    const at = HEADER_BYTES + index * TABLE_RECORD_BYTES;
    const tag = String.fromCharCode(
      view.getUint8(at),
      view.getUint8(at + 1),
      view.getUint8(at + 2),
      view.getUint8(at + 3),
    );
    const offset = view.getUint32(at + 8);
    const length = view.getUint32(at + 12);
    if (offset + length > view.byteLength)
      throw new FontFileError(`is cut short: its '${tag.trim()}' table lies beyond the end of the file`);
    tables.set(tag, { offset, length });
  }
  return tables;
}

/** UTF-16BE (Unicode and Windows platforms) or Mac Roman read as Latin-1 (its ASCII part is the same). */
function decodeName(bytes: Uint8Array, platformId: number): string {
  if (platformId === 0 || platformId === 3) {
    let text = '';
    for (let index = 0; index + 1 < bytes.length; index += 2)
      text += String.fromCharCode((bytes[index] as number) * 256 + (bytes[index + 1] as number));
    return text;
  }
  return String.fromCharCode(...bytes);
}

interface NameRecord {
  platformId: number;
  encodingId: number;
  languageId: number;
  nameId: number;
  text: string;
}

function nameRecords(view: DataView, table: TableRecord): NameRecord[] {
  if (table.length < 6) throw new FontFileError("has a 'name' table too short to name anything");
  const count = view.getUint16(table.offset + 2);
  const storage = table.offset + view.getUint16(table.offset + 4);
  if (table.length < 6 + count * 12) throw new FontFileError("has a 'name' table cut short");
  const records: NameRecord[] = [];
  for (let index = 0; index < count; index++) {
    const at = table.offset + 6 + index * 12;
    const platformId = view.getUint16(at);
    const encodingId = view.getUint16(at + 2);
    const languageId = view.getUint16(at + 4);
    const nameId = view.getUint16(at + 6);
    const length = view.getUint16(at + 8);
    const start = storage + view.getUint16(at + 10);
    if (start + length > table.offset + table.length) continue;
    const bytes = new Uint8Array(view.buffer, view.byteOffset + start, length);
    records.push({ platformId, encodingId, languageId, nameId, text: decodeName(bytes, platformId) });
  }
  return records;
}

/**
 * A name as renderers look it up: Windows English (US) first, then any Windows language, then
 * Unicode, then Macintosh Roman. Control characters and surrounding spaces are dropped.
 */
function bestName(records: readonly NameRecord[], nameId: number): string | null {
  const candidates = records.filter((record) => record.nameId === nameId);
  const rank = (record: NameRecord) =>
    record.platformId === 3 && record.languageId === 0x409
      ? 0
      : record.platformId === 3
        ? 1
        : record.platformId === 0
          ? 2
          : record.platformId === 1 && record.encodingId === 0
            ? 3
            : 4;
  const sorted = [...candidates].sort((a, b) => rank(a) - rank(b));
  for (const record of sorted) {
    if (rank(record) === 4) continue;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point
    const text = record.text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim();
    if (text.length > 0) return text;
  }
  return null;
}

/**
 * Reads a whole font file: its format, family and subfamily.
 * @throws FontFileError naming what is wrong (not a font, a collection, cut short, tables missing, no family name)
 */
export function readFontFile(bytes: Uint8Array): FontFileInfo {
  if (bytes.length < HEADER_BYTES) throw new FontFileError('is too short to be a font');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(0);
  if (version === COLLECTION_SIGNATURE)
    throw new FontFileError('is a font collection (.ttc); give a single font (.ttf or .otf)');
  if (!Object.values(FONT_SIGNATURES).includes(version as never))
    throw new FontFileError('is not a TrueType or OpenType font (.ttf or .otf)');
  const format: FontFormat = version === FONT_SIGNATURES.openTypeCff ? 'otf' : 'ttf';
  const tables = tableDirectory(view);
  const missing: string[] = REQUIRED_TABLES.filter((tag) => !tables.has(tag));
  // Glyph outlines: TrueType's in 'glyf' (located by 'loca'), CFF's in 'CFF ' or 'CFF2'.
  if (format === 'ttf') missing.push(...['glyf', 'loca'].filter((tag) => !tables.has(tag)));
  else if (!tables.has('CFF ') && !tables.has('CFF2')) missing.push('CFF');
  if (missing.length > 0)
    throw new FontFileError(`lacks the font tables ${missing.map((tag) => `'${tag}'`).join(', ')}`);
  const head = tables.get('head') as TableRecord;
  if (head.length < 16 || view.getUint32(head.offset + 12) !== HEAD_MAGIC)
    throw new FontFileError("has a damaged 'head' table");
  const records = nameRecords(view, tables.get('name') as TableRecord);
  const family = bestName(records, 1) ?? bestName(records, 16);
  if (!family) throw new FontFileError('names no font family');
  return {
    format,
    mimeType: format === 'otf' ? 'font/otf' : 'font/ttf',
    family,
    subfamily: bestName(records, 2),
  };
}
