/**
 * The service's own documentation pages (`GET /v3/docs/errors`, `GET /v3/docs/webhooks`), rendered from
 * `docs/*.md` by `npm run docs:generate` into a JSON module the meta area serves. A small renderer of
 * the Markdown these files use (headings, paragraphs, lists, tables, code, links, emphasis) rather than a
 * dependency: everything is HTML-escaped except one raw form, the `<a id="code"></a>` anchors that give
 * each error code its fragment, so no text of the docs can inject markup into a page the API serves.
 */

const ANCHOR = /<a id="([A-Za-z0-9_.-]+)"><\/a>/g;

function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

/** The fragment id GitHub gives a heading, so the docs' own `#…` links keep working. */
export function headingSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/**
 * Links between the docs point at the served pages (`webhooks.md#x` → `webhooks#x`); other relative
 * links (source files) have no page here and become text. Only http(s), fragment and mailto links stay.
 */
function linkTarget(href: string, pages: ReadonlySet<string>): string | undefined {
  if (/^(https?:|mailto:|#)/i.test(href)) return href;
  const page = href.match(/^(?:\.\/|docs\/)?([a-z0-9-]+)\.md(#.*)?$/i);
  if (page?.[1] && pages.has(page[1])) return `${page[1]}${page[2] ?? ''}`;
  return undefined;
}

function inline(text: string, pages: ReadonlySet<string>): string {
  // Code spans first, kept out of every other rule (behind private-use placeholders); then anchors,
  // links and emphasis on the escaped text.
  const codes: string[] = [];
  const anchors: string[] = [];
  let rest = text.replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (_all, _ticks, code: string) => {
    codes.push(`<code>${escapeHtml(code.trim() === '' ? code : code.replace(/^ (.*) $/, '$1'))}</code>`);
    return `\uE000${codes.length - 1}\uE000`;
  });
  rest = rest.replace(ANCHOR, (_all, id: string) => {
    anchors.push(`<a id="${escapeHtml(id)}"></a>`);
    return `\uE001${anchors.length - 1}\uE001`;
  });
  rest = escapeHtml(rest)
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_all, label: string, href: string) => {
      const target = linkTarget(href.replaceAll('&amp;', '&'), pages);
      return target ? `<a href="${escapeHtml(target)}">${label}</a>` : label;
    })
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[^\w*])\*([^*\s][^*]*)\*(?!\w)/g, '$1<em>$2</em>');
  return rest
    .replace(/\uE001(\d+)\uE001/g, (_all, index: string) => anchors[Number(index)] ?? '')
    .replace(/\uE000(\d+)\uE000/g, (_all, index: string) => codes[Number(index)] ?? '');
}

function tableCells(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let inCode = false;
  const body = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  for (let index = 0; index < body.length; index++) {
    const char = body[index];
    if (char === '\\' && body[index + 1] === '|') {
      cell += '|';
      index++;
    } else if (char === '`') {
      inCode = !inCode;
      cell += char;
    } else if (char === '|' && !inCode) {
      cells.push(cell.trim());
      cell = '';
    } else cell += char;
  }
  cells.push(cell.trim());
  return cells;
}

/** The body of one document, as HTML. `pages` names the documents served beside it. */
export function markdownToHtml(markdown: string, pages: ReadonlySet<string> = new Set()): string {
  const lines = markdown.replace(/\r\n/g, '\n').split('\n');
  const out: string[] = [];
  let index = 0;
  const isTableRow = (line: string | undefined) => line !== undefined && /^\s*\|.*\|\s*$/.test(line);
  const isListItem = (line: string | undefined) => line !== undefined && /^\s*([-*]|\d+\.)\s+/.test(line);
  while (index < lines.length) {
    const line = lines[index] ?? '';
    const fence = line.match(/^(\s*)(```+|~~~+)\s*([\w-]*)\s*$/);
    if (fence) {
      const closing = fence[2] ?? '```';
      const code: string[] = [];
      index++;
      while (index < lines.length && !(lines[index] ?? '').trim().startsWith(closing))
        code.push(lines[index++] ?? '');
      index++;
      const language = fence[3] ? ` class="language-${escapeHtml(fence[3])}"` : '';
      out.push(`<pre><code${language}>${escapeHtml(code.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = line.match(/^(#{1,6})\s+(.*?)\s*#*\s*$/);
    if (heading) {
      const level = heading[1]?.length ?? 1;
      const text = heading[2] ?? '';
      out.push(`<h${level} id="${escapeHtml(headingSlug(text))}">${inline(text, pages)}</h${level}>`);
      index++;
      continue;
    }
    if (isTableRow(line) && /^\s*\|?\s*:?-{3,}/.test(lines[index + 1] ?? '')) {
      const header = tableCells(line);
      index += 2;
      const rows: string[][] = [];
      while (isTableRow(lines[index])) rows.push(tableCells(lines[index++] ?? ''));
      out.push(
        '<table>',
        `<thead><tr>${header.map((cell) => `<th>${inline(cell, pages)}</th>`).join('')}</tr></thead>`,
        '<tbody>',
        ...rows.map((row) => `<tr>${row.map((cell) => `<td>${inline(cell, pages)}</td>`).join('')}</tr>`),
        '</tbody>',
        '</table>',
      );
      continue;
    }
    if (isListItem(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const items: string[] = [];
      while (index < lines.length && (lines[index] ?? '').trim() !== '') {
        const current = lines[index] ?? '';
        if (isListItem(current)) items.push(current.replace(/^\s*([-*]|\d+\.)\s+/, ''));
        else items[items.length - 1] = `${items.at(-1) ?? ''} ${current.trim()}`;
        index++;
      }
      const tag = ordered ? 'ol' : 'ul';
      out.push(`<${tag}>${items.map((item) => `<li>${inline(item, pages)}</li>`).join('')}</${tag}>`);
      continue;
    }
    if (line.trim() === '') {
      index++;
      continue;
    }
    const paragraph: string[] = [];
    while (
      index < lines.length &&
      (lines[index] ?? '').trim() !== '' &&
      !/^(#{1,6}\s|\s*```|\s*~~~)/.test(lines[index] ?? '') &&
      !isTableRow(lines[index]) &&
      !(paragraph.length > 0 && isListItem(lines[index]))
    ) {
      paragraph.push((lines[index++] ?? '').trim());
    }
    out.push(`<p>${inline(paragraph.join(' '), pages)}</p>`);
  }
  return out.join('\n');
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#1b1f23}
code{font:0.9em ui-monospace,monospace;background:#f3f4f6;padding:0 .2em;border-radius:3px}
pre{background:#f3f4f6;padding:1em;overflow:auto}pre code{padding:0}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #d0d7de;padding:.4em .6em;vertical-align:top;text-align:left}
:target,tr:has(:target){background:#fff8c5}`;

/** A whole page: one document, with a title and no script. */
export function htmlPage(title: string, markdown: string, pages: ReadonlySet<string>): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${markdownToHtml(markdown, pages)}
</body>
</html>
`;
}
