import { describe, expect, it } from 'vitest';
import {
  PDF_UNREADABLE_REASONS,
  PdfUnreadableError,
  readPdfText,
} from '../../../lambdas/engines/documents/pdf-text.js';
import { corruptPdf, textPdf } from '../../support/pdf-documents.js';

const LIMITS = { maxPages: 50, maxCharacters: 100_000 };

describe('readPdfText', () => {
  it('reads every page in order, with its lines and paragraphs', async () => {
    const read = await readPdfText(
      textPdf([
        [
          'Tidal power (and why it matters)',
          '',
          'The sea rises and falls twice a day.',
          'Turbines turn with it.',
        ],
        ['Page two speaks of lagoons.'],
      ]),
      LIMITS,
    );
    expect(read).toEqual({
      text: 'Tidal power (and why it matters)\n\nThe sea rises and falls twice a day.\nTurbines turn with it.\n\nPage two speaks of lagoons.',
      pages: 2,
      pagesRead: 2,
      charactersCut: false,
    });
  });

  it('stops at the page limit and cuts the text at a word within the character limit', async () => {
    const pages = Array.from({ length: 5 }, (_, index) => [`Page ${index + 1} about tidal currents.`]);
    const paged = await readPdfText(textPdf(pages), { maxPages: 2, maxCharacters: 1000 });
    expect(paged).toMatchObject({ pages: 5, pagesRead: 2, charactersCut: false });
    expect(paged.text).toBe('Page 1 about tidal currents.\n\nPage 2 about tidal currents.');
    const cut = await readPdfText(textPdf(pages), { maxPages: 50, maxCharacters: 20 });
    expect(cut.text).toBe('Page 1 about tidal');
    expect(cut.charactersCut).toBe(true);
    expect(cut.pagesRead).toBe(1);
  });

  it.each([
    ['an encrypted file', textPdf([['Secret tides']], { encrypted: true }), PDF_UNREADABLE_REASONS.encrypted],
    ['a damaged file', corruptPdf(), PDF_UNREADABLE_REASONS.corrupt],
    ['a file of images only', textPdf([null, null]), PDF_UNREADABLE_REASONS.noText],
  ])('refuses %s with the reason', async (_, bytes, reason) => {
    const error = await readPdfText(bytes, LIMITS).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PdfUnreadableError);
    expect((error as PdfUnreadableError).reason).toBe(reason);
  });
});
