import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDoubleSpeechEngine } from '../../../lambdas/engines/speech/test-double-speech-engine.js';
import {
  analyseRecordingDouble,
  DOUBLE_SPEAKER,
} from '../../../lambdas/voices/test-double-voice-analyser.js';
import { deriveVoice } from '../../../lambdas/voices/voice-analysis.js';

let scratch: string;
let speech: string;
let speechSeconds: number;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'analysis-double-'));
  const spoken = await createTestDoubleSpeechEngine().synthesize({
    text: 'A recording long enough to be measured, of a few seconds of speech or so.',
    voiceId: 'espeak-en-us-f1',
  });
  speech = path.join(scratch, 'speech.wav');
  speechSeconds = spoken.durationMs / 1000;
  await writeFile(speech, spoken.audio);
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe('the voice analysis test double', () => {
  it('measures a readable recording as the double speaker, over its own length', async () => {
    const analysis = await analyseRecordingDouble(speech);
    expect(analysis).toMatchObject({ ...DOUBLE_SPEAKER, usable: true });
    expect(analysis.durationSeconds).toBeCloseTo(speechSeconds, 1);
    expect(analysis.speechSeconds).toBeLessThanOrEqual(analysis.durationSeconds);
    expect(analysis.voicedSeconds).toBeLessThanOrEqual(analysis.speechSeconds);
    // What it measures derives a voice like a real measurement does.
    expect(deriveVoice(analysis, { language: 'en-US', engine: 'espeak' }).gender).toBe('female');
  });

  it('analyses only the first maxSeconds', async () => {
    expect((await analyseRecordingDouble(speech, { maxSeconds: 1.5 })).durationSeconds).toBe(1.5);
  });

  it('returns unusable, with a reason, for a short or unreadable file, never throwing', async () => {
    const short = await analyseRecordingDouble(speech, { maxSeconds: 1 });
    expect(short).toMatchObject({ usable: false, reason: expect.stringContaining('at least 1 s') });
    const garbage = path.join(scratch, 'garbage.wav');
    await writeFile(garbage, 'not audio at all');
    expect(await analyseRecordingDouble(garbage)).toMatchObject({
      usable: false,
      reason: 'The file cannot be decoded as audio.',
    });
  });
});
