import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  formatParamPath,
  limitParam,
  parseInput,
  parseQuery,
  userText,
} from '../../lambdas/core/validation.js';
import { invalidParameterOf } from '../support/rejection.js';

const schema = z.strictObject({
  name: z.string().min(1),
  events: z.array(z.enum(['a', 'b'])).optional(),
  settings: z.strictObject({ speed: z.number().max(2) }).optional(),
});

describe('request validation', () => {
  it('formats nested paths the way clients name fields', () => {
    expect(formatParamPath(['events', 0])).toBe('events[0]');
    expect(formatParamPath(['settings', 'speed'])).toBe('settings.speed');
    expect(formatParamPath([])).toBe('');
  });

  it('names a missing required field', () => {
    const error = invalidParameterOf(() => parseInput(schema, {}));
    expect(error.param).toBe('name');
    expect(error.message).toContain('required');
  });

  it('names an unknown field', () => {
    const error = invalidParameterOf(() => parseInput(schema, { name: 'x', colour: 'red' }));
    expect(error.param).toBe('colour');
  });

  it('names a bad array element and nested field', () => {
    expect(invalidParameterOf(() => parseInput(schema, { name: 'x', events: ['a', 'c'] })).param).toBe(
      'events[1]',
    );
    expect(invalidParameterOf(() => parseInput(schema, { name: 'x', settings: { speed: 3 } })).param).toBe(
      'settings.speed',
    );
  });

  it('rejects a body that is not an object without naming a field', () => {
    expect(invalidParameterOf(() => parseInput(schema, [1, 2])).param).toBeNull();
  });

  it('coerces and bounds list limits', () => {
    const query = z.strictObject({ limit: limitParam(50, 10) });
    expect(parseInput(query, {})).toEqual({ limit: 10 });
    expect(parseInput(query, { limit: '50' })).toEqual({ limit: 50 });
    expect(invalidParameterOf(() => parseInput(query, { limit: '51' })).param).toBe('limit');
    expect(invalidParameterOf(() => parseInput(query, { limit: '0' })).param).toBe('limit');
    expect(invalidParameterOf(() => parseInput(query, { limit: 'ten' })).param).toBe('limit');
  });

  it('ignores query parameters the route does not know, and still refuses bad values of those it knows', () => {
    const query = z
      .strictObject({ limit: limitParam(50, 10), ids: z.string().optional() })
      .refine((value) => value.ids !== 'none', { error: 'not none', path: ['ids'] });
    expect(parseQuery(query, { limit: '5', engine: 'starfish', utm_source: 'x' })).toEqual({
      query: { limit: 5 },
      ignored: ['engine', 'utm_source'],
    });
    expect(invalidParameterOf(() => parseQuery(query, { limit: '51', other: 'x' })).param).toBe('limit');
    expect(invalidParameterOf(() => parseQuery(query, { ids: 'none' })).param).toBe('ids');
  });
});

describe('wrong types versus missing fields', () => {
  it('says a field of the wrong type must be of the right type, not that it is required', () => {
    const error = invalidParameterOf(() => parseInput(schema, { name: 7 }));
    expect(error.param).toBe('name');
    expect(error.message).toContain('must be a string');
    expect(error.message).not.toContain('required');
  });
});

describe('userText: names and titles without control characters', () => {
  const named = z.strictObject({ name: userText(z.string().min(1)) });
  const controls = [
    ...Array.from({ length: 0x20 }, (_, code) => code),
    ...Array.from({ length: 0x21 }, (_, offset) => 0x7f + offset),
    0x200e,
    0x200f,
    0x202a,
    0x202b,
    0x202c,
    0x202d,
    0x202e,
    0x2066,
    0x2067,
    0x2068,
    0x2069,
  ].map((code) => String.fromCodePoint(code));
  const isControl = (character: string) => controls.includes(character);

  it('refuses a name holding any control character anywhere, naming the field', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 20 }),
        fc.constantFrom(...controls),
        fc.string({ unit: 'grapheme', maxLength: 20 }),
        (before, control, after) => {
          const error = invalidParameterOf(() => parseInput(named, { name: `${before}${control}${after}` }));
          expect(error.param).toBe('name');
          expect(error.message).toContain('control characters');
        },
      ),
    );
  });

  it('accepts any other text, in any script', () => {
    fc.assert(
      fc.property(
        fc
          .string({ unit: 'binary', minLength: 1, maxLength: 40 })
          .filter((text) => ![...text].some(isControl)),
        (name) => {
          expect(parseInput(named, { name })).toEqual({ name });
        },
      ),
    );
  });
});
