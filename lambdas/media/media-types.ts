/**
 * What a file is, decided from its bytes (magic numbers), never from its name or declared type.
 * Binary formats come from `file-type`; subtitles are text, so SRT and WebVTT are recognised by
 * their structure, and fonts by their table directory (font-files.ts).
 */
import { fileTypeFromBuffer } from 'file-type';
import { FONT_SIGNATURES, looksLikeSfnt } from './font-files.js';

export const MEDIA_KINDS = {
  image: 'image',
  video: 'video',
  audio: 'audio',
  document: 'document',
  subtitle: 'subtitle',
  archive: 'archive',
  /** A TrueType or OpenType font (a brand kit's caption font). */
  font: 'font',
} as const;
export type MediaKind = (typeof MEDIA_KINDS)[keyof typeof MEDIA_KINDS];

/** Every type the service accepts, by MIME type. */
export const ACCEPTED_MEDIA_TYPES = {
  'image/png': { kind: MEDIA_KINDS.image, extension: 'png' },
  'image/jpeg': { kind: MEDIA_KINDS.image, extension: 'jpg' },
  'image/webp': { kind: MEDIA_KINDS.image, extension: 'webp' },
  'video/mp4': { kind: MEDIA_KINDS.video, extension: 'mp4' },
  'video/quicktime': { kind: MEDIA_KINDS.video, extension: 'mov' },
  'video/webm': { kind: MEDIA_KINDS.video, extension: 'webm' },
  'audio/mpeg': { kind: MEDIA_KINDS.audio, extension: 'mp3' },
  'audio/wav': { kind: MEDIA_KINDS.audio, extension: 'wav' },
  'audio/mp4': { kind: MEDIA_KINDS.audio, extension: 'm4a' },
  'application/pdf': { kind: MEDIA_KINDS.document, extension: 'pdf' },
  'application/x-subrip': { kind: MEDIA_KINDS.subtitle, extension: 'srt' },
  'text/vtt': { kind: MEDIA_KINDS.subtitle, extension: 'vtt' },
  'application/zip': { kind: MEDIA_KINDS.archive, extension: 'zip' },
  'font/ttf': { kind: MEDIA_KINDS.font, extension: 'ttf' },
  'font/otf': { kind: MEDIA_KINDS.font, extension: 'otf' },
} as const;
export type AcceptedMimeType = keyof typeof ACCEPTED_MEDIA_TYPES;

/** Names clients commonly declare for the accepted types. */
const MIME_ALIASES: Record<string, AcceptedMimeType> = {
  'image/jpg': 'image/jpeg',
  'audio/mp3': 'audio/mpeg',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
  'audio/x-m4a': 'audio/mp4',
  'text/srt': 'application/x-subrip',
  'application/srt': 'application/x-subrip',
  'application/x-zip-compressed': 'application/zip',
  'application/x-font-ttf': 'font/ttf',
  'application/x-font-truetype': 'font/ttf',
  'application/font-sfnt': 'font/ttf',
  'font/sfnt': 'font/ttf',
  'application/x-font-otf': 'font/otf',
  'application/x-font-opentype': 'font/otf',
  'application/vnd.ms-opentype': 'font/otf',
};

export interface DetectedMedia {
  mimeType: AcceptedMimeType;
  kind: MediaKind;
  extension: string;
}

/** How many leading bytes detection needs. */
export const SNIFF_BYTES = 4100;

/** The accepted type a declared MIME type names, if any (`image/jpg` is `image/jpeg`). */
export function normaliseMimeType(declared: string): AcceptedMimeType | undefined {
  const bare = declared.split(';')[0]?.trim().toLowerCase() ?? '';
  if (Object.hasOwn(ACCEPTED_MEDIA_TYPES, bare)) return bare as AcceptedMimeType;
  return MIME_ALIASES[bare];
}

function accepted(mimeType: AcceptedMimeType): DetectedMedia {
  return { mimeType, ...ACCEPTED_MEDIA_TYPES[mimeType] };
}

const SRT_CUE = /^\uFEFF?\s*\d+\s*\r?\n\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}\s*-->\s*\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}/;
const VTT_HEADER = /^\uFEFF?WEBVTT(\s|$)/;

function detectSubtitle(head: Uint8Array): DetectedMedia | undefined {
  let text: string;
  try {
    // `stream`: a multibyte character cut at the end of the sample waits for bytes that never come,
    // instead of failing the decode; anything else that is not UTF-8 is not a subtitle.
    text = new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, 1024), { stream: true });
  } catch {
    return undefined;
  }
  if (VTT_HEADER.test(text)) return accepted('text/vtt');
  if (SRT_CUE.test(text)) return accepted('application/x-subrip');
  return undefined;
}

/** Detects the type of a file from its first bytes; undefined when it is none the service accepts. */
export async function detectMediaType(head: Uint8Array): Promise<DetectedMedia | undefined> {
  if (head.length === 0) return undefined;
  // Apple's `true` TrueType signature is one `file-type` does not know.
  if (looksLikeSfnt(head))
    return accepted(
      new DataView(head.buffer, head.byteOffset).getUint32(0) === FONT_SIGNATURES.openTypeCff
        ? 'font/otf'
        : 'font/ttf',
    );
  const sniffed = await fileTypeFromBuffer(head);
  if (sniffed) {
    // QuickTime-branded ISO media is still served as MP4 by most players; keep what the bytes say.
    const mimeType = normaliseMimeType(sniffed.mime);
    return mimeType ? accepted(mimeType) : undefined;
  }
  return detectSubtitle(head);
}
