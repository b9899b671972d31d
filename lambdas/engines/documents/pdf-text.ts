/**
 * The text of a PDF document, with pdf.js (`pdfjs-dist`, Apache-2.0): the words of its text layer, page
 * by page, in reading order as the file draws them, broken into lines and paragraphs from the items'
 * positions. No rendering, no OCR: a scanned PDF (images only) has no text to give.
 *
 * pdf.js is loaded on first use (three megabytes of parsing that the functions that never read a PDF
 * do not pay for), and its parser runs on this thread: its "worker" module is handed to it through
 * `globalThis.pdfjsWorker`, so it never looks for a worker file beside the bundle. Its display layer
 * needs `DOMMatrix` as it loads, which Node.js lacks: pdf.js takes it from its optional
 * `@napi-rs/canvas`, so deployed this runs in the media image, which installs both
 * (lib/stack/media-image.ts); a zip bundle could import this module but not read a PDF.
 */
import type { PDFDocumentProxy, PDFPageProxy as PdfPage } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem, TextMarkedContent } from 'pdfjs-dist/types/src/display/api.js';

export interface PdfTextLimits {
  /** Pages read at most; later pages are left out. */
  maxPages: number;
  /** Characters kept at most (cut at a word boundary). */
  maxCharacters: number;
}

export interface PdfText {
  text: string;
  /** Pages of the document. */
  pages: number;
  /** Pages read (fewer than `pages` when `maxPages` cut the rest). */
  pagesRead: number;
  /** Whether `maxCharacters` cut the text. */
  charactersCut: boolean;
}

/** Why a PDF gives no text: the reason is worded to end "The PDF …". */
export const PDF_UNREADABLE_REASONS = {
  encrypted: 'is encrypted (password protected)',
  corrupt: 'is damaged or not a PDF',
  noText: 'has no text layer (scanned pages or images only: this service does not read text in images)',
} as const;
export type PdfUnreadableReason = (typeof PDF_UNREADABLE_REASONS)[keyof typeof PDF_UNREADABLE_REASONS];

export class PdfUnreadableError extends Error {
  constructor(
    readonly reason: PdfUnreadableReason,
    options: { cause?: unknown } = {},
  ) {
    super(`The PDF ${reason}`, options);
    this.name = 'PdfUnreadableError';
  }
}

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | undefined;

function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= (async () => {
    const worker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    return import('pdfjs-dist/legacy/build/pdf.mjs');
  })();
  return pdfjs;
}

const isTextItem = (item: TextItem | TextMarkedContent): item is TextItem => 'str' in item;

/**
 * A page's items as lines: a new line where an item says it ends one (`hasEOL`) or where the next item
 * sits lower or higher than the last; an empty line (a paragraph) where the gap is well over a line's
 * height; a space between items of one line that are apart.
 */
export function pageText(items: readonly (TextItem | TextMarkedContent)[]): string {
  let text = '';
  let previous: { y: number; end: number; height: number; eol: boolean } | undefined;
  for (const item of items) {
    if (!isTextItem(item)) continue;
    if (item.str === '') {
      // pdf.js marks a line break it inferred with an empty item.
      if (previous && item.hasEOL) previous.eol = true;
      continue;
    }
    const x = item.transform[4] ?? 0;
    const y = item.transform[5] ?? 0;
    const height = Math.abs(item.height) || Math.abs(item.transform[3] ?? 0) || 1;
    if (previous) {
      const rise = Math.abs(y - previous.y);
      if (rise > previous.height * 1.8) text += '\n\n';
      else if (previous.eol || rise > previous.height * 0.5) text += '\n';
      else if (!/\s$/.test(text) && !/^\s/.test(item.str) && x - previous.end > height * 0.15) text += ' ';
    }
    text += item.str;
    previous = { y, end: x + item.width, height, eol: item.hasEOL };
  }
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Cuts `text` to at most `max` characters, at the last word boundary before it. */
function cutAt(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const boundary = cut.search(/\s\S*$/);
  return (boundary > 0 ? cut.slice(0, boundary) : cut).trimEnd();
}

async function openPdf(data: Uint8Array): Promise<PDFDocumentProxy> {
  const { getDocument, VerbosityLevel } = await loadPdfJs();
  try {
    return await getDocument({
      data,
      isEvalSupported: false,
      // Text only: no fonts are drawn, so the standard fonts' data (and pdf.js's warning that it has
      // none) are not needed; warnings about a file's small defects are not the operator's business.
      verbosity: VerbosityLevel.ERRORS,
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: false,
    }).promise;
  } catch (error) {
    throw new PdfUnreadableError(
      // pdf.js does not export the class of the error it throws for a password.
      error instanceof Error && error.name === 'PasswordException'
        ? PDF_UNREADABLE_REASONS.encrypted
        : PDF_UNREADABLE_REASONS.corrupt,
      { cause: error },
    );
  }
}

/**
 * The text of the PDF `bytes`, within `limits`.
 * @throws PdfUnreadableError when the file is encrypted, damaged, or has no text
 */
export async function readPdfText(bytes: Uint8Array, limits: PdfTextLimits): Promise<PdfText> {
  // pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy.
  const document = await openPdf(new Uint8Array(bytes));
  try {
    const pageLimit = Math.min(document.numPages, limits.maxPages);
    const pages: string[] = [];
    let pagesRead = 0;
    let length = 0;
    while (pagesRead < pageLimit && length <= limits.maxCharacters) {
      pagesRead += 1;
      let items: Awaited<ReturnType<PdfPage['getTextContent']>>['items'];
      try {
        items = (await (await document.getPage(pagesRead)).getTextContent()).items;
      } catch (error) {
        throw new PdfUnreadableError(PDF_UNREADABLE_REASONS.corrupt, { cause: error });
      }
      const text = pageText(items);
      if (text !== '') {
        pages.push(text);
        length += text.length + 2;
      }
    }
    const whole = pages.join('\n\n');
    if (whole.trim() === '') throw new PdfUnreadableError(PDF_UNREADABLE_REASONS.noText);
    const text = cutAt(whole, limits.maxCharacters);
    return { text, pages: document.numPages, pagesRead, charactersCut: text.length < whole.length };
  } finally {
    await document.destroy();
  }
}
