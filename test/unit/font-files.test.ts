import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { FontFileError, looksLikeSfnt, readFontFile } from '../../lambdas/media/font-files.js';
import { detectMediaType } from '../../lambdas/media/media-types.js';

const require = createRequire(import.meta.url);
const dejavu = (file: string) => readFileSync(require.resolve(`dejavu-fonts-ttf/ttf/${file}`));

/** A name record: platform, encoding, language, name id, and the string (UTF-16BE or Mac Roman). */
type NameEntry = [platform: number, encoding: number, language: number, nameId: number, text: string];

function nameTable(entries: readonly NameEntry[]): Buffer {
  const strings = entries.map(([platform, , , , text]) =>
    platform === 1 ? Buffer.from(text, 'latin1') : Buffer.from(text, 'utf16le').swap16(),
  );
  const header = Buffer.alloc(6 + entries.length * 12);
  header.writeUInt16BE(0, 0);
  header.writeUInt16BE(entries.length, 2);
  header.writeUInt16BE(header.length, 4);
  let offset = 0;
  entries.forEach(([platform, encoding, language, nameId], index) => {
    const at = 6 + index * 12;
    const bytes = strings[index] as Buffer;
    header.writeUInt16BE(platform, at);
    header.writeUInt16BE(encoding, at + 2);
    header.writeUInt16BE(language, at + 4);
    header.writeUInt16BE(nameId, at + 6);
    header.writeUInt16BE(bytes.length, at + 8);
    header.writeUInt16BE(offset, at + 10);
    offset += bytes.length;
  });
  return Buffer.concat([header, ...strings]);
}

/** A minimal sfnt: the given tables (name table built from `names`), a valid directory and `head` magic. */
function sfnt(
  signature: string | number,
  tags: readonly string[],
  names: readonly NameEntry[] = [[3, 1, 0x409, 1, 'Acme Sans']],
): Buffer {
  const bodies = tags.map((tag) => {
    if (tag === 'name') return nameTable(names);
    const body = Buffer.alloc(54);
    if (tag === 'head') body.writeUInt32BE(0x5f0f3cf5, 12);
    return body;
  });
  const header = Buffer.alloc(12 + tags.length * 16);
  if (typeof signature === 'number') header.writeUInt32BE(signature, 0);
  else header.write(signature, 0, 'latin1');
  const power = 2 ** Math.floor(Math.log2(tags.length));
  header.writeUInt16BE(tags.length, 4);
  header.writeUInt16BE(power * 16, 6);
  header.writeUInt16BE(Math.log2(power), 8);
  header.writeUInt16BE(tags.length * 16 - power * 16, 10);
  let offset = header.length;
  tags.forEach((tag, index) => {
    const at = 12 + index * 16;
    header.write(tag, at, 'latin1');
    header.writeUInt32BE(offset, at + 8);
    header.writeUInt32BE((bodies[index] as Buffer).length, at + 12);
    offset += (bodies[index] as Buffer).length;
  });
  return Buffer.concat([header, ...bodies]);
}

const COMMON = ['cmap', 'head', 'hhea', 'hmtx', 'maxp', 'name'];
const TRUETYPE = [...COMMON, 'glyf', 'loca'];
const CFF = [...COMMON, 'CFF '];

describe('readFontFile', () => {
  it('reads the bundled DejaVu families by the names fontconfig shows', () => {
    expect(readFontFile(dejavu('DejaVuSans.ttf'))).toEqual({
      format: 'ttf',
      mimeType: 'font/ttf',
      family: 'DejaVu Sans',
      subfamily: 'Book',
    });
    expect(readFontFile(dejavu('DejaVuSerifCondensed.ttf')).family).toBe('DejaVu Serif Condensed');
    expect(readFontFile(dejavu('DejaVuSansMono-Bold.ttf'))).toMatchObject({
      family: 'DejaVu Sans Mono',
      subfamily: 'Bold',
    });
  });

  it('reads OpenType (CFF) fonts and Apple `true` TrueType fonts', () => {
    expect(readFontFile(sfnt('OTTO', CFF))).toMatchObject({ format: 'otf', mimeType: 'font/otf' });
    expect(readFontFile(sfnt('true', TRUETYPE))).toMatchObject({ format: 'ttf', family: 'Acme Sans' });
  });

  it('prefers the Windows English name, then other Windows names, then Unicode, then Mac Roman', () => {
    const names: NameEntry[] = [
      [1, 0, 0, 1, 'Mac Name'],
      [0, 3, 0, 1, 'Unicode Name'],
      [3, 1, 0x407, 1, 'Deutscher Name'],
      [3, 1, 0x409, 1, 'English Name'],
    ];
    expect(readFontFile(sfnt(0x00010000, TRUETYPE, names)).family).toBe('English Name');
    expect(readFontFile(sfnt(0x00010000, TRUETYPE, names.slice(0, 3))).family).toBe('Deutscher Name');
    expect(readFontFile(sfnt(0x00010000, TRUETYPE, names.slice(0, 2))).family).toBe('Unicode Name');
    expect(readFontFile(sfnt(0x00010000, TRUETYPE, names.slice(0, 1))).family).toBe('Mac Name');
  });

  it('falls back to the typographic family (name 16) and drops control characters', () => {
    expect(readFontFile(sfnt('OTTO', CFF, [[3, 1, 0x409, 16, ' Typo\u0000 Family ']])).family).toBe(
      'Typo Family',
    );
  });

  it.each([
    ['a PNG', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), /not a TrueType or OpenType font/],
    ['a collection', Buffer.concat([Buffer.from('ttcf'), Buffer.alloc(20)]), /font collection/],
    ['a few bytes', Buffer.from([0, 1, 0]), /too short/],
    ['a directory beyond the end', sfnt('OTTO', CFF).subarray(0, 40), /cut short/],
    ['a table beyond the end', sfnt('OTTO', CFF).subarray(0, 150), /lies beyond the end/],
    ['no outlines', sfnt(0x00010000, COMMON), /'glyf', 'loca'/],
    ['no CFF table', sfnt('OTTO', COMMON), /'CFF'/],
    [
      'no name table',
      sfnt(
        0x00010000,
        TRUETYPE.filter((tag) => tag !== 'name'),
      ),
      /'name'/,
    ],
    ['no family name', sfnt(0x00010000, TRUETYPE, [[3, 1, 0x409, 2, 'Bold']]), /names no font family/],
  ])('refuses %s', (_what, bytes, message) => {
    expect(() => readFontFile(bytes)).toThrow(FontFileError);
    expect(() => readFontFile(bytes)).toThrow(message);
  });

  it('refuses a damaged head table', () => {
    const bytes = sfnt(0x00010000, TRUETYPE);
    const head = bytes.indexOf('head', 12, 'latin1');
    bytes.writeUInt32BE(0, bytes.readUInt32BE(head + 8) + 12);
    expect(() => readFontFile(bytes)).toThrow(/damaged 'head'/);
  });
});

describe('font type detection', () => {
  it('takes TrueType and OpenType files for fonts, whatever their signature', async () => {
    expect((await detectMediaType(dejavu('DejaVuSans.ttf').subarray(0, 4100)))?.mimeType).toBe('font/ttf');
    expect((await detectMediaType(sfnt('true', TRUETYPE)))?.mimeType).toBe('font/ttf');
    expect(await detectMediaType(sfnt('OTTO', CFF))).toMatchObject({ mimeType: 'font/otf', kind: 'font' });
  });

  it('does not take text that merely starts with `true` for a font', async () => {
    expect(looksLikeSfnt(Buffer.from('true or false, this is text'))).toBe(false);
    expect(await detectMediaType(Buffer.from('true or false, this is text'))).toBeUndefined();
  });
});
