import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { lookSpriteSheet, spriteSheetLayout } from '../../../lambdas/catalog/catalog-media.js';
import { drawnLookFromPrompt } from '../../../lambdas/catalog/drawn-looks.js';
import type { DrawnLook } from '../../../lambdas/catalog/look-appearance.js';
import { type DrawnPresenter, renderDrawnPresenter } from '../../../lambdas/catalog/render-drawn.js';
import { renderLookPreview, renderPortrait } from '../../../lambdas/catalog/render-portrait.js';
import { renderSpriteSheet } from '../../../lambdas/catalog/render-sprites.js';
import { SPRITES } from '../../../lambdas/catalog/sprite-art.js';
import { PREVIEW_SCALE, STOCK_LOOKS, type StockLook } from '../../../lambdas/catalog/stock-avatars.js';

async function raster(png: Uint8Array) {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    info,
    alphaAt: (x: number, y: number) => data[(Math.floor(y) * info.width + Math.floor(x)) * 4 + 3] ?? -1,
  };
}

describe.each([
  ['a young woman with long red hair in a navy blazer in an office'],
  ['an older bearded man with glasses in a red hoodie at the beach, 9:16'],
])('the drawn presenter of %j', (prompt) => {
  const look: DrawnLook = drawnLookFromPrompt(prompt);
  let rendered: DrawnPresenter;
  beforeAll(async () => {
    rendered = await renderDrawnPresenter(look);
  });

  it('has an RGBA portrait of its size, transparent around an opaque figure', async () => {
    const metadata = await sharp(rendered.portrait).metadata();
    expect(metadata).toMatchObject({ format: 'png', width: look.imageWidth, height: look.imageHeight });
    expect(metadata.hasAlpha).toBe(true);
    const { alphaAt } = await raster(rendered.portrait);
    const { imageWidth: width, imageHeight: height } = look;
    for (const [x, y] of [
      [2, 2],
      [width - 3, 2],
      [2, height * 0.5],
      [width - 3, height * 0.5],
    ] as const)
      expect(alphaAt(x, y), `(${x}, ${y})`).toBe(0);
    expect(alphaAt(width / 2, height * (look.preferredOrientation === 'portrait' ? 0.36 : 0.4))).toBe(255);
    expect(alphaAt(width / 2, height - 3)).toBe(255);
  });

  it('has an opaque preview at the preview scale', async () => {
    const metadata = await sharp(rendered.preview).metadata();
    expect(metadata).toMatchObject({
      format: 'png',
      width: Math.round(look.imageWidth * PREVIEW_SCALE),
      height: Math.round(look.imageHeight * PREVIEW_SCALE),
    });
    const { alphaAt, info } = await raster(rendered.preview);
    expect(alphaAt(1, 1)).toBe(255);
    expect(alphaAt(info.width - 2, info.height - 2)).toBe(255);
  });

  it('has a sprite sheet of its layout, each sprite inside the portrait, on the figure', async () => {
    const { sheet } = rendered;
    expect(sheet).toEqual(spriteSheetLayout(look));
    expect(sheet.sprites.map((entry) => entry.sprite)).toEqual([...SPRITES]);
    const metadata = await sharp(rendered.spriteSheet).metadata();
    expect(metadata).toMatchObject({ format: 'png', width: sheet.width, height: sheet.height });
    const portrait = await raster(rendered.portrait);
    const sprites = await raster(rendered.spriteSheet);
    for (const [index, { sprite, box, sheetTop }] of sheet.sprites.entries()) {
      expect(box.x, sprite).toBeGreaterThanOrEqual(0);
      expect(box.y, sprite).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, sprite).toBeLessThanOrEqual(look.imageWidth);
      expect(box.y + box.height, sprite).toBeLessThanOrEqual(look.imageHeight);
      expect(sheetTop + box.height).toBe(sheet.sprites[index + 1]?.sheetTop ?? sheet.height);
      // The sprite's centre is drawn, and so is the portrait beneath it.
      const cx = box.width / 2;
      const cy = box.height / 2;
      const probe = sprite === 'blink' ? box.width * 0.25 : cx;
      expect(sprites.alphaAt(probe, sheetTop + cy), sprite).toBe(255);
      expect(portrait.alphaAt(box.x + probe, box.y + cy), sprite).toBe(255);
      // Its corners are not (an ellipse in a box).
      expect(sprites.alphaAt(0, sheetTop), sprite).toBe(0);
    }
  });

  it('has sprites that line up with the portrait: its resting mouth pasted on it changes nothing', async () => {
    const rest = rendered.sheet.sprites.find((entry) => entry.sprite === 'rest');
    if (!rest) throw new Error('no rest sprite');
    const { box, sheetTop } = rest;
    const sprite = await sharp(rendered.spriteSheet)
      .extract({ left: 0, top: sheetTop, width: box.width, height: box.height })
      .png()
      .toBuffer();
    const region = (png: Uint8Array | Buffer) =>
      sharp(png)
        .extract({ left: box.x, top: box.y, width: box.width, height: box.height })
        .removeAlpha()
        .raw()
        .toBuffer();
    const before = await region(rendered.portrait);
    const pasted = await sharp(rendered.portrait)
      .composite([{ input: sprite, left: box.x, top: box.y }])
      .png()
      .toBuffer();
    const after = await region(pasted);
    let total = 0;
    for (let index = 0; index < before.length; index++)
      total += Math.abs((before[index] ?? 0) - (after[index] ?? 0));
    // The portrait is a 256-colour palette, the sprite true colour: a few levels apart at most.
    expect(total / before.length).toBeLessThan(2);
  });
});

describe('stock looks', () => {
  const look = STOCK_LOOKS[0] as StockLook;

  it('keep their sheet key, with the same layout as any drawn look of their canvas', () => {
    for (const stock of STOCK_LOOKS) {
      const { key, ...layout } = lookSpriteSheet(stock);
      expect(key).toBe(`catalog/avatars/${stock.id}-sprites.png`);
      expect(layout).toEqual(spriteSheetLayout(stock));
    }
  });

  it('render to the same bytes as a drawn presenter as the catalog renders them', async () => {
    const drawn = await renderDrawnPresenter({
      appearance: look.appearance,
      gender: look.gender,
      imageWidth: look.imageWidth,
      imageHeight: look.imageHeight,
      preferredOrientation: look.preferredOrientation,
    });
    expect(Buffer.from(drawn.portrait).equals(Buffer.from(await renderPortrait(look)))).toBe(true);
    expect(Buffer.from(drawn.preview).equals(Buffer.from(await renderLookPreview(look)))).toBe(true);
    expect(Buffer.from(drawn.spriteSheet).equals(Buffer.from(await renderSpriteSheet(look)))).toBe(true);
  });
});
