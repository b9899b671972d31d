/**
 * Upright still images. Phones store photos as the sensor saw them and record the way up in the JPEG's
 * EXIF orientation tag; ffmpeg 4.1 ignores that tag, so a portrait photo would be composed sideways.
 * The engine reads the tag here (only the file's first bytes, no image library) and turns the picture
 * with ffmpeg's own filters in the same run.
 */
import { open } from 'node:fs/promises';

/** EXIF sits in an APP1 segment near the file's start; 256 KiB covers it with room to spare. */
const HEADER_BYTES = 256 * 1024;

/** The EXIF orientation (1 to 8) of a JPEG file; 1 (as stored) for other files or when absent. */
export async function imageOrientation(file: string): Promise<number> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEADER_BYTES, 0);
    return jpegOrientation(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** The EXIF orientation in the start of a JPEG file; 1 when there is none or it cannot be read. */
export function jpegOrientation(bytes: Buffer): number {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return 1;
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) return 1;
    const marker = bytes[offset + 1] as number;
    // Fill bytes, and markers without a length.
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2;
      continue;
    }
    // Start of scan: image data follows, no more metadata.
    if (marker === 0xda) return 1;
    const length = bytes.readUInt16BE(offset + 2);
    if (length < 2) return 1;
    const segment = offset + 4;
    if (marker === 0xe1 && bytes.toString('latin1', segment, segment + 6) === 'Exif\0\0') {
      return tiffOrientation(bytes.subarray(segment + 6, Math.min(bytes.length, offset + 2 + length)));
    }
    offset += 2 + length;
  }
  return 1;
}

function tiffOrientation(tiff: Buffer): number {
  if (tiff.length < 8) return 1;
  const order = tiff.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return 1;
  const little = order === 'II';
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  if (u16(2) !== 42) return 1;
  const directory = u32(4);
  if (directory + 2 > tiff.length) return 1;
  const entries = u16(directory);
  for (let index = 0; index < entries; index++) {
    const entry = directory + 2 + index * 12;
    if (entry + 12 > tiff.length) return 1;
    // Tag 0x0112 Orientation, type 3 (SHORT), one value, stored in the entry's first two value bytes.
    if (u16(entry) === 0x0112) {
      const value = u16(entry + 8);
      return value >= 1 && value <= 8 ? value : 1;
    }
  }
  return 1;
}

/** ffmpeg filters that show a picture stored with EXIF `orientation` the right way up. */
export function orientationFilters(orientation: number): string[] {
  switch (orientation) {
    case 2:
      return ['hflip'];
    case 3:
      return ['hflip', 'vflip'];
    case 4:
      return ['vflip'];
    case 5:
      // Transpose: mirror along the top-left to bottom-right diagonal.
      return ['transpose=cclock_flip'];
    case 6:
      return ['transpose=clock'];
    case 7:
      // Transverse: mirror along the other diagonal.
      return ['transpose=clock_flip'];
    case 8:
      return ['transpose=cclock'];
    default:
      return [];
  }
}
