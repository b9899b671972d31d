/**
 * Real PDF files for tests: each page's lines drawn as text in Helvetica (one of the 14 standard fonts,
 * so the file embeds none), with a correct cross-reference table. `encrypted` adds a Standard security
 * handler whose user password is not empty, so a reader without the password cannot open the file;
 * a page of `null` draws a filled rectangle and no text (as a scanned page has no text layer).
 */

/** Lines of text of one page (a paragraph break is an empty line), or null for a page with no text. */
export type PdfPage = readonly string[] | null;

const escapeText = (text: string) => text.replace(/[\\()]/g, (char) => `\\${char}`);

function pageStream(page: PdfPage): string {
  if (page === null) return '0.5 g 72 72 468 648 re f';
  const lines = page.map((line) => (line === '' ? 'T*' : `(${escapeText(line)}) Tj T*`));
  return `BT /F1 12 Tf 16 TL 72 720 Td ${lines.join(' ')} ET`;
}

export function textPdf(pages: readonly PdfPage[], options: { encrypted?: boolean } = {}): Buffer {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body);
  add('<< /Type /Catalog /Pages 2 0 R >>');
  const firstPage = 4;
  const kids = pages.map((_, index) => `${firstPage + index * 2} 0 R`).join(' ');
  add(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  for (const [index, page] of pages.entries()) {
    const content = pageStream(page);
    add(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${firstPage + index * 2 + 1} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`,
    );
    add(`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`);
  }
  if (options.encrypted) {
    add(`<< /Filter /Standard /V 1 /R 2 /O <${'ab'.repeat(32)}> /U <${'cd'.repeat(32)}> /P -4 >>`);
  }
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (const [index, object] of objects.entries()) {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  }
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  const encryption = options.encrypted
    ? ` /Encrypt ${objects.length} 0 R /ID [<${'01'.repeat(16)}> <${'01'.repeat(16)}>]`
    : '';
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${encryption} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/** Bytes that start like a PDF and are not one. */
export function corruptPdf(): Buffer {
  return Buffer.from(
    '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 9 0 R\ngarbage\n',
    'latin1',
  );
}
