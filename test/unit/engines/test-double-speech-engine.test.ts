import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeMedia } from '../../../lambdas/engines/composition/probe.js';
import type { SynthesisResult } from '../../../lambdas/engines/speech/speech-engine.js';
import { createTestDoubleSpeechEngine } from '../../../lambdas/engines/speech/test-double-speech-engine.js';
import { decodeWavPcm16 } from '../../../lambdas/engines/speech/wav.js';

const engine = createTestDoubleSpeechEngine();
const VOICE = 'espeak-en-us-f1';
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'speech-double-'));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

/** Root-mean-square level of the samples between two times, 0 to 1. */
function level(result: SynthesisResult, fromMs: number, toMs: number): number {
  const { samples, sampleRate } = decodeWavPcm16(result.audio);
  const from = Math.ceil((fromMs * sampleRate) / 1000);
  const to = Math.floor((toMs * sampleRate) / 1000);
  let sum = 0;
  for (let index = from; index < to; index++) sum += ((samples[index] ?? 0) / 32_768) ** 2;
  return to > from ? Math.sqrt(sum / (to - from)) : 0;
}

/** What every synthesis must satisfy, whatever the text and settings. */
function expectConsistent(text: string, result: SynthesisResult): void {
  const wav = decodeWavPcm16(result.audio);
  expect(wav).toMatchObject({ channels: 1, sampleRate: result.sampleRate, bitsPerSample: 16 });
  expect(Math.abs(result.durationMs - (wav.samples.length * 1000) / wav.sampleRate)).toBeLessThanOrEqual(1);
  let previousEnd = 0;
  for (const word of result.words) {
    expect(text.slice(word.textOffset, word.textOffset + word.textLength)).toBe(word.word);
    expect(word.startMs).toBeGreaterThanOrEqual(previousEnd);
    expect(word.endMs).toBeGreaterThan(word.startMs);
    previousEnd = word.endMs;
  }
  expect(previousEnd).toBeLessThanOrEqual(result.durationMs);
}

describe('the speech test double', () => {
  it('is named test-double, so jobs record that a double spoke', () => {
    expect(engine.name).toBe('test-double');
  });

  it('writes a WAV that ffprobe reads, as long as it says', async () => {
    const result = await engine.synthesize({ text: 'Hello there, this is a test.', voiceId: VOICE });
    const file = path.join(scratch, 'speech.wav');
    await writeFile(file, result.audio);
    const probed = await probeMedia(file);
    expect(probed.streams).toEqual([
      expect.objectContaining({ type: 'audio', codec: 'pcm_s16le', channels: 1 }),
    ]);
    expect(probed.durationSeconds * 1000).toBeCloseTo(result.durationMs, -1);
    expect(result.words.map((word) => word.word)).toEqual(['Hello', 'there', 'this', 'is', 'a', 'test']);
  });

  it('sounds during the words and is silent between them', async () => {
    const result = await engine.synthesize({ text: 'one two', voiceId: VOICE });
    const [one, two] = result.words;
    if (!one || !two) throw new Error('expected two words');
    expect(level(result, one.startMs + 5, one.endMs - 5)).toBeGreaterThan(0.1);
    expect(level(result, one.endMs + 2, two.startMs - 2)).toBe(0);
    const quiet = await engine.synthesize({ text: 'one two', voiceId: VOICE, volume: 0 });
    expect(level(quiet, 0, quiet.durationMs)).toBe(0);
  });

  it('speaks slower at a lower speed', async () => {
    const text = 'A sentence of several words.';
    const normal = await engine.synthesize({ text, voiceId: VOICE });
    const slow = await engine.synthesize({ text, voiceId: VOICE, speed: 0.5 });
    expect(slow.durationMs).toBeGreaterThan(1.5 * normal.durationMs);
  });

  it('keeps its timings consistent with its audio for any text and settings (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 200, unit: 'grapheme' }).filter((text) => text.trim() !== ''),
        fc.double({ min: 0.5, max: 2, noNaN: true }),
        fc.integer({ min: -50, max: 50 }),
        async (text, speed, pitch) => {
          expectConsistent(text, await engine.synthesize({ text, voiceId: VOICE, speed, pitch }));
        },
      ),
      { seed: 20261124, numRuns: 100 },
    );
  });

  it('refuses what every engine refuses, and voice ids that are not eSpeak ids', async () => {
    await expect(engine.synthesize({ text: '   ', voiceId: VOICE })).rejects.toMatchObject({
      failureCode: 'invalid_input',
    });
    await expect(engine.synthesize({ text: 'hi', voiceId: VOICE, speed: 3 })).rejects.toMatchObject({
      failureCode: 'invalid_input',
    });
    await expect(engine.synthesize({ text: 'hi', voiceId: 'Joanna' })).rejects.toMatchObject({
      failureCode: 'voice_not_found',
    });
  });
});
