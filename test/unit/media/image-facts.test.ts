/**
 * image-facts.ts against files sharp writes: the size as shown, the alpha channel and the metadata
 * text of PNG, JPEG and WebP, from their first bytes; anything else is not an image it knows, and no
 * input makes it throw.
 */
import fc from 'fast-check';
import sharp, { type Sharp } from 'sharp';
import { describe, expect, it } from 'vitest';
import { imageFacts } from '../../../lambdas/media/image-facts.js';

const FORMATS = ['png', 'jpeg', 'webp'] as const;

function encode(image: Sharp, format: (typeof FORMATS)[number], lossless: boolean) {
  if (format === 'png') return image.png().toBuffer();
  if (format === 'jpeg') return image.jpeg().toBuffer();
  return image.webp({ lossless }).toBuffer();
}

describe('imageFacts', () => {
  it('reads the size and the alpha channel of any PNG, JPEG or WebP', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 1, max: 400 }),
        fc.boolean(),
        fc.constantFrom(...FORMATS),
        fc.boolean(),
        async (width, height, alpha, format, lossless) => {
          const image = sharp({
            create: {
              width,
              height,
              channels: alpha ? 4 : 3,
              background: alpha ? { r: 10, g: 20, b: 30, alpha: 0.5 } : { r: 10, g: 20, b: 30 },
            },
          });
          const facts = imageFacts(await encode(image, format, lossless));
          expect(facts).toMatchObject({ width, height, hasAlpha: alpha && format !== 'jpeg' });
        },
      ),
      { seed: 424242, numRuns: 60 },
    );
  });

  it('shows a JPEG turned a quarter by its EXIF orientation at the size it is shown', async () => {
    const turned = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#fff' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .withExifMerge({ IFD0: { ImageDescription: 'A turned picture' } })
      .toBuffer();
    expect(imageFacts(turned)).toMatchObject({ width: 30, height: 40, text: ['A turned picture'] });
  });

  it('reads XMP titles, descriptions and keywords, decoding XML entities', async () => {
    const xmp =
      '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
      '<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/">' +
      '<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Fish &amp; chips</rdf:li></rdf:Alt></dc:title>' +
      '<dc:subject><rdf:Bag><rdf:li>food</rdf:li><rdf:li>seaside</rdf:li></rdf:Bag></dc:subject>' +
      '</rdf:Description></rdf:RDF></x:xmpmeta>';
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
      .png()
      .withXmp(xmp)
      .toBuffer();
    expect(imageFacts(png)?.text).toEqual(['Fish & chips', 'food', 'seaside']);
  });

  it('knows nothing of other files, and never throws on any bytes', async () => {
    expect(imageFacts(Buffer.from('%PDF-1.4\n'))).toBeUndefined();
    const png = await sharp({ create: { width: 3, height: 3, channels: 4, background: '#0000' } })
      .png()
      .toBuffer();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat({ max: png.length }), (noise, cut) => {
        imageFacts(noise);
        // A real header followed by garbage, or cut anywhere.
        imageFacts(Buffer.concat([png.subarray(0, cut), noise]));
      }),
      { seed: 7, numRuns: 500 },
    );
  });
});
