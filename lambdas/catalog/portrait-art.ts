/**
 * Stylized head-and-shoulders presenters drawn as SVG, for the stock avatar looks. Pure functions:
 * an appearance and a canvas in, SVG text out (`render-portrait.ts` rasterizes it with sharp).
 *
 * The figure is drawn in its own 1000-unit "figure space" (head centred at x 500, shoulders down to
 * y 1000, the torso continuing far below so it fills any canvas to the bottom edge) and placed on the
 * canvas by one transform per orientation. Without a backdrop everything around the figure is
 * transparent, which is what the video composer overlays as the presenter.
 */

import { darken, lighten } from './art-colors.js';
import { HAIR_STYLES, type HairStyle, type LookAppearance, OUTFIT_STYLES } from './look-appearance.js';
import { type EyeState, eyesArt, mouthArt, type Viseme } from './mouth-art.js';

export type Orientation = 'portrait' | 'landscape' | 'square';

export interface PortraitCanvas {
  width: number;
  height: number;
  orientation: Orientation;
}

const HEX_COLOR = /^#[0-9a-f]{6}$/i;

/** Throws when a colour of the appearance is not `#rrggbb` (they are interpolated into SVG). */
export function assertAppearance(appearance: LookAppearance): void {
  const colors = [
    appearance.skin,
    appearance.eyes,
    appearance.hair.color,
    appearance.outfit.color,
    appearance.outfit.accent,
    appearance.outfit.shirt,
    appearance.glasses,
    appearance.earrings,
    appearance.lips,
    appearance.backdrop.from,
    appearance.backdrop.to,
    appearance.backdrop.accent,
  ];
  for (const color of colors) {
    if (color !== undefined && !HEX_COLOR.test(color)) throw new Error(`Not a #rrggbb colour: ${color}`);
  }
  if (appearance.age !== undefined && !['middle', 'older'].includes(appearance.age))
    throw new Error(`Unknown age ${appearance.age}`);
  if (!HAIR_STYLES.includes(appearance.hair.style)) throw new Error(`Unknown hair ${appearance.hair.style}`);
  if (!OUTFIT_STYLES.includes(appearance.outfit.style))
    throw new Error(`Unknown outfit ${appearance.outfit.style}`);
}

// ---------------------------------------------------------------------------------------------------
// Figure parts (figure space)

const HEAD =
  'M 500 190 C 590 190 632 262 630 350 C 628 432 590 500 500 514 C 410 500 372 432 370 350 C 368 262 410 190 500 190 Z';
const TORSO =
  'M 440 582 C 400 600 300 610 240 632 C 178 656 146 700 136 776 L 112 2400 L 888 2400 L 864 776 ' +
  'C 854 700 822 656 760 632 C 700 610 600 600 560 582 Q 500 606 440 582 Z';
const NECK = 'M 452 440 L 450 596 Q 500 624 550 596 L 548 440 Z';
const JAW = 'M 376 380 C 380 470 424 512 500 520 C 576 512 620 470 624 380';

/** A path mirrored around the figure's vertical axis (x → 1000 − x). */
function mirrored(content: string): string {
  return `<g transform="matrix(-1 0 0 1 1000 0)">${content}</g>`;
}

function hairBack(style: HairStyle, color: string): string {
  const shade = darken(color, 0.18);
  switch (style) {
    case 'long':
      return `<path d="M 362 330 C 346 110 654 110 638 330 C 648 440 664 560 668 650 C 630 700 572 694 548 662 L 452 662 C 428 694 370 700 332 650 C 336 560 352 440 362 330 Z" fill="${shade}"/>`;
    case 'bob':
      return `<path d="M 352 330 C 342 105 658 105 648 330 L 660 516 C 646 552 600 556 584 534 L 416 534 C 400 556 354 552 340 516 Z" fill="${shade}"/>`;
    case 'bun':
      return `<circle cx="500" cy="172" r="62" fill="${color}"/><circle cx="500" cy="172" r="62" fill="url(#hairSheen)"/>`;
    case 'afro': {
      const puffs: string[] = [];
      for (let index = 0; index < 18; index++) {
        const angle = Math.PI * (0.96 + (index / 17) * 1.08);
        const x = 500 + Math.cos(angle) * 178;
        const y = 322 + Math.sin(angle) * 162;
        puffs.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${index % 2 ? 52 : 58}"/>`);
      }
      return `<g fill="${color}"><ellipse cx="500" cy="318" rx="184" ry="170"/>${puffs.join('')}</g>`;
    }
    default:
      return '';
  }
}

function hairFront(style: HairStyle, color: string): string {
  const strand = darken(color, 0.25);
  switch (style) {
    case 'long':
      return (
        `<path d="M 366 352 C 352 196 470 164 540 176 C 616 188 652 250 636 360 C 618 300 578 262 512 250 C 478 292 420 318 380 352 Z" fill="${color}"/>` +
        `<path d="M 370 332 C 356 430 364 520 348 616 L 384 612 C 392 520 384 420 394 344 Z" fill="${color}"/>` +
        `<path d="M 630 332 C 646 430 640 520 654 616 L 618 612 C 608 520 616 420 606 344 Z" fill="${color}"/>` +
        `<path d="M 512 250 C 470 292 424 316 384 346" stroke="${strand}" stroke-width="4" fill="none" stroke-linecap="round"/>`
      );
    case 'bob':
      return (
        `<path d="M 364 352 C 354 112 646 112 636 352 C 626 306 614 282 594 276 L 406 276 C 386 282 374 306 364 352 Z" fill="${color}"/>` +
        `<path d="M 366 330 C 356 420 356 470 350 520 L 388 520 C 390 460 386 400 392 340 Z" fill="${color}"/>` +
        `<path d="M 634 330 C 644 420 644 470 650 520 L 612 520 C 610 460 614 400 608 340 Z" fill="${color}"/>` +
        `<path d="M 440 276 L 436 236 M 500 276 L 500 228 M 560 276 L 564 236" stroke="${strand}" stroke-width="3" stroke-linecap="round"/>`
      );
    case 'bun':
      return (
        `<path d="M 368 342 C 360 122 640 122 632 342 C 614 272 562 242 500 242 C 438 242 386 272 368 342 Z" fill="${color}"/>` +
        `<rect x="466" y="214" width="68" height="16" rx="8" fill="${strand}"/>` +
        `<path d="M 500 242 C 470 252 440 262 410 290 M 500 242 C 530 252 560 262 590 290" stroke="${strand}" stroke-width="3" fill="none"/>`
      );
    case 'short':
      return `<path d="M 366 348 C 352 112 648 112 634 348 C 630 300 614 268 588 256 C 540 270 462 262 420 252 C 392 266 374 302 366 348 Z" fill="${color}"/>`;
    case 'side_part':
      return (
        `<path d="M 364 352 C 346 106 654 106 636 352 C 632 300 622 270 600 254 C 540 238 468 252 428 280 C 398 298 378 322 364 352 Z" fill="${color}"/>` +
        `<path d="M 428 222 C 470 210 540 206 600 226" stroke="${lighten(color, 0.2)}" stroke-width="5" fill="none" stroke-linecap="round"/>`
      );
    case 'afro':
      return `<path d="M 372 336 C 376 262 432 230 500 230 C 568 230 624 262 628 336 C 640 236 574 186 500 186 C 426 186 360 236 372 336 Z" fill="${color}"/>`;
    case 'curly_short': {
      const curls: string[] = [];
      for (let index = 0; index < 11; index++) {
        const angle = Math.PI * (1.05 + (index / 10) * 0.9);
        const x = 500 + Math.cos(angle) * 128;
        const y = 300 + Math.sin(angle) * 96;
        curls.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="30"/>`);
      }
      return (
        `<g fill="${color}">${curls.join('')}` +
        `<path d="M 370 344 C 360 236 640 236 630 344 C 620 300 580 268 500 262 C 420 268 380 300 370 344 Z"/></g>`
      );
    }
    case 'buzz':
      return `<path d="M 370 330 C 368 138 632 138 630 330 C 612 272 562 246 500 246 C 438 246 388 272 370 330 Z" fill="${color}" opacity="0.92"/>`;
  }
}

/** The lines of an older face: the forehead, the outer corners of the eyes, under them, cheek to mouth. */
function ageLines(age: NonNullable<LookAppearance['age']>, line: string): string {
  const older = age === 'older';
  const opacity = older ? 0.4 : 0.24;
  const forehead = older
    ? 'M 448 286 Q 500 278 552 286 M 456 300 Q 500 293 544 300'
    : 'M 456 294 Q 500 287 544 294';
  const eyeCorner = (x: number, side: 1 | -1) =>
    older
      ? `M ${x} 356 l ${side * 12} -6 M ${x} 363 l ${side * 13} 0 M ${x} 370 l ${side * 12} 6`
      : `M ${x} 360 l ${side * 11} -3 M ${x} 366 l ${side * 11} 3`;
  const underEyes = older ? 'M 436 386 Q 452 393 468 386 M 532 386 Q 548 393 564 386' : '';
  const folds = older ? 'M 470 424 Q 446 446 450 482 M 530 424 Q 554 446 550 482' : '';
  return (
    `<path d="${forehead} ${eyeCorner(422, -1)} ${eyeCorner(578, 1)} ${underEyes} ${folds}" stroke="${line}" ` +
    `stroke-width="${older ? 2.5 : 2}" fill="none" stroke-linecap="round" opacity="${opacity}"/>`
  );
}

/** The features a portrait can show in place of its still ones (the sprites of `sprite-art.ts`). */
export interface FaceState {
  /** @default 'rest' */
  mouth?: Viseme;
  /** @default 'open' */
  eyes?: EyeState;
}

function face(appearance: LookAppearance, feminine: boolean, state: FaceState): string {
  const { skin } = appearance;
  const line = darken(skin, 0.55);
  const brow = darken(appearance.hair.color, 0.1);
  const brows =
    `<path d="M 424 330 Q 450 ${feminine ? 314 : 318} 478 326" stroke="${brow}" stroke-width="${feminine ? 7 : 10}" fill="none" stroke-linecap="round"/>` +
    mirrored(
      `<path d="M 424 330 Q 450 ${feminine ? 314 : 318} 478 326" stroke="${brow}" stroke-width="${feminine ? 7 : 10}" fill="none" stroke-linecap="round"/>`,
    );
  const nose =
    `<path d="M 499 390 C 496 406 491 420 488 430 Q 500 440 512 430" stroke="${darken(skin, 0.3)}" stroke-width="4" fill="none" stroke-linecap="round" opacity="0.75"/>` +
    `<ellipse cx="500" cy="418" rx="10" ry="14" fill="${lighten(skin, 0.25)}" opacity="0.35"/>`;
  const cheeks =
    `<ellipse cx="424" cy="426" rx="27" ry="14" fill="#e66f66" opacity="${feminine ? 0.22 : 0.12}"/>` +
    `<ellipse cx="576" cy="426" rx="27" ry="14" fill="#e66f66" opacity="${feminine ? 0.22 : 0.12}"/>`;
  const smileLines = `<path d="M 452 462 Q 446 470 452 480 M 548 462 Q 554 470 548 480" stroke="${line}" stroke-width="2" fill="none" opacity="0.25"/>`;
  return (
    brows +
    eyesArt(appearance, feminine, state.eyes ?? 'open') +
    nose +
    cheeks +
    smileLines +
    (appearance.age ? ageLines(appearance.age, line) : '') +
    mouthArt(appearance, feminine, state.mouth ?? 'rest')
  );
}

function beard(kind: LookAppearance['beard'], color: string): string {
  if (!kind) return '';
  const shape = `${JAW} C 612 434 590 458 558 462 Q 500 444 442 462 C 410 458 388 434 376 380 Z`;
  if (kind === 'stubble') return `<path d="${shape}" fill="${color}" opacity="0.22"/>`;
  return (
    `<path d="${shape}" fill="${color}"/>` +
    `<path d="M 458 452 Q 500 432 542 452 Q 532 462 500 456 Q 468 462 458 452 Z" fill="${color}"/>` +
    `<path d="${JAW}" stroke="${darken(color, 0.25)}" stroke-width="3" fill="none" opacity="0.5"/>`
  );
}

function glasses(frame: string | undefined): string {
  if (!frame) return '';
  const lens = (x: number) =>
    `<rect x="${x}" y="338" width="70" height="48" rx="16" fill="#ffffff" fill-opacity="0.12" stroke="${frame}" stroke-width="6"/>`;
  return (
    lens(417) +
    lens(513) +
    `<path d="M 487 356 Q 500 346 513 356" stroke="${frame}" stroke-width="5" fill="none"/>` +
    `<path d="M 417 354 L 376 346 M 583 354 L 624 346" stroke="${frame}" stroke-width="5" stroke-linecap="round"/>` +
    `<path d="M 428 346 L 446 346" stroke="#ffffff" stroke-width="3" opacity="0.6" stroke-linecap="round"/>`
  );
}

function earrings(color: string | undefined): string {
  if (!color) return '';
  return (
    `<circle cx="370" cy="408" r="11" fill="none" stroke="${color}" stroke-width="4"/>` +
    `<circle cx="630" cy="408" r="11" fill="none" stroke="${color}" stroke-width="4"/>`
  );
}

function outfit(appearance: LookAppearance): string {
  const { style, color, accent } = appearance.outfit;
  const shirt = appearance.outfit.shirt ?? '#f5f7fa';
  const dark = darken(color, 0.22);
  const torso =
    `<path d="${TORSO}" fill="${color}"/><path d="${TORSO}" fill="url(#clothShade)"/>` +
    // Where the arms meet the chest.
    `<path d="M 214 830 C 222 1000 226 1400 228 2400 M 786 830 C 778 1000 774 1400 772 2400" stroke="#000000" stroke-opacity="0.16" stroke-width="5" fill="none"/>`;
  const lapels = (fill: string) =>
    `<path d="M 440 584 L 500 772 L 470 804 L 392 640 L 416 596 Z" fill="${fill}"/>` +
    mirrored(`<path d="M 440 584 L 500 772 L 470 804 L 392 640 L 416 596 Z" fill="${fill}"/>`) +
    `<path d="M 440 584 L 500 772 M 560 584 L 500 772" stroke="${darken(fill, 0.25)}" stroke-width="3"/>`;
  const shirtV = (fill: string) => `<path d="M 440 580 L 560 580 L 500 772 Z" fill="${fill}"/>`;
  const shirtCollar = (fill: string) =>
    `<path d="M 446 580 L 482 646 L 500 606 Z" fill="${lighten(fill, 0.1)}" stroke="${darken(fill, 0.12)}" stroke-width="2"/>` +
    mirrored(
      `<path d="M 446 580 L 482 646 L 500 606 Z" fill="${lighten(fill, 0.1)}" stroke="${darken(fill, 0.12)}" stroke-width="2"/>`,
    );
  const button = (y: number, fill: string) => `<circle cx="500" cy="${y}" r="8" fill="${fill}"/>`;
  switch (style) {
    case 'blazer':
      return torso + shirtV(accent) + shirtCollar(accent) + lapels(darken(color, 0.12)) + button(860, dark);
    case 'suit': {
      const tie =
        `<path d="M 484 604 L 516 604 L 511 636 L 489 636 Z" fill="${darken(accent, 0.1)}"/>` +
        `<path d="M 489 636 L 511 636 L 526 770 L 500 800 L 474 770 Z" fill="${accent}"/>` +
        `<path d="M 486 690 L 518 670 M 482 730 L 522 706" stroke="${lighten(accent, 0.25)}" stroke-width="5" opacity="0.6"/>`;
      return (
        torso +
        shirtV(shirt) +
        shirtCollar(shirt) +
        tie +
        lapels(darken(color, 0.12)) +
        button(860, dark) +
        `<path d="M 318 700 L 372 690 L 378 702 L 324 712 Z" fill="${lighten(accent, 0.3)}"/>`
      );
    }
    case 'sweater':
      return (
        torso +
        `<path d="M 438 582 Q 500 636 562 582" stroke="${dark}" stroke-width="18" fill="none" stroke-linecap="round"/>` +
        `<path d="M 438 582 Q 500 636 562 582" stroke="${lighten(color, 0.1)}" stroke-width="4" fill="none" stroke-dasharray="3 6"/>`
      );
    case 'tshirt':
      return (
        torso +
        `<path d="M 440 584 Q 500 628 560 584" stroke="${accent}" stroke-width="9" fill="none" stroke-linecap="round"/>`
      );
    case 'turtleneck':
      return (
        torso +
        `<path d="M 444 508 L 556 508 L 562 600 Q 500 624 438 600 Z" fill="${color}"/>` +
        `<path d="M 444 508 L 556 508 L 562 600 Q 500 624 438 600 Z" fill="url(#clothShade)"/>` +
        `<path d="M 446 532 Q 500 544 554 532 M 443 556 Q 500 570 557 556 M 441 580 Q 500 596 559 580" stroke="${dark}" stroke-width="4" fill="none" opacity="0.7"/>`
      );
    case 'hoodie':
      return (
        torso +
        `<path d="M 392 600 C 410 668 590 668 608 600" stroke="${dark}" stroke-width="34" fill="none" stroke-linecap="round"/>` +
        `<path d="M 472 640 L 466 770 M 528 640 L 534 770" stroke="${accent}" stroke-width="7" stroke-linecap="round"/>` +
        `<rect x="459" y="766" width="14" height="24" rx="4" fill="${darken(accent, 0.2)}"/>` +
        `<rect x="527" y="766" width="14" height="24" rx="4" fill="${darken(accent, 0.2)}"/>`
      );
    case 'blouse':
      return (
        torso +
        `<path d="M 446 584 L 554 584 L 500 690 Z" fill="${appearance.skin}"/>` +
        `<path d="M 446 584 L 554 584 L 500 690 Z" fill="url(#skinShade)"/>` +
        `<path d="M 438 582 L 500 694 L 466 700 L 404 616 Z" fill="${lighten(color, 0.12)}"/>` +
        mirrored(`<path d="M 438 582 L 500 694 L 466 700 L 404 616 Z" fill="${lighten(color, 0.12)}"/>`)
      );
    case 'shirt':
      return (
        torso +
        `<path d="M 458 586 L 542 586 L 500 664 Z" fill="${appearance.skin}"/>` +
        `<path d="M 458 586 L 542 586 L 500 664 Z" fill="url(#skinShade)"/>` +
        `<path d="M 442 578 L 500 666 L 458 680 L 414 612 Z" fill="${lighten(color, 0.1)}" stroke="${dark}" stroke-width="3"/>` +
        mirrored(
          `<path d="M 442 578 L 500 666 L 458 680 L 414 612 Z" fill="${lighten(color, 0.1)}" stroke="${dark}" stroke-width="3"/>`,
        ) +
        `<path d="M 500 666 L 500 2400" stroke="${dark}" stroke-width="4"/>` +
        button(730, lighten(color, 0.35)) +
        button(820, lighten(color, 0.35)) +
        button(910, lighten(color, 0.35))
      );
    case 'labcoat':
      return (
        torso +
        shirtV(accent) +
        `<path d="M 440 580 Q 500 620 560 580 L 560 592 Q 500 632 440 592 Z" fill="${darken(accent, 0.15)}"/>` +
        lapels(darken(color, 0.06)) +
        `<path d="M 296 790 L 404 790" stroke="${darken(color, 0.18)}" stroke-width="4"/>` +
        `<rect x="372" y="748" width="10" height="52" rx="4" fill="${accent}"/>` +
        button(880, darken(color, 0.15))
      );
  }
}

/** Where figure space lies on the canvas: canvas = (x, y) + figure × scale. */
export function placement(canvas: PortraitCanvas): { scale: number; x: number; y: number } {
  const { width, height, orientation } = canvas;
  // Head centre (figure y 350) at a fixed share of the height; shoulders wide enough to anchor the frame.
  switch (orientation) {
    case 'landscape': {
      const scale = height / 1080;
      return { scale, x: width / 2 - 500 * scale, y: height * 0.4 - 350 * scale };
    }
    case 'portrait': {
      const scale = (width / 1080) * 1.25;
      return { scale, x: width / 2 - 500 * scale, y: height * 0.36 - 350 * scale };
    }
    case 'square': {
      const scale = (width / 1080) * 0.95;
      return { scale, x: width / 2 - 500 * scale, y: height * 0.4 - 350 * scale };
    }
  }
}

function backdrop(appearance: LookAppearance, canvas: PortraitCanvas): string {
  const { width, height } = canvas;
  const { accent } = appearance.backdrop;
  const unit = Math.min(width, height);
  const spot = (cx: number, cy: number, r: number, opacity: number) =>
    `<circle cx="${(cx * width).toFixed(0)}" cy="${(cy * height).toFixed(0)}" r="${(r * unit).toFixed(0)}" fill="${accent}" opacity="${opacity}" filter="url(#soft)"/>`;
  return (
    `<rect width="${width}" height="${height}" fill="url(#backdrop)"/>` +
    spot(0.14, 0.22, 0.22, 0.35) +
    spot(0.86, 0.3, 0.16, 0.28) +
    spot(0.78, 0.86, 0.28, 0.2) +
    spot(0.22, 0.9, 0.12, 0.22) +
    `<rect width="${width}" height="${height}" fill="url(#vignette)"/>`
  );
}

/** Gradients and filters shared by the parts. */
function definitions(appearance: LookAppearance, withBackdrop: boolean, canvas: PortraitCanvas): string {
  const { skin } = appearance;
  const blur = (Math.min(canvas.width, canvas.height) * 0.05).toFixed(0);
  return (
    '<defs>' +
    `<radialGradient id="skinShade" cx="0.5" cy="0.42" r="0.62"><stop offset="0.55" stop-color="${darken(skin, 0.2)}" stop-opacity="0"/><stop offset="1" stop-color="${darken(skin, 0.25)}" stop-opacity="0.55"/></radialGradient>` +
    `<radialGradient id="faceLight" cx="0.42" cy="0.3" r="0.5"><stop offset="0" stop-color="#ffffff" stop-opacity="0.22"/><stop offset="1" stop-color="#ffffff" stop-opacity="0"/></radialGradient>` +
    '<linearGradient id="clothShade" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="#000000" stop-opacity="0.28"/><stop offset="0.3" stop-color="#000000" stop-opacity="0"/><stop offset="0.55" stop-color="#ffffff" stop-opacity="0.06"/><stop offset="1" stop-color="#000000" stop-opacity="0.3"/></linearGradient>' +
    '<radialGradient id="hairSheen" cx="0.4" cy="0.3" r="0.6"><stop offset="0" stop-color="#ffffff" stop-opacity="0.18"/><stop offset="1" stop-color="#ffffff" stop-opacity="0"/></radialGradient>' +
    (withBackdrop
      ? `<linearGradient id="backdrop" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${appearance.backdrop.from}"/><stop offset="1" stop-color="${appearance.backdrop.to}"/></linearGradient>` +
        '<radialGradient id="vignette" cx="0.5" cy="0.45" r="0.75"><stop offset="0.6" stop-color="#000000" stop-opacity="0"/><stop offset="1" stop-color="#000000" stop-opacity="0.28"/></radialGradient>' +
        `<filter id="soft" x="-50%" y="-50%" width="200%" height="200%"><feGaussianBlur stdDeviation="${blur}"/></filter>` +
        '<filter id="shadow" x="-20%" y="-20%" width="140%" height="140%"><feDropShadow dx="0" dy="14" stdDeviation="20" flood-color="#000000" flood-opacity="0.3"/></filter>'
      : '') +
    '</defs>'
  );
}

/** The figure in figure space: back hair, torso and neck, head, face, front hair, accessories. */
function figure(appearance: LookAppearance, feminine: boolean, state: FaceState): string {
  const { skin, hair } = appearance;
  const ear = (cx: number) =>
    `<ellipse cx="${cx}" cy="368" rx="21" ry="34" fill="${skin}"/>` +
    `<ellipse cx="${cx}" cy="368" rx="10" ry="20" fill="${darken(skin, 0.15)}" opacity="0.6"/>`;
  return (
    hairBack(hair.style, hair.color) +
    `<path d="${NECK}" fill="${skin}"/>` +
    `<path d="M 452 470 Q 500 560 548 470 L 549 540 Q 500 600 451 540 Z" fill="${darken(skin, 0.22)}" opacity="0.55"/>` +
    outfit(appearance) +
    ear(372) +
    ear(628) +
    `<path d="${HEAD}" fill="${skin}"/>` +
    `<path d="${HEAD}" fill="url(#skinShade)"/>` +
    `<path d="${HEAD}" fill="url(#faceLight)"/>` +
    beard(appearance.beard, hair.color) +
    face(appearance, feminine, state) +
    hairFront(hair.style, hair.color) +
    earrings(appearance.earrings) +
    glasses(appearance.glasses)
  );
}

/** A rectangle of the rendered picture, in its pixels. */
export interface PixelBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The SVG of a look: the figure on a transparent canvas, or (`withBackdrop`) in front of its
 * backdrop. `outputScale` renders the same picture smaller (previews). `face` swaps the still mouth
 * and eyes for others; `view` renders only `box` (pixels of the output) of the picture, and within it
 * only the figure inside `area` (SVG shapes in figure space): the pixels are those of the whole
 * picture at the same place, which is what makes a sprite line up with the portrait.
 */
export function portraitSvg(
  appearance: LookAppearance,
  gender: 'male' | 'female',
  canvas: PortraitCanvas,
  options: {
    withBackdrop?: boolean;
    outputScale?: number;
    face?: FaceState;
    view?: { box: PixelBox; area: string };
  } = {},
): string {
  assertAppearance(appearance);
  const withBackdrop = options.withBackdrop ?? false;
  const scale = options.outputScale ?? 1;
  const { width, height } = canvas;
  const place = placement(canvas);
  const drawn = figure(appearance, gender === 'female', options.face ?? {});
  const { view } = options;
  const clipped = view
    ? // A mask, not a clip path: librsvg clips each shape on its own, and the head's stacked layers
      // (skin, shading, light) then darkened the anti-aliased edge into a ring; a mask applies to
      // the drawn group as a whole, so an edge pixel is the portrait's pixel, partly transparent.
      `<mask id="spriteArea" maskUnits="userSpaceOnUse" x="0" y="0" width="1000" height="2400"><g fill="#ffffff">${view.area}</g></mask><g mask="url(#spriteArea)">${drawn}</g>`
    : drawn;
  const body = `<g transform="translate(${place.x.toFixed(2)} ${place.y.toFixed(2)}) scale(${place.scale.toFixed(4)})">${clipped}</g>`;
  const size = view
    ? `width="${view.box.width}" height="${view.box.height}" viewBox="${[view.box.x, view.box.y, view.box.width, view.box.height].map((value) => Number((value / scale).toFixed(4))).join(' ')}"`
    : `width="${Math.round(width * scale)}" height="${Math.round(height * scale)}" viewBox="0 0 ${width} ${height}"`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" ${size}>` +
    definitions(appearance, withBackdrop, canvas) +
    (withBackdrop ? `${backdrop(appearance, canvas)}<g filter="url(#shadow)">${body}</g>` : body) +
    '</svg>'
  );
}
