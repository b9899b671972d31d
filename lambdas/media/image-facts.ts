/**
 * What can be read from the first bytes of a PNG, JPEG or WebP file without decoding its pixels (no
 * sharp: the API functions that search a workspace's images are plain zip bundles): its size as shown,
 * whether it has an alpha channel, and the words its author put in it.
 *
 * - Size: PNG `IHDR`; JPEG's frame header (`SOFn`), swapped when the EXIF orientation turns the image
 *   a quarter; WebP's `VP8X` canvas, or the `VP8`/`VP8L` frame of a simple file.
 * - Alpha: PNG colour types with alpha, or a `tRNS` chunk; WebP's alpha flag (`VP8X`) or the lossless
 *   bitstream's "alpha used" bit; never for JPEG. An alpha channel may still be fully opaque: this
 *   says the file can be transparent, which is what a search for cut-outs and icons needs to know.
 * - Text: PNG `tEXt`/`iTXt`/`zTXt` chunks with a descriptive keyword (Title, Description, Keywords,
 *   Comment, Subject, Author, Source); the EXIF `ImageDescription`; a JPEG comment (`COM`); the XMP
 *   packet's `dc:title`, `dc:description` and `dc:subject` (any of the three formats). Only what is in
 *   the bytes given is read: a PNG whose text chunks follow a long `IDAT` beyond them has no text here.
 */
import { inflateSync } from 'node:zlib';

export interface ImageFacts {
  /** Pixels as shown (EXIF orientation applied); null when the header was not found. */
  width: number | null;
  height: number | null;
  /** The file has an alpha channel (or a transparent colour); false when it cannot have one. */
  hasAlpha: boolean;
  /** Descriptive text found in the file's metadata, each piece once. */
  text: string[];
}

/** How many bytes of the file `imageFacts` needs at most: metadata lives near the start. */
export const IMAGE_FACTS_HEAD_BYTES = 256 * 1024;

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** The keyword of a PNG text chunk holding an XMP packet. */
const XMP_PNG_KEYWORD = 'XML:com.adobe.xmp';
const PNG_TEXT_KEYWORDS = new Set([
  'title',
  'description',
  'keywords',
  'comment',
  'subject',
  'author',
  'source',
]);
/** Text longer than this is cut: it is for searching, not for storing documents. */
const MAX_TEXT_LENGTH = 2000;

const startsWith = (bytes: Buffer, signature: readonly number[], at = 0) =>
  signature.every((byte, index) => bytes[at + index] === byte);

const clean = (text: string) =>
  text
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MAX_TEXT_LENGTH);

/** Facts of an image file from its first bytes; undefined when it is not PNG, JPEG or WebP. */
export function imageFacts(head: Uint8Array): ImageFacts | undefined {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  let facts: ImageFacts | undefined;
  if (startsWith(bytes, PNG_SIGNATURE)) facts = pngFacts(bytes);
  else if (bytes[0] === 0xff && bytes[1] === 0xd8) facts = jpegFacts(bytes);
  else if (bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP')
    facts = webpFacts(bytes);
  if (!facts) return undefined;
  const text = [...new Set([...facts.text, ...xmpText(bytes)].map(clean).filter(Boolean))];
  return { ...facts, text };
}

function pngFacts(bytes: Buffer): ImageFacts {
  const facts: ImageFacts = { width: null, height: null, hasAlpha: false, text: [] };
  let offset = 8;
  while (offset + 8 <= bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const dataStart = offset + 8;
    const dataEnd = dataStart + length;
    if (dataEnd > bytes.length) break;
    const data = bytes.subarray(dataStart, dataEnd);
    if (type === 'IHDR' && length >= 13) {
      facts.width = data.readUInt32BE(0);
      facts.height = data.readUInt32BE(4);
      const colourType = data[9];
      // 4: grey + alpha, 6: RGB + alpha.
      facts.hasAlpha = colourType === 4 || colourType === 6;
    } else if (type === 'tRNS') {
      facts.hasAlpha = true;
    } else if (type === 'tEXt' || type === 'zTXt' || type === 'iTXt') {
      const chunk = pngText(type, data);
      // An XMP packet is a text chunk of its own keyword, often compressed: read as XMP, not as text.
      if (chunk?.keyword === XMP_PNG_KEYWORD)
        facts.text.push(...xmpText(Buffer.from(chunk.text, type === 'iTXt' ? 'utf8' : 'latin1')));
      else if (chunk && PNG_TEXT_KEYWORDS.has(chunk.keyword.toLowerCase())) facts.text.push(chunk.text);
    } else if (type === 'IEND') {
      break;
    }
    offset = dataEnd + 4;
  }
  return facts;
}

/** A text chunk's keyword and text; undefined when it does not decode. */
function pngText(
  type: 'tEXt' | 'zTXt' | 'iTXt',
  data: Buffer,
): { keyword: string; text: string } | undefined {
  const keywordEnd = data.indexOf(0);
  if (keywordEnd < 0) return undefined;
  const keyword = data.toString('latin1', 0, keywordEnd);
  try {
    if (type === 'tEXt') return { keyword, text: data.toString('latin1', keywordEnd + 1) };
    if (type === 'zTXt')
      return { keyword, text: inflateSync(data.subarray(keywordEnd + 2)).toString('latin1') };
    // iTXt: keyword, 0, compression flag, method, language tag, 0, translated keyword, 0, text.
    const compressed = data[keywordEnd + 1] === 1;
    const languageEnd = data.indexOf(0, keywordEnd + 3);
    const translatedEnd = languageEnd < 0 ? -1 : data.indexOf(0, languageEnd + 1);
    if (translatedEnd < 0) return undefined;
    const text = data.subarray(translatedEnd + 1);
    return { keyword, text: (compressed ? inflateSync(text) : text).toString('utf8') };
  } catch {
    return undefined;
  }
}

/** JPEG frame headers (SOFn): every C0–CF marker but DHT (C4), JPG (C8) and DAC (CC). */
const isFrameHeader = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

function jpegFacts(bytes: Buffer): ImageFacts {
  const facts: ImageFacts = { width: null, height: null, hasAlpha: false, text: [] };
  let orientation = 1;
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) break;
    const marker = bytes[offset + 1] as number;
    // Fill bytes and markers without a length.
    if (marker === 0xff) {
      offset++;
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      offset += 2;
      continue;
    }
    // Start of scan: the entropy-coded data follows, no more headers before it.
    if (marker === 0xda || marker === 0xd9) break;
    const length = bytes.readUInt16BE(offset + 2);
    const dataStart = offset + 4;
    const dataEnd = offset + 2 + length;
    if (length < 2 || dataEnd > bytes.length) break;
    const data = bytes.subarray(dataStart, dataEnd);
    if (isFrameHeader(marker) && data.length >= 5) {
      facts.height = data.readUInt16BE(1);
      facts.width = data.readUInt16BE(3);
    } else if (marker === 0xfe) {
      facts.text.push(data.toString('utf8'));
    } else if (marker === 0xe1 && data.toString('latin1', 0, 6) === 'Exif\0\0') {
      const exif = exifFacts(data.subarray(6));
      orientation = exif.orientation;
      if (exif.description) facts.text.push(exif.description);
    }
    offset = dataEnd;
  }
  // Orientations 5 to 8 turn the image a quarter: what is shown is the stored size swapped.
  if (orientation >= 5 && orientation <= 8) [facts.width, facts.height] = [facts.height, facts.width];
  return facts;
}

const EXIF_TAGS = { imageDescription: 0x010e, orientation: 0x0112 } as const;
/** EXIF field types read here. */
const EXIF_TYPES = { ascii: 2, short: 3 } as const;

/** IFD0's orientation and image description, from a TIFF structure (EXIF's payload). */
function exifFacts(tiff: Buffer): { orientation: number; description: string | undefined } {
  const result: { orientation: number; description: string | undefined } = {
    orientation: 1,
    description: undefined,
  };
  if (tiff.length < 8) return result;
  const little = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const ifd = u32(4);
  if (ifd + 2 > tiff.length) return result;
  const count = u16(ifd);
  for (let index = 0; index < count; index++) {
    const entry = ifd + 2 + index * 12;
    if (entry + 12 > tiff.length) break;
    const tag = u16(entry);
    const type = u16(entry + 2);
    const values = u32(entry + 4);
    if (tag === EXIF_TAGS.orientation && type === EXIF_TYPES.short) result.orientation = u16(entry + 8);
    if (tag === EXIF_TAGS.imageDescription && type === EXIF_TYPES.ascii) {
      // Up to 4 bytes are stored in the entry itself, longer strings at an offset.
      const start = values <= 4 ? entry + 8 : u32(entry + 8);
      if (start + values <= tiff.length) result.description = tiff.toString('utf8', start, start + values);
    }
  }
  return result;
}

function webpFacts(bytes: Buffer): ImageFacts | undefined {
  const facts: ImageFacts = { width: null, height: null, hasAlpha: false, text: [] };
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const type = bytes.toString('latin1', offset, offset + 4);
    const length = bytes.readUInt32LE(offset + 4);
    const data = bytes.subarray(offset + 8, Math.min(bytes.length, offset + 8 + length));
    if (type === 'VP8X' && data.length >= 10) {
      facts.hasAlpha = ((data[0] as number) & 0x10) !== 0;
      facts.width = data.readUIntLE(4, 3) + 1;
      facts.height = data.readUIntLE(7, 3) + 1;
    } else if (type === 'VP8 ' && data.length >= 10 && facts.width === null) {
      // A key frame: 3 bytes of frame tag, the start code 9d 01 2a, then 14-bit width and height.
      facts.width = data.readUInt16LE(6) & 0x3fff;
      facts.height = data.readUInt16LE(8) & 0x3fff;
    } else if (type === 'VP8L' && data.length >= 5 && facts.width === null) {
      // Signature 0x2f, then width - 1 (14 bits), height - 1 (14 bits), alpha used (1 bit).
      const bits = data.readUInt32LE(1);
      facts.width = (bits & 0x3fff) + 1;
      facts.height = ((bits >> 14) & 0x3fff) + 1;
      facts.hasAlpha = ((bits >> 28) & 1) === 1;
    }
    // Chunks are padded to an even length.
    offset += 8 + length + (length % 2);
  }
  return facts;
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const decodeXml = (text: string) =>
  text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_match, entity: string) => {
    if (entity.startsWith('#x') || entity.startsWith('#X'))
      return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(Number.parseInt(entity.slice(1), 10));
    return XML_ENTITIES[entity.toLowerCase()] ?? '';
  });

/** `dc:title`, `dc:description` and `dc:subject` of an XMP packet anywhere in the bytes. */
function xmpText(bytes: Buffer): string[] {
  const start = bytes.indexOf('<x:xmpmeta');
  if (start < 0) return [];
  const end = bytes.indexOf('</x:xmpmeta>', start);
  if (end < 0) return [];
  const xmp = bytes.toString('utf8', start, end);
  const texts: string[] = [];
  for (const field of ['title', 'description', 'subject']) {
    // Element form, whose values are rdf:li items (Alt for title/description, Bag for subject).
    const element = new RegExp(`<dc:${field}\\b[^>]*>([\\s\\S]*?)</dc:${field}>`, 'g');
    for (const match of xmp.matchAll(element)) {
      const items = [...(match[1] ?? '').matchAll(/<rdf:li\b[^>]*>([\s\S]*?)<\/rdf:li>/g)];
      texts.push(...items.map((item) => decodeXml(item[1] ?? '')));
    }
    // Attribute form: dc:title="...".
    for (const match of xmp.matchAll(new RegExp(`\\bdc:${field}="([^"]*)"`, 'g')))
      texts.push(decodeXml(match[1] ?? ''));
  }
  return texts;
}
