/**
 * A HyperFrames project: the zip a render request sends (`project`), checked before anything renders
 * and unpacked by the render step. The checks read the zip's central directory (names, sizes, Unix
 * modes) without inflating anything, so a zip bomb is refused by its declared sizes; fflate inflates
 * the entries only once they passed. Every refusal is a 400 naming `project` (or `composition` for
 * the entry file, `aspect_ratio`/`resolution` for a size that does not match the request).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { InvalidParameterError } from '../core/errors.js';

const MiB = 1024 * 1024;

/** Limits of a project zip (`config().hyperframes`: `HYPERFRAMES_MAX_ZIP_BYTES`, …). */
export interface ProjectLimits {
  /** The zip itself, in bytes. */
  maxZipBytes: number;
  /** All entries once unpacked, in bytes (as the zip declares them). */
  maxUnpackedBytes: number;
  /** Entries, directories included. */
  maxFiles: number;
}

/** One entry of the zip's central directory. */
interface ZipEntry {
  name: string;
  compressedSize: number;
  size: number;
  isDirectory: boolean;
  isSymlink: boolean;
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_HEADER_SIGNATURE = 0x02014b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;
const UNIX_FILE_TYPE_MASK = 0o170000;
const UNIX_SYMLINK = 0o120000;
const ZIP64_MARKER = 0xffffffff;

const refuse = (message: string) => new InvalidParameterError(message, 'project');

/** The zip's central directory: every entry's name, sizes and kind; refuses what is not a plain zip. */
function centralDirectory(zip: Uint8Array): ZipEntry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let eocd = -1;
  for (let at = zip.length - EOCD_SIZE; at >= Math.max(0, zip.length - EOCD_SIZE - MAX_COMMENT); at--) {
    if (view.getUint32(at, true) === EOCD_SIGNATURE) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) throw refuse('project is not a zip archive (no end of central directory found).');
  const count = view.getUint16(eocd + 10, true);
  const directorySize = view.getUint32(eocd + 12, true);
  const directoryOffset = view.getUint32(eocd + 16, true);
  if (directoryOffset === ZIP64_MARKER || count === 0xffff) {
    throw refuse('project is a ZIP64 archive; send a plain zip (under 4 GiB, fewer than 65535 entries).');
  }
  if (directoryOffset + directorySize > zip.length) throw refuse('project is a truncated zip archive.');
  const entries: ZipEntry[] = [];
  let at = directoryOffset;
  const decoder = new TextDecoder();
  for (let index = 0; index < count; index++) {
    if (at + 46 > zip.length || view.getUint32(at, true) !== CENTRAL_HEADER_SIGNATURE) {
      throw refuse('project is a damaged zip archive (its central directory cannot be read).');
    }
    const compressedSize = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const madeBy = view.getUint8(at + 5); // 3: Unix, whose mode is the external attributes' high half
    const unixMode = madeBy === 3 ? view.getUint32(at + 38, true) >>> 16 : 0;
    const name = decoder.decode(zip.subarray(at + 46, at + 46 + nameLength));
    if (compressedSize === ZIP64_MARKER || size === ZIP64_MARKER) {
      throw refuse(`project entry ${name} uses ZIP64 sizes; send a plain zip.`);
    }
    entries.push({
      name,
      compressedSize,
      size,
      isDirectory: name.endsWith('/'),
      isSymlink: (unixMode & UNIX_FILE_TYPE_MASK) === UNIX_SYMLINK,
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** An entry's path inside the project, or the refusal that says why it cannot be one. */
function safeEntryPath(name: string): string {
  const slashed = name.replaceAll('\\', '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) {
    throw refuse(`project entry ${name} has an absolute path; entries must be relative to the project.`);
  }
  if (slashed.split('/').includes('..')) {
    throw refuse(`project entry ${name} leaves the project (a ".." path segment).`);
  }
  if (slashed.includes('\0')) throw refuse(`project entry ${JSON.stringify(name)} has a NUL in its name.`);
  return path.posix.normalize(slashed).replace(/^\.\//, '');
}

/** The composition path as the request gives it, normalised the way entry names are. */
export function compositionPath(composition: string): string {
  const normalised = path.posix.normalize(composition.replaceAll('\\', '/')).replace(/^\.\//, '');
  if (normalised.startsWith('/') || normalised.startsWith('../') || normalised === '..') {
    throw new InvalidParameterError('composition must be a path inside the project zip.', 'composition');
  }
  return normalised;
}

/**
 * The zip's entries after every check: size, file count, unpacked size, paths (no absolute path, no
 * `..`, no symlink), and the composition present as a file.
 */
export function checkProjectZip(zip: Uint8Array, composition: string, limits: ProjectLimits): ZipEntry[] {
  if (zip.length > limits.maxZipBytes) {
    throw refuse(
      `project is ${(zip.length / MiB).toFixed(1)} MiB; a project zip may be at most ${(limits.maxZipBytes / MiB).toFixed(0)} MiB.`,
    );
  }
  const entries = centralDirectory(zip);
  if (entries.length > limits.maxFiles) {
    throw refuse(
      `project holds ${entries.length} entries; a project zip may hold at most ${limits.maxFiles}.`,
    );
  }
  const unpacked = entries.reduce((total, entry) => total + entry.size, 0);
  if (unpacked > limits.maxUnpackedBytes) {
    throw refuse(
      `project unpacks to ${(unpacked / MiB).toFixed(1)} MiB; a project may unpack to at most ${(limits.maxUnpackedBytes / MiB).toFixed(0)} MiB.`,
    );
  }
  for (const entry of entries) {
    safeEntryPath(entry.name);
    if (entry.isSymlink)
      throw refuse(`project entry ${entry.name} is a symbolic link; send the file itself.`);
  }
  const entry = compositionPath(composition);
  if (!entries.some((candidate) => !candidate.isDirectory && safeEntryPath(candidate.name) === entry)) {
    throw new InvalidParameterError(
      `composition ${entry} is not in the project zip (it holds ${entries
        .filter((candidate) => !candidate.isDirectory)
        .slice(0, 5)
        .map((candidate) => candidate.name)
        .join(', ')}${entries.length > 5 ? ', …' : ''}).`,
      'composition',
    );
  }
  return entries;
}

/** The bytes of one entry (the composition), inflated; the zip was checked. */
export function readProjectEntry(zip: Uint8Array, entryPath: string): Uint8Array {
  const files = unzipSync(zip, { filter: (file) => safeEntryPath(file.name) === entryPath });
  const found = Object.entries(files).find(([name]) => safeEntryPath(name) === entryPath);
  if (!found)
    throw new InvalidParameterError(`composition ${entryPath} is not in the project zip.`, 'composition');
  return found[1];
}

/** Unpacks a checked zip into `directory` (the checks run again: the step trusts nothing stored). */
export async function unpackProject(
  zip: Uint8Array,
  composition: string,
  directory: string,
  limits: ProjectLimits,
): Promise<void> {
  checkProjectZip(zip, composition, limits);
  const files = unzipSync(zip);
  for (const [name, bytes] of Object.entries(files)) {
    const relative = safeEntryPath(name);
    const target = path.join(directory, relative);
    if (name.endsWith('/')) {
      await mkdir(target, { recursive: true });
      continue;
    }
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, bytes);
  }
}
