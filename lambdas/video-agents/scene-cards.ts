/**
 * Scene cards: the picture behind each scene of an agent's video, drawn with sharp (librsvg) from a
 * style: the style's gradient (or an uploaded image, darkened so text reads on it), the scene's
 * on-screen text in the style's bundled font, and an accent bar. With a presenter the text sits in the
 * upper part of the frame, where the presenter (bottom-centred) does not cover it. The card becomes the
 * scene's image background in the normal render (its narration, presenter and captions on top).
 *
 * Runs where sharp and the bundled fonts are (the media image on AWS).
 */
import type { AgentStyle } from './agent-styles.js';

export interface SceneCardRequest {
  style: AgentStyle;
  width: number;
  height: number;
  /** On-screen text; empty draws none. */
  text: string;
  /** Leaves the lower part of the frame to a presenter. */
  presenter: boolean;
  /** An uploaded image to fill the frame instead of the gradient (cover). */
  image?: Buffer;
  /** The scene's position: consecutive cards turn their gradient, so cuts between them show. @default 0 */
  variant?: number;
}

/** Gradient directions (x1 y1 x2 y2) the cards take in turn. */
const GRADIENT_DIRECTIONS = ['0 0 1 1', '1 0 0 1', '0 1 1 0', '1 1 0 0'] as const;

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** Lines of at most `perLine` characters (words are not split unless longer than a line). */
export function wrapText(text: string, perLine: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (!line) line = word;
    else if (line.length + 1 + word.length <= perLine) line = `${line} ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** Lines a card shows at most: text beyond them is not drawn. */
export const MAX_CARD_LINES = 3;

/** The card's text as wrapped lines, all of them (the card draws the first `MAX_CARD_LINES`). */
export function cardLines(request: SceneCardRequest): string[] {
  const { style, width } = request;
  const text = style.typography.uppercase ? request.text.toUpperCase() : request.text;
  const fontSize = cardFontSize(request);
  // DejaVu's average advance is about 0.6 em (bold, capitals: wider).
  const advance = fontSize * (style.typography.uppercase || style.typography.bold ? 0.66 : 0.58);
  const margin = cardMargin(request);
  const perLine = Math.max(8, Math.floor((width - 2 * margin) / advance));
  return wrapText(text, perLine);
}

const cardFontSize = (request: SceneCardRequest) =>
  Math.round(Math.min(request.width, request.height) * (request.presenter ? 0.075 : 0.095));
const cardMargin = (request: SceneCardRequest) => Math.round(request.width * 0.07);

function textLayer(request: SceneCardRequest): string {
  const { style, width, height } = request;
  const short = Math.min(width, height);
  const fontSize = cardFontSize(request);
  const margin = cardMargin(request);
  const lines = cardLines(request).slice(0, MAX_CARD_LINES);
  const lineHeight = Math.round(fontSize * 1.2);
  const blockHeight = lines.length * lineHeight;
  const top = request.presenter
    ? Math.round(height * 0.1)
    : Math.round((height - blockHeight) / 2) - Math.round(fontSize * 0.3);
  const tspans = lines
    .map(
      (line, index) =>
        `<text x="${margin}" y="${top + fontSize + index * lineHeight}" font-family="${style.typography.family}" font-size="${fontSize}" font-weight="${style.typography.bold ? 'bold' : 'normal'}" fill="${style.palette.text}">${escapeXml(line)}</text>`,
    )
    .join('');
  const barTop = top + blockHeight + Math.round(fontSize * 0.45);
  const bar =
    lines.length > 0
      ? `<rect x="${margin}" y="${barTop}" width="${Math.round(width * 0.12)}" height="${Math.max(4, Math.round(short * 0.012))}" fill="${style.palette.accent}"/>`
      : '';
  return tspans + bar;
}

function gradientDirection(variant: number): string {
  const [x1, y1, x2, y2] = (GRADIENT_DIRECTIONS[variant % GRADIENT_DIRECTIONS.length] as string).split(' ');
  return `x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}"`;
}

/** The card as a PNG of exactly `width` × `height`. */
export async function renderSceneCard(request: SceneCardRequest): Promise<Buffer> {
  const { style, width, height } = request;
  const backdrop = request.image
    ? // An upload keeps its picture; a veil keeps the text readable on it.
      `<rect width="100%" height="100%" fill="#000000" fill-opacity="${request.text ? 0.45 : 0}"/>`
    : `<defs><linearGradient id="g" ${gradientDirection(request.variant ?? 0)}><stop offset="0" stop-color="${style.palette.from}"/><stop offset="1" stop-color="${style.palette.to}"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${backdrop}${request.text ? textLayer(request) : ''}</svg>`;
  const overlay = Buffer.from(svg);
  // Loaded when a card is drawn: the agent's steps share one module, and only Render (the media image)
  // draws; its zip-packaged steps must import without sharp.
  const { default: sharp } = await import('sharp');
  if (!request.image) return sharp(overlay).png().toBuffer();
  return sharp(request.image)
    .rotate()
    .resize(width, height, { fit: 'cover' })
    .composite([{ input: overlay }])
    .png()
    .toBuffer();
}
