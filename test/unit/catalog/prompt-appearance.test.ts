import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../support/property-seed.js';
import { drawnLookFromPrompt, drawnLookVariations } from '../../../lambdas/catalog/drawn-looks.js';
import type { DrawnLook } from '../../../lambdas/catalog/look-appearance.js';
import { assertAppearance, portraitSvg } from '../../../lambdas/catalog/portrait-art.js';
import { appearanceFromPrompt, SETTINGS } from '../../../lambdas/catalog/prompt-appearance.js';
import { PORTRAIT_SIZES } from '../../../lambdas/catalog/stock-avatars.js';

function rgb(hex: string): [number, number, number] {
  const value = Number.parseInt(hex.slice(1), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}
const luma = (hex: string) => {
  const [r, g, b] = rgb(hex);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
/** Colour families, loosely: what a person would call the colour. */
const is = {
  red: (hex: string) => {
    const [r, g, b] = rgb(hex);
    return r > g + 50 && r > b + 40;
  },
  navy: (hex: string) => {
    const [r, , b] = rgb(hex);
    return b > r + 30 && luma(hex) < 90;
  },
  blue: (hex: string) => {
    const [r, g, b] = rgb(hex);
    return b > r + 40 && b > g;
  },
  green: (hex: string) => {
    const [r, g, b] = rgb(hex);
    return g > r + 15 && g > b + 15;
  },
  grey: (hex: string) => {
    const [r, g, b] = rgb(hex);
    return Math.max(r, g, b) - Math.min(r, g, b) < 20 && luma(hex) > 90;
  },
  blonde: (hex: string) => {
    const [r, , b] = rgb(hex);
    return r > b + 60 && luma(hex) > 140;
  },
  dark: (hex: string) => luma(hex) < 60,
  light: (hex: string) => luma(hex) > 200,
  pink: (hex: string) => {
    const [r, g, b] = rgb(hex);
    return r > 200 && g < r - 50 && b > g;
  },
};

describe('appearanceFromPrompt', () => {
  it('reads the example of the docs', () => {
    const result = appearanceFromPrompt('a young woman with long red hair in a navy blazer in an office');
    expect(result.gender).toBe('female');
    expect(result.orientation).toBe('landscape');
    expect(result.appearance.hair.style).toBe('long');
    expect(is.red(result.appearance.hair.color)).toBe(true);
    expect(result.appearance.outfit.style).toBe('blazer');
    expect(is.navy(result.appearance.outfit.color)).toBe(true);
    expect(result.appearance.backdrop).toEqual(SETTINGS.office?.backdrop);
    expect(result.recognised).toEqual(['woman', 'young', 'long', 'red hair', 'navy blazer', 'office']);
  });

  type Expectation = (result: ReturnType<typeof appearanceFromPrompt>) => void;
  const cases: [string, Expectation][] = [
    [
      'an older man with grey hair and glasses wearing a charcoal suit, studio, 9:16',
      ({ gender, orientation, appearance }) => {
        expect(gender).toBe('male');
        expect(orientation).toBe('portrait');
        expect(is.grey(appearance.hair.color)).toBe(true);
        expect(appearance.glasses).toBeDefined();
        expect(appearance.outfit.style).toBe('suit');
        expect(is.dark(appearance.outfit.color)).toBe(true);
        expect(appearance.backdrop).toEqual(SETTINGS.studio?.backdrop);
      },
    ],
    [
      'A bald man with a beard in a red hoodie at the beach',
      ({ gender, appearance }) => {
        expect(gender).toBe('male');
        expect(appearance.hair.style).toBe('buzz');
        expect(appearance.beard).toBe('full');
        expect(appearance.outfit.style).toBe('hoodie');
        expect(is.red(appearance.outfit.color)).toBe(true);
        expect(appearance.backdrop).toEqual(SETTINGS.beach?.backdrop);
      },
    ],
    [
      'Doctor, female, curly black hair, hospital, vertical video',
      ({ gender, orientation, appearance }) => {
        expect(gender).toBe('female');
        expect(orientation).toBe('portrait');
        expect(appearance.hair.style).toBe('curly_short');
        expect(is.dark(appearance.hair.color)).toBe(true);
        expect(appearance.outfit.style).toBe('labcoat');
        expect(is.light(appearance.outfit.color)).toBe(true);
      },
    ],
    [
      'a blonde lady in a white shirt under a navy blazer, square',
      ({ gender, orientation, appearance }) => {
        expect(gender).toBe('female');
        expect(orientation).toBe('square');
        expect(is.blonde(appearance.hair.color)).toBe(true);
        expect(appearance.outfit.style).toBe('blazer');
        expect(is.navy(appearance.outfit.color)).toBe(true);
        // The shirt under the blazer.
        expect(is.light(appearance.outfit.accent)).toBe(true);
      },
    ],
    [
      'a portrait of a gentleman with a side part, a blue tie, dark-skinned, library',
      ({ gender, orientation, appearance }) => {
        expect(gender).toBe('male');
        // "a portrait of" is a picture, not the framing.
        expect(orientation).toBe('landscape');
        expect(appearance.hair.style).toBe('side_part');
        expect(appearance.outfit.style).toBe('suit');
        expect(is.blue(appearance.outfit.accent)).toBe(true);
        expect(luma(appearance.skin)).toBeLessThan(100);
        expect(appearance.backdrop).toEqual(SETTINGS.library?.backdrop);
      },
    ],
    [
      'A 70-year-old grandmother with her hair in a bun, pink cardigan, no glasses, cozy living room',
      ({ gender, appearance, recognised }) => {
        expect(gender).toBe('female');
        expect(appearance.hair.style).toBe('bun');
        expect(is.grey(appearance.hair.color) || is.light(appearance.hair.color)).toBe(true);
        expect(appearance.outfit.style).toBe('sweater');
        expect(is.pink(appearance.outfit.color)).toBe(true);
        expect(appearance.glasses).toBeUndefined();
        expect(recognised).toContain('no glasses');
      },
    ],
    [
      'a man in his 30s, short curly dark brown hair, green eyes, stubble, olive turtleneck',
      ({ gender, appearance }) => {
        expect(gender).toBe('male');
        expect(appearance.hair.style).toBe('curly_short');
        expect(is.dark(appearance.hair.color)).toBe(true);
        expect(is.green(appearance.eyes)).toBe(true);
        expect(appearance.beard).toBe('stubble');
        expect(appearance.outfit.style).toBe('turtleneck');
      },
    ],
    [
      'she has pink hair, gold earrings and red lipstick; city at night',
      ({ gender, appearance, recognised }) => {
        expect(gender).toBe('female');
        expect(is.pink(appearance.hair.color)).toBe(true);
        expect(appearance.earrings).toBeDefined();
        expect(appearance.lips && is.red(appearance.lips)).toBe(true);
        expect(recognised).toEqual(expect.arrayContaining(['city', 'night']));
        // The city, in the dark.
        expect(luma(appearance.backdrop.to)).toBeLessThan(luma(SETTINGS.city?.backdrop.to as string));
      },
    ],
    [
      'a software developer guy with an afro, blue background, TikTok',
      ({ gender, orientation, appearance }) => {
        expect(gender).toBe('male');
        expect(orientation).toBe('portrait');
        expect(appearance.hair.style).toBe('afro');
        expect(appearance.outfit.style).toBe('hoodie');
        expect(is.blue(appearance.backdrop.to)).toBe(true);
      },
    ],
    [
      'clean-shaven businessman, auburn hair, no glasses, 16:9',
      ({ gender, orientation, appearance }) => {
        expect(gender).toBe('male');
        expect(orientation).toBe('landscape');
        expect(appearance.beard).toBeUndefined();
        expect(appearance.glasses).toBeUndefined();
        expect(appearance.outfit.style).toBe('suit');
        expect(is.red(appearance.hair.color)).toBe(true);
      },
    ],
    [
      'an elderly woman in a red sweater in a forest',
      ({ gender, appearance }) => {
        expect(gender).toBe('female');
        expect(is.grey(appearance.hair.color) || is.light(appearance.hair.color)).toBe(true);
        expect(appearance.outfit.style).toBe('sweater');
        expect(is.red(appearance.outfit.color)).toBe(true);
        expect(appearance.backdrop).toEqual(SETTINGS.forest?.backdrop);
      },
    ],
    [
      'man dressed in green with a white t-shirt, 1:1',
      ({ orientation, appearance }) => {
        expect(orientation).toBe('square');
        expect(appearance.outfit.style).toBe('tshirt');
        expect(is.light(appearance.outfit.color)).toBe(true);
      },
    ],
    [
      'a redhead in a green dress',
      ({ gender, appearance }) => {
        // No gender word: the dress says it.
        expect(gender).toBe('female');
        expect(is.red(appearance.hair.color)).toBe(true);
        expect(appearance.outfit.style).toBe('blouse');
        expect(is.green(appearance.outfit.color)).toBe(true);
      },
    ],
    [
      'a Black woman with braids and hoop earrings, dressed in white',
      ({ gender, appearance }) => {
        expect(gender).toBe('female');
        expect(luma(appearance.skin)).toBeLessThan(100);
        expect(appearance.hair.style).toBe('long');
        expect(appearance.earrings).toBeDefined();
        expect(is.light(appearance.outfit.color)).toBe(true);
      },
    ],
  ];
  it.each(cases)('reads %j', (prompt, expectation) => {
    const result = appearanceFromPrompt(prompt);
    assertAppearance(result.appearance);
    expectation(result);
  });

  it('draws age: lines for middle-aged and older faces, greying hair unless its colour is named', () => {
    const older = appearanceFromPrompt('an elderly man in a sweater');
    expect(older.appearance.age).toBe('older');
    expect(is.grey(older.appearance.hair.color) || is.light(older.appearance.hair.color)).toBe(true);
    expect(appearanceFromPrompt('a middle-aged woman').appearance.age).toBe('middle');
    expect(appearanceFromPrompt('a 68 year old man with black hair').appearance).toMatchObject({
      age: 'older',
      hair: { color: '#15120f' },
    });
    expect(appearanceFromPrompt('a young woman').appearance.age).toBeUndefined();
    const canvas = { width: 1920, height: 1080, orientation: 'landscape' } as const;
    const { age: _, ...smooth } = older.appearance;
    const lined = portraitSvg(older.appearance, 'male', canvas);
    expect(lined).not.toBe(portraitSvg(smooth, 'male', canvas));
    expect(lined).not.toBe(portraitSvg({ ...older.appearance, age: 'middle' }, 'male', canvas));
  });

  it('reads gender words and pronouns, whatever else the prompt says', () => {
    for (const word of ['woman', 'female', 'girl', 'lady', 'she']) {
      expect(appearanceFromPrompt(`${word} presenting the weather`).gender, word).toBe('female');
    }
    for (const word of ['man', 'male', 'boy', 'gentleman', 'he']) {
      expect(appearanceFromPrompt(`${word} presenting the weather`).gender, word).toBe('male');
    }
  });

  it('does not take "years old" for old, nor "a portrait of" for the framing', () => {
    const young = appearanceFromPrompt('a 25 years old woman, a portrait of her');
    expect(young.recognised).toContain('25 years');
    expect(young.recognised).not.toContain('old');
    expect(young.orientation).toBe('landscape');
    expect(appearanceFromPrompt('a man, portrait orientation').orientation).toBe('portrait');
  });

  it('gives the same look for the same prompt, and usually another for another prompt', () => {
    const prompt = 'A friendly presenter explaining our product';
    expect(appearanceFromPrompt(prompt)).toEqual(appearanceFromPrompt(prompt));
    // Case, spacing and punctuation are not the prompt.
    expect(appearanceFromPrompt('  a friendly PRESENTER, explaining our product!')).toEqual(
      appearanceFromPrompt(prompt),
    );
    const looks = Array.from({ length: 40 }, (_, index) =>
      JSON.stringify(appearanceFromPrompt(`presenter number ${index}`)),
    );
    expect(new Set(looks).size).toBeGreaterThanOrEqual(38);
    // The unnamed attributes spread over their choices.
    const genders = new Set(
      Array.from({ length: 40 }, (_, index) => appearanceFromPrompt(`presenter number ${index}`).gender),
    );
    expect(genders.size).toBe(2);
  });

  it('gives a valid appearance for any text, fast (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 200 }), fc.string({ maxLength: 200, unit: 'binary' })),
        (prompt) => {
          const result = appearanceFromPrompt(prompt);
          assertAppearance(result.appearance);
          expect(['male', 'female']).toContain(result.gender);
          expect(['landscape', 'portrait', 'square']).toContain(result.orientation);
        },
      ),
      { numRuns: 500 },
    );
    // Sentences of the vocabulary, in any order: still valid.
    const word = fc.constantFrom(
      'red',
      'navy',
      'hair',
      'long',
      'blazer',
      'no',
      'glasses',
      'dark',
      'light',
      'skin',
      'is',
      'woman',
      'man',
      'tie',
      'shirt',
      'portrait',
      'in',
      'office',
      'night',
      'old',
      'years',
      '40',
      'curly',
      'short',
      'lipstick',
      'background',
      'constructor',
      'prototype',
      '__proto__',
    );
    fc.assert(
      fc.property(fc.array(word, { maxLength: 30 }), (words) => {
        assertAppearance(appearanceFromPrompt(words.join(' ')).appearance);
      }),
      { numRuns: 500 },
    );
    // Words that are names of Object.prototype are words like any other.
    expect(
      appearanceFromPrompt('constructor hair in a constructor, constructor background').recognised,
    ).toEqual([]);
    const started = performance.now();
    for (let index = 0; index < 1000; index++)
      appearanceFromPrompt(`a young woman with long red hair in a navy blazer in an office ${index}`);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('drawn looks', () => {
  it('are sized for the prompt orientation', () => {
    const look = drawnLookFromPrompt('a woman in a hoodie, vertical');
    expect(look.preferredOrientation).toBe('portrait');
    expect([look.imageWidth, look.imageHeight]).toEqual([
      PORTRAIT_SIZES.portrait.width,
      PORTRAIT_SIZES.portrait.height,
    ]);
  });

  it('have deterministic, distinct, valid variations of each kind', () => {
    const look: DrawnLook = drawnLookFromPrompt(
      'a young woman with long red hair in a navy blazer in an office',
    );
    const pack = drawnLookVariations(look, 8);
    expect(pack).toEqual(drawnLookVariations(look, 8));
    expect(pack).toHaveLength(8);
    expect(drawnLookVariations(look, 3)).toEqual(pack.slice(0, 3));
    expect(drawnLookVariations(look, 0)).toEqual([]);
    const keys = pack.map(({ name: _, ...drawn }) => JSON.stringify(drawn));
    expect(new Set([...keys, JSON.stringify(look)]).size).toBe(9);
    expect(new Set(pack.map((variation) => variation.name)).size).toBe(8);
    for (const variation of pack) {
      assertAppearance(variation.appearance);
      expect(variation.gender).toBe('female');
      // The face stays the look's own.
      expect(variation.appearance.hair).toEqual(look.appearance.hair);
      expect(variation.appearance.skin).toBe(look.appearance.skin);
      expect(variation.name.length).toBeLessThan(30);
    }
    const names = pack.map((variation) => variation.name);
    expect(names.some((name) => name.endsWith(' blazer') && name !== 'navy blazer')).toBe(true);
    expect(names.some((name) => name.endsWith(' backdrop'))).toBe(true);
    expect(names).toContain('portrait 9:16');
    expect(pack.some((variation) => variation.appearance.outfit.style !== 'blazer')).toBe(true);
    // Garment colours that differ from the look's (not a shade of it).
    for (const variation of pack.filter((entry) => entry.appearance.outfit.style === 'blazer')) {
      if (variation.appearance.outfit.color === look.appearance.outfit.color) continue;
      const [r, g, b] = rgb(variation.appearance.outfit.color);
      const [r2, g2, b2] = rgb(look.appearance.outfit.color);
      expect(Math.hypot(r - r2, g - g2, b - b2)).toBeGreaterThan(90);
    }
    const framed = pack.find((variation) => variation.name === 'portrait 9:16');
    expect(framed).toMatchObject({ preferredOrientation: 'portrait', imageWidth: 1080, imageHeight: 1920 });
    expect(framed?.appearance).toEqual(look.appearance);
  });

  it('offer the landscape framing to a portrait look, and stop when they run out', () => {
    const look = drawnLookFromPrompt('a man in a suit, 9:16');
    const all = drawnLookVariations(look, 1000);
    expect(all.map((variation) => variation.name)).toContain('landscape 16:9');
    expect(all.length).toBeGreaterThan(20);
    expect(all.length).toBeLessThan(1000);
    expect(all.filter((variation) => variation.appearance.outfit.style === 'blouse')).toEqual([]);
  });
});
