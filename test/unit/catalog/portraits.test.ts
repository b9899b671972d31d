import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { LookAppearance } from '../../../lambdas/catalog/look-appearance.js';
import { portraitSvg } from '../../../lambdas/catalog/portrait-art.js';
import { renderLookPreview, renderPortrait } from '../../../lambdas/catalog/render-portrait.js';
import { PREVIEW_SCALE, STOCK_LOOKS, type StockLook } from '../../../lambdas/catalog/stock-avatars.js';

/** One look of each orientation: rendering all of them is what the publishing integration test covers. */
const SAMPLES = ['landscape', 'portrait', 'square'].map((orientation) => {
  const look = STOCK_LOOKS.find((candidate) => candidate.preferredOrientation === orientation);
  if (!look) throw new Error(`no ${orientation} look`);
  return look;
});

async function pixels(png: Uint8Array) {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const alphaAt = (x: number, y: number) => data[(Math.floor(y) * info.width + Math.floor(x)) * 4 + 3] ?? -1;
  return { info, alphaAt };
}

describe.each(SAMPLES.map((look) => [`${look.id} (${look.preferredOrientation})`, look] as const))(
  'the portrait of %s',
  (_label, look: StockLook) => {
    it('is a PNG of the stated size, transparent around an opaque figure', async () => {
      const png = await renderPortrait(look);
      const metadata = await sharp(png).metadata();
      expect(metadata).toMatchObject({ format: 'png', width: look.imageWidth, height: look.imageHeight });
      expect(metadata.hasAlpha).toBe(true);
      const { alphaAt } = await pixels(png);
      const { imageWidth: width, imageHeight: height } = look;
      // Corners are background; the face (head centre) and the chest are figure.
      for (const [x, y] of [
        [2, 2],
        [width - 3, 2],
        [2, height * 0.5],
      ]) {
        expect(alphaAt(x as number, y as number), `(${x}, ${y})`).toBe(0);
      }
      expect(alphaAt(width / 2, height * 0.4)).toBe(255);
      expect(alphaAt(width / 2, height - 3)).toBe(255);
    });

    it('has a preview in front of an opaque backdrop at the preview scale', async () => {
      const png = await renderLookPreview(look);
      const metadata = await sharp(png).metadata();
      expect(metadata).toMatchObject({
        format: 'png',
        width: Math.round(look.imageWidth * PREVIEW_SCALE),
        height: Math.round(look.imageHeight * PREVIEW_SCALE),
      });
      const { alphaAt, info } = await pixels(png);
      expect(alphaAt(1, 1)).toBe(255);
      expect(alphaAt(info.width - 2, info.height - 2)).toBe(255);
    });
  },
);

describe('portrait drawing', () => {
  const base = STOCK_LOOKS[0]?.appearance as LookAppearance;

  it('refuses colours that are not #rrggbb, so nothing but a colour reaches the SVG', () => {
    const canvas = { width: 100, height: 100, orientation: 'square' as const };
    expect(() => portraitSvg({ ...base, skin: 'red"/><script/>' }, 'female', canvas)).toThrow(/colour/);
    expect(() => portraitSvg({ ...base, glasses: 'url(#x)' }, 'female', canvas)).toThrow(/colour/);
    expect(() =>
      portraitSvg({ ...base, hair: { style: 'mohawk' as 'bob', color: '#000000' } }, 'female', canvas),
    ).toThrow(/hair/);
  });

  it('is deterministic (versions of catalog media are hashes of it)', () => {
    const canvas = { width: 1920, height: 1080, orientation: 'landscape' as const };
    expect(portraitSvg(base, 'female', canvas)).toBe(portraitSvg(base, 'female', canvas));
  });
});
