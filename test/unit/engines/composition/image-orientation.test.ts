import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  jpegOrientation,
  orientationFilters,
} from '../../../../lambdas/engines/composition/image-orientation.js';

const picture = () => sharp({ create: { width: 8, height: 4, channels: 3, background: '#808080' } });

describe('jpegOrientation', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('reads orientation %i from a JPEG', async (orientation) => {
    const jpeg = await picture().jpeg().withMetadata({ orientation }).toBuffer();
    expect(jpegOrientation(jpeg)).toBe(orientation);
  });

  it('takes files without EXIF, other formats and cut-off headers as stored (1)', async () => {
    const plain = await picture().jpeg().toBuffer();
    const png = await picture().png().withMetadata({ orientation: 6 }).toBuffer();
    const rotated = await picture().jpeg().withMetadata({ orientation: 6 }).toBuffer();
    expect(jpegOrientation(plain)).toBe(1);
    expect(jpegOrientation(png)).toBe(1);
    expect(jpegOrientation(rotated.subarray(0, 30))).toBe(1);
    expect(jpegOrientation(Buffer.alloc(0))).toBe(1);
  });
});

describe('orientationFilters', () => {
  it('turns quarter-turned photos with transpose and mirrored ones with flips', () => {
    expect(orientationFilters(1)).toEqual([]);
    expect(orientationFilters(3)).toEqual(['hflip', 'vflip']);
    expect(orientationFilters(6)).toEqual(['transpose=clock']);
    expect(orientationFilters(8)).toEqual(['transpose=cclock']);
  });
});
