import sharp, { type Sharp } from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { lookCanvas } from '../../../lambdas/catalog/catalog-media.js';
import { EYE_AREAS, type FigureEllipse, MOUTH_AREA, VISEMES } from '../../../lambdas/catalog/mouth-art.js';
import { type PixelBox, placement } from '../../../lambdas/catalog/portrait-art.js';
import { renderPortrait } from '../../../lambdas/catalog/render-portrait.js';
import { type RenderedSprite, renderSprite } from '../../../lambdas/catalog/render-sprites.js';
import { SPRITES, type SpriteName, spriteBox, spriteSvg } from '../../../lambdas/catalog/sprite-art.js';
import { PREVIEW_SCALE, STOCK_LOOKS, type StockLook } from '../../../lambdas/catalog/stock-avatars.js';

/** Raw RGBA pixels of an image. */
interface Raster {
  data: Buffer;
  width: number;
  height: number;
}

async function raster(image: Sharp): Promise<Raster> {
  const { data, info } = await image.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** What a viewer sees at `box` of the portrait once the sprite is pasted there. */
function overlaid(portrait: Uint8Array, sprite: RenderedSprite): Promise<Raster> {
  return raster(
    sharp(portrait)
      .extract({ left: sprite.box.x, top: sprite.box.y, width: sprite.box.width, height: sprite.box.height })
      .composite([{ input: Buffer.from(sprite.png), left: 0, top: 0 }]),
  );
}

/** Mean absolute difference per colour channel (0..255) over the pixels `where` selects. */
function meanDifference(a: Raster, b: Raster, where: (x: number, y: number) => boolean = () => true): number {
  let total = 0;
  let count = 0;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      if (!where(x, y)) continue;
      const at = (y * a.width + x) * 4;
      for (let channel = 0; channel < 3; channel++) {
        total += Math.abs((a.data[at + channel] ?? 0) - (b.data[at + channel] ?? 0));
      }
      count += 3;
    }
  }
  return count === 0 ? 0 : total / count;
}

/** Mean luminance (0..255) of the middle of an image: `across` of its width, `down` of its height. */
function centralLuminance(image: Raster, across: number, down: number): number {
  const x0 = Math.round((image.width * (1 - across)) / 2);
  const y0 = Math.round((image.height * (1 - down)) / 2);
  let total = 0;
  let count = 0;
  for (let y = y0; y < image.height - y0; y++) {
    for (let x = x0; x < image.width - x0; x++) {
      const at = (y * image.width + x) * 4;
      total +=
        0.2126 * (image.data[at] ?? 0) +
        0.7152 * (image.data[at + 1] ?? 0) +
        0.0722 * (image.data[at + 2] ?? 0);
      count++;
    }
  }
  return total / count;
}

/** A figure-space ellipse in the pixels of a sprite's box: `inside(x, y, grow)` at the pixel's centre. */
function ellipseIn(look: StockLook, box: PixelBox, area: FigureEllipse) {
  const place = placement(lookCanvas(look));
  const cx = place.x + area.cx * place.scale - box.x;
  const cy = place.y + area.cy * place.scale - box.y;
  const rx = area.rx * place.scale;
  const ry = area.ry * place.scale;
  return (x: number, y: number, grow = 0) =>
    ((x + 0.5 - cx) / (rx + grow)) ** 2 + ((y + 0.5 - cy) / (ry + grow)) ** 2 <= 1;
}

const alphaAt = (image: Raster, x: number, y: number) => image.data[(y * image.width + x) * 4 + 3] ?? -1;

describe('sprite geometry', () => {
  const look = STOCK_LOOKS[0] as StockLook;

  it('places each sprite in whole pixels inside the portrait, at the preview scale too', () => {
    const canvas = lookCanvas(look);
    for (const sprite of SPRITES) {
      for (const scale of [1, PREVIEW_SCALE]) {
        const box = spriteBox(canvas, sprite, scale);
        for (const value of Object.values(box)) expect(Number.isInteger(value)).toBe(true);
        expect(box.x + box.width).toBeLessThanOrEqual(look.imageWidth * scale);
        expect(box.y + box.height).toBeLessThanOrEqual(look.imageHeight * scale);
        expect(box.width).toBeGreaterThan(10);
      }
    }
    // The mouth lies below the eyes, every mouth sprite at the same place.
    const mouth = spriteBox(canvas, 'rest');
    expect(spriteBox(canvas, 'open_wide')).toEqual(mouth);
    expect(mouth.y).toBeGreaterThan(spriteBox(canvas, 'blink').y);
  });

  it('is deterministic and says which sprite it draws', () => {
    const canvas = lookCanvas(look);
    const svg = spriteSvg(look.appearance, look.gender, canvas, 'open_wide');
    expect(svg).toBe(spriteSvg(look.appearance, look.gender, canvas, 'open_wide'));
    expect(svg).not.toBe(spriteSvg(look.appearance, look.gender, canvas, 'closed'));
  });
});

describe.each(STOCK_LOOKS.map((look) => [look.id, look] as const))('the sprites of %s', (_id, look) => {
  let portrait: Uint8Array;
  const sprites = new Map<SpriteName, RenderedSprite>();
  const seen = new Map<SpriteName, Raster>();
  const own = new Map<SpriteName, Raster>();

  beforeAll(async () => {
    portrait = await renderPortrait(look);
    for (const name of SPRITES) {
      const sprite = await renderSprite(look, name);
      sprites.set(name, sprite);
      seen.set(name, await overlaid(portrait, sprite));
      own.set(name, await raster(sharp(sprite.png)));
    }
  });

  const get = <T>(map: Map<SpriteName, T>, name: SpriteName) => map.get(name) as T;

  it('are PNGs exactly as large as their boxes', async () => {
    for (const name of SPRITES) {
      const metadata = await sharp(get(sprites, name).png).metadata();
      expect(metadata, name).toMatchObject({
        format: 'png',
        width: get(sprites, name).box.width,
        height: get(sprites, name).box.height,
        hasAlpha: true,
      });
    }
  });

  it('give seven mouths a viewer tells apart', () => {
    for (const [index, a] of VISEMES.entries()) {
      for (const b of VISEMES.slice(index + 1)) {
        // Measured: 3.2 at the least (a man's closed and rounded mouths), most far above.
        expect(meanDifference(get(seen, a), get(seen, b)), `${a} vs ${b}`).toBeGreaterThan(2.5);
      }
    }
  });

  it('show the portrait unchanged when the rest mouth is pasted on it', async () => {
    const rest = get(sprites, 'rest');
    const region = { left: rest.box.x, top: rest.box.y, width: rest.box.width, height: rest.box.height };
    // The portrait is a dithered 256-colour PNG and the sprite true colour: compared as a viewer sees
    // them (dithering blends into the colour it stands for), and pixel for pixel within the noise.
    const softly = async (image: Sharp) => raster(sharp(await image.png().toBuffer()).blur(1.2));
    const pasted = sharp(portrait)
      .extract(region)
      .composite([{ input: Buffer.from(rest.png), left: 0, top: 0 }]);
    const seenSoftly = await softly(pasted);
    const underSoftly = await softly(sharp(portrait).extract(region));
    const under = await raster(sharp(portrait).extract(region));
    expect(meanDifference(seenSoftly, underSoftly)).toBeLessThan(1);
    expect(meanDifference(get(seen, 'rest'), under)).toBeLessThan(4);
  });

  it('open the mouth wide onto a dark interior, where the closed mouth shows lips and skin', () => {
    // The middle of the mouth, between the upper teeth and the tongue of the open mouth.
    const open = centralLuminance(get(own, 'open_wide'), 0.2, 0.12);
    const closed = centralLuminance(get(own, 'closed'), 0.2, 0.12);
    expect(open).toBeLessThan(40);
    expect(open).toBeLessThan(closed * 0.6);
  });

  it('are opaque over the whole mouth area and transparent outside it', () => {
    const box = get(sprites, 'rest').box;
    const inMouth = ellipseIn(look, box, MOUTH_AREA);
    const rest = get(seen, 'rest');
    const wrong: string[] = [];
    for (const name of VISEMES) {
      const image = get(own, name);
      const sprite = get(seen, name);
      for (let y = 0; y < image.height; y++) {
        for (let x = 0; x < image.width; x++) {
          const alpha = alphaAt(image, x, y);
          if (!inMouth(x, y, 1.5) && alpha !== 0) wrong.push(`${name} (${x}, ${y}) outside: ${alpha}`);
          if (inMouth(x, y, -1.5) && alpha !== 255) wrong.push(`${name} (${x}, ${y}) inside: ${alpha}`);
        }
      }
      // Where this mouth differs from the portrait's own, it covers it completely.
      for (let y = 0; y < image.height; y++) {
        for (let x = 0; x < image.width; x++) {
          const at = (y * image.width + x) * 4;
          const changed = [0, 1, 2].some(
            (channel) => Math.abs((sprite.data[at + channel] ?? 0) - (rest.data[at + channel] ?? 0)) > 24,
          );
          if (changed && alphaAt(image, x, y) !== 255) wrong.push(`${name} (${x}, ${y}) changed`);
        }
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });

  it('blink by changing both eyes and nothing else', async () => {
    const blink = get(sprites, 'blink');
    const under = await raster(
      sharp(portrait).extract({
        left: blink.box.x,
        top: blink.box.y,
        width: blink.box.width,
        height: blink.box.height,
      }),
    );
    const after = get(seen, 'blink');
    const eyes = EYE_AREAS.map((area) => ellipseIn(look, blink.box, area));
    for (const [index, inEye] of eyes.entries()) {
      expect(
        meanDifference(after, under, (x, y) => inEye(x, y)),
        `eye ${index}`,
      ).toBeGreaterThan(15);
    }
    const outside = (x: number, y: number) => !eyes.some((inEye) => inEye(x, y, 1.5));
    expect(meanDifference(after, under, outside)).toBeLessThan(0.5);
    const image = get(own, 'blink');
    const wrong: string[] = [];
    for (let y = 0; y < image.height; y++) {
      for (let x = 0; x < image.width; x++) {
        if (outside(x, y) && alphaAt(image, x, y) !== 0) wrong.push(`(${x}, ${y})`);
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });
});
