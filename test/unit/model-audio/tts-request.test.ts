import { describe, expect, it } from 'vitest';
import { InvalidParameterError } from '../../../lambdas/core/errors.js';
import { parseInput } from '../../../lambdas/core/validation.js';
import { planTtsRequest, ttsBody } from '../../../lambdas/model-audio/tts-request.js';

const body = (extra: Record<string, unknown> = {}) =>
  parseInput(ttsBody, { voice_id: 'v', text: 'Hello there.', ...extra });

function paramOf(run: () => unknown): string | null {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidParameterError);
    return (error as InvalidParameterError).param;
  }
  throw new Error('expected a refusal');
}

describe('the text-to-speech body', () => {
  it('defaults the model and takes null as not given', () => {
    expect(planTtsRequest(body({ speed: null, seed: null }), 'instant')).toMatchObject({
      model: 'service-voice-1',
      speed: 1,
      pitchShift: 0,
      intonation: 1,
      intonationField: 'expressiveness_boost',
    });
  });

  it.each([
    [{ model: 'heygen-voice-1' }, 'model'],
    [{ expressiveness_boost: -0.1 }, 'expressiveness_boost'],
    [{ expressiveness_boost: 1.1 }, 'expressiveness_boost'],
    [{ speed: 0.4 }, 'speed'],
    [{ speed: 2.1 }, 'speed'],
    [{ pitch_shift: -7 }, 'pitch_shift'],
    [{ pitch_variance: 2.5 }, 'pitch_variance'],
    [{ seed: 1.5 }, 'seed'],
    [{ seed: -1 }, 'seed'],
    [{ language: 'english please' }, 'language'],
    [{ text: 'x'.repeat(5001) }, 'text'],
    [{ volume: 1 }, 'volume'],
  ])('refuses %j naming %s', (extra, param) => {
    expect(paramOf(() => body(extra))).toBe(param);
  });
});

describe('rules by voice mode', () => {
  it.each(['seed', 'speed', 'pitch_shift', 'pitch_variance'])(
    '%s is for professional voices only',
    (field) => {
      const value = field === 'seed' ? 3 : 1;
      expect(paramOf(() => planTtsRequest(body({ [field]: value }), 'instant'))).toBe(field);
      expect(() => planTtsRequest(body({ [field]: value }), 'professional')).not.toThrow();
    },
  );

  it('expressiveness_boost is for instant voices only', () => {
    expect(paramOf(() => planTtsRequest(body({ expressiveness_boost: 0.3 }), 'professional'))).toBe(
      'expressiveness_boost',
    );
    expect(planTtsRequest(body({ expressiveness_boost: 0 }), 'instant').intonation).toBe(0.5);
    expect(planTtsRequest(body({ expressiveness_boost: 1 }), 'instant').intonation).toBe(1);
  });

  it('turbo speaks instant voices only', () => {
    expect(paramOf(() => planTtsRequest(body({ model: 'service-voice-1-turbo' }), 'professional'))).toBe(
      'model',
    );
    expect(planTtsRequest(body({ model: 'service-voice-1-turbo' }), 'instant').model).toBe(
      'service-voice-1-turbo',
    );
  });

  it('break tags are for professional voices only', () => {
    const text = "Wait. <break time='1s'/>Go.";
    expect(paramOf(() => planTtsRequest(body({ text }), 'instant'))).toBe('text');
    expect(planTtsRequest(body({ text }), 'professional').parts).toContainEqual({ kind: 'pause', ms: 1000 });
  });

  it('carries the professional options to the plan', () => {
    expect(
      planTtsRequest(body({ speed: 1.5, pitch_shift: -2, pitch_variance: 0.5, seed: 9 }), 'professional'),
    ).toMatchObject({ speed: 1.5, pitchShift: -2, intonation: 0.5, intonationField: 'pitch_variance' });
  });
});
