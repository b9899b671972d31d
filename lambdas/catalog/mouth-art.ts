/**
 * The presenter's mouth and eyes, in the portrait's figure space (`portrait-art.ts`): the one way
 * both are drawn, for the still portrait (the `rest` mouth, open eyes) and for the sprites a
 * compositor overlays on it while the presenter speaks (a mouth per viseme, closed eyes for a blink;
 * `sprite-art.ts`). Pure functions: an appearance in, SVG fragments out.
 */

import { VISEMES as VISEME_SHAPES, type Viseme } from '../engines/speech/visemes.js';
import { darken, lighten, mix } from './art-colors.js';
import type { LookAppearance } from './look-appearance.js';

/**
 * The mouth shapes drawn for each look, in the order a viseme track names them (visemes.ts): `closed`
 * (m, b, p), `rest` (the portrait's own mouth), `open_small`, `open_wide` (a), `rounded` (o, u, w),
 * `spread` (e, i) and `lip_teeth` (f, v).
 */
export const VISEMES: readonly Viseme[] = Object.values(VISEME_SHAPES);
export type { Viseme };

export type EyeState = 'open' | 'closed';

/** An ellipse in figure space. */
export interface FigureEllipse {
  cx: number;
  cy: number;
  rx: number;
  ry: number;
}

/**
 * Where every mouth shape lies (with a margin), in figure space: a mouth sprite is the face inside
 * this ellipse, so whichever shape it shows covers the portrait's own mouth.
 */
export const MOUTH_AREA: FigureEllipse = { cx: 500, cy: 474, rx: 58, ry: 30 };

/** Where each eye lies, open or closed, in figure space (left eye first). */
export const EYE_AREAS: readonly FigureEllipse[] = [
  { cx: 452, cy: 362, rx: 32, ry: 24 },
  { cx: 548, cy: 362, rx: 32, ry: 24 },
];

const LASH_COLOR = '#2a1d18';
const TEETH = '#f6f3ee';

/** The lip colour: the lipstick, or natural lips from the skin. */
export function lipColor(appearance: LookAppearance): string {
  return appearance.lips ?? mix(darken(appearance.skin, 0.25), '#b0444a', 0.45);
}

/** Both eyes, open (the portrait) or closed (a blink: lids in the skin colour over a lash line). */
export function eyesArt(appearance: LookAppearance, feminine: boolean, state: EyeState): string {
  const { skin, eyes } = appearance;
  const lash = feminine ? 5 : 3.5;
  const crease = (cx: number) =>
    `<path d="M ${cx - 18} 374 Q ${cx} 380 ${cx + 18} 374" stroke="${darken(skin, 0.2)}" stroke-width="2" fill="none" opacity="0.6"/>`;
  const open = (cx: number) =>
    `<ellipse cx="${cx}" cy="362" rx="21" ry="13" fill="#fbfbfb"/>` +
    `<circle cx="${cx}" cy="363" r="10.5" fill="${eyes}"/>` +
    `<circle cx="${cx}" cy="363" r="5" fill="#1a1412"/>` +
    `<circle cx="${cx + 3.5}" cy="359.5" r="3" fill="#ffffff"/>` +
    `<path d="M ${cx - 23} 361 Q ${cx} 343 ${cx + 23} 361" stroke="${LASH_COLOR}" stroke-width="${lash}" fill="none" stroke-linecap="round"/>` +
    crease(cx);
  const closed = (cx: number) => {
    // Lashes below the lash line, fanning outwards (longer and more of them on feminine looks).
    const lashes = (feminine ? [-14, -6, 4, 13] : [-10, 8])
      .map((dx) => {
        const y = 362 + 12 * (1 - (dx / 23) ** 2);
        const out = dx < 0 ? -1 : 1;
        return `M ${cx + dx} ${y.toFixed(1)} l ${out * 3} ${feminine ? 6 : 4}`;
      })
      .join(' ');
    return (
      // The lid: the eye's own shape in skin, a shade darker than the cheek around it.
      `<path d="M ${cx - 23} 362 Q ${cx} 340 ${cx + 23} 362 Q ${cx} 374 ${cx - 23} 362 Z" fill="${darken(skin, 0.07)}"/>` +
      `<path d="M ${cx - 19} 356 Q ${cx} 346 ${cx + 19} 356" stroke="${darken(skin, 0.25)}" stroke-width="2" fill="none" opacity="0.5" stroke-linecap="round"/>` +
      `<path d="M ${cx - 23} 362 Q ${cx} 374 ${cx + 23} 362" stroke="${LASH_COLOR}" stroke-width="${lash}" fill="none" stroke-linecap="round"/>` +
      `<path d="${lashes}" stroke="${LASH_COLOR}" stroke-width="${feminine ? 2.2 : 1.8}" fill="none" stroke-linecap="round"/>` +
      crease(cx)
    );
  };
  const eye = state === 'open' ? open : closed;
  return eye(452) + eye(548);
}

/** The portrait's mouth, exactly as the still portrait has always drawn it (a smile showing teeth). */
function restMouth(lips: string, feminine: boolean): string {
  return feminine
    ? `<path d="M 464 464 Q 500 500 536 464 Q 500 474 464 464 Z" fill="${lips}"/>` +
        `<path d="M 474 468 Q 500 486 526 468 Q 500 474 474 468 Z" fill="#ffffff" opacity="0.9"/>` +
        `<path d="M 466 463 Q 483 455 500 461 Q 517 455 534 463 Q 500 468 466 463 Z" fill="${darken(lips, 0.12)}"/>`
    : `<path d="M 468 466 Q 500 494 532 466 Q 500 474 468 466 Z" fill="${lips}"/>` +
        `<path d="M 477 469 Q 500 484 523 469 Q 500 474 477 469 Z" fill="#ffffff" opacity="0.85"/>`;
}

/** Lip proportions per figure: where the lips meet (`line`), half their width, their thickness. */
interface LipFrame {
  line: number;
  halfWidth: number;
  upper: number;
  lower: number;
}

const n = (value: number) => Number(value.toFixed(2));

/** The upper lip: a Cupid's bow over a top edge of half-width `w` rising `up` at the centre. */
function upperLip(lips: string, frame: LipFrame, w: number, up: number): string {
  const { line: t, upper } = frame;
  const left = n(500 - w - 1.5);
  const right = n(500 + w + 1.5);
  const bow = n(t - up - upper * 1.6);
  return `<path d="M ${left} ${t} Q ${n(500 - w * 0.5)} ${bow} 500 ${n(t - up - upper * 0.75)} Q ${n(500 + w * 0.5)} ${bow} ${right} ${t} Q 500 ${n(t - 2 * up)} ${left} ${t} Z" fill="${darken(lips, 0.12)}"/>`;
}

/**
 * Lips parted around an opening whose top edge rises `up` and whose bottom edge drops `down` at the
 * centre (the jaw drop), with `teeth` units of upper teeth showing and optionally a tongue.
 */
function partedLips(
  lips: string,
  frame: LipFrame,
  shape: { width: number; up: number; down: number; teeth?: number; lowerTeeth?: boolean; tongue?: boolean },
): string {
  const { line: t, lower } = frame;
  const w = frame.halfWidth * shape.width;
  const { up, down } = shape;
  const left = n(500 - w);
  const right = n(500 + w);
  const inner = mix(darken(lips, 0.72), '#12070a', 0.4);
  const opening = `M ${left} ${t} Q 500 ${n(t - 2 * up)} ${right} ${t} Q 500 ${n(t + 2 * down)} ${left} ${t} Z`;
  const parts = [`<path d="${opening}" fill="${inner}"/>`];
  const inside: string[] = [];
  if (shape.tongue) {
    inside.push(
      `<ellipse cx="500" cy="${n(t + down * 1.12)}" rx="${n(w * 0.5)}" ry="${n(down * 0.32)}" fill="${mix(darken(lips, 0.3), '#c8585c', 0.4)}"/>`,
    );
  }
  if (shape.teeth) {
    inside.push(
      `<rect x="${n(500 - w * 0.74)}" y="${n(t - up - 2)}" width="${n(w * 1.48)}" height="${n(up + 2 + shape.teeth)}" rx="2" fill="${TEETH}"/>`,
    );
  }
  if (shape.lowerTeeth) {
    inside.push(
      `<rect x="${n(500 - w * 0.6)}" y="${n(t + down * 0.55)}" width="${n(w * 1.2)}" height="${n(down)}" rx="2" fill="${mix(TEETH, inner, 0.12)}"/>`,
    );
  }
  if (inside.length > 0) {
    parts.push(
      `<clipPath id="mouthOpening"><path d="${opening}"/></clipPath><g clip-path="url(#mouthOpening)">${inside.join('')}</g>`,
    );
  }
  parts.push(upperLip(lips, frame, w, up));
  // The lower lip below the opening's bottom edge, with a soft highlight.
  parts.push(
    `<path d="M ${n(left - 1)} ${t} Q 500 ${n(t + 2 * down + 2 * lower)} ${n(right + 1)} ${t} Q 500 ${n(t + 2 * down)} ${n(left - 1)} ${t} Z" fill="${lips}"/>`,
    `<ellipse cx="${n(500 + w * 0.18)}" cy="${n(t + down + lower * 0.5)}" rx="${n(w * 0.24)}" ry="${n(lower * 0.16)}" fill="${lighten(lips, 0.45)}" opacity="0.35"/>`,
  );
  return parts.join('');
}

/** A mouth for one viseme; `rest` is the portrait's own. */
export function mouthArt(appearance: LookAppearance, feminine: boolean, viseme: Viseme): string {
  const lips = lipColor(appearance);
  const frame: LipFrame = feminine
    ? { line: 464, halfWidth: 36, upper: 6, lower: 9 }
    : { line: 466, halfWidth: 32, upper: 3.5, lower: 7 };
  const t = frame.line;
  switch (viseme) {
    case 'rest':
      return restMouth(lips, feminine);
    case 'closed': {
      // Lips pressed together: no opening, slightly narrower, a dark seam where they meet.
      const w = frame.halfWidth * 0.94;
      return (
        partedLips(lips, frame, { width: 0.94, up: 0, down: 0 }) +
        `<path d="M ${n(500 - w)} ${t} Q 500 ${t + 2} ${n(500 + w)} ${t}" stroke="${darken(lips, 0.55)}" stroke-width="2.2" fill="none" stroke-linecap="round"/>`
      );
    }
    case 'open_small':
      return partedLips(lips, frame, { width: 0.88, up: 1.5, down: 8, teeth: 1.5 });
    case 'open_wide':
      return partedLips(lips, frame, { width: 0.92, up: 3, down: 20, teeth: 3, tongue: true });
    case 'spread':
      return partedLips(lips, frame, { width: 1.18, up: 1, down: 6, teeth: 3.5, lowerTeeth: true });
    case 'rounded': {
      // Lips pushed forward into a small round opening.
      const cy = t + 5;
      const rx = frame.halfWidth * 0.56;
      const ry = 12 + frame.lower * 0.5;
      const inner = mix(darken(lips, 0.72), '#12070a', 0.4);
      return (
        `<ellipse cx="500" cy="${cy}" rx="${n(rx)}" ry="${n(ry)}" fill="${lips}"/>` +
        `<path d="M ${n(500 - rx)} ${cy} A ${n(rx)} ${n(ry)} 0 0 1 ${n(500 + rx)} ${cy} Z" fill="${darken(lips, 0.12)}"/>` +
        `<ellipse cx="500" cy="${n(cy + 0.5)}" rx="${n(rx * 0.4)}" ry="${n(ry * 0.56)}" fill="${inner}"/>` +
        `<ellipse cx="${n(500 + rx * 0.25)}" cy="${n(cy + ry * 0.72)}" rx="${n(rx * 0.3)}" ry="1.6" fill="${lighten(lips, 0.45)}" opacity="0.35"/>`
      );
    }
    case 'lip_teeth': {
      // Upper teeth resting on the lower lip, which is drawn up under them.
      const w = frame.halfWidth * 0.9;
      const inner = mix(darken(lips, 0.72), '#12070a', 0.4);
      return (
        `<path d="M ${n(500 - w)} ${t} Q 500 ${t - 6} ${n(500 + w)} ${t} Q 500 ${t + 8} ${n(500 - w)} ${t} Z" fill="${inner}"/>` +
        `<path d="M ${n(500 - w - 1)} ${t + 1} Q 500 ${t + 7} ${n(500 + w + 1)} ${t + 1} Q 500 ${n(t + 9 + 2 * frame.lower)} ${n(500 - w - 1)} ${t + 1} Z" fill="${lips}"/>` +
        `<path d="M ${n(500 - w * 0.64)} ${t - 2} L ${n(500 + w * 0.64)} ${t - 2} L ${n(500 + w * 0.6)} ${t + 5} Q 500 ${t + 8} ${n(500 - w * 0.6)} ${t + 5} Z" fill="${TEETH}"/>` +
        `<path d="M 500 ${t - 1} L 500 ${t + 6}" stroke="${mix(TEETH, inner, 0.25)}" stroke-width="1"/>` +
        upperLip(lips, frame, w, 3)
      );
    }
  }
}
