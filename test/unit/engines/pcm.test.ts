import { describe, expect, it } from 'vitest';
import {
  pcm16Bytes,
  resamplePcm16,
  silence,
  TTS_SAMPLE_RATE,
  wavHeader,
} from '../../../lambdas/engines/speech/pcm.js';
import { decodeWavPcm16 } from '../../../lambdas/engines/speech/wav.js';

describe('text-to-speech audio', () => {
  it('resamples by linear interpolation to the length of the new rate', () => {
    const samples = Int16Array.from([0, 1000, 2000, 3000]);
    expect([...resamplePcm16(samples, 22_050, 44_100)]).toEqual([0, 500, 1000, 1500, 2000, 2500, 3000, 3000]);
    expect(resamplePcm16(new Int16Array(16_000), 16_000, 44_100)).toHaveLength(44_100);
    expect(resamplePcm16(samples, 44_100, 44_100)).toBe(samples);
  });

  it('writes a WAV header that readers accept, with or without a known length', () => {
    const data = pcm16Bytes(Int16Array.from([1, -1, 32767]));
    const whole = new Uint8Array([...wavHeader(TTS_SAMPLE_RATE, data.length), ...data]);
    expect(decodeWavPcm16(whole)).toMatchObject({
      sampleRate: 44_100,
      channels: 1,
      samples: Int16Array.from([1, -1, 32767]),
    });
    const streaming = wavHeader();
    const view = new DataView(streaming.buffer);
    expect(view.getUint32(4, true)).toBe(0xffffffff);
    expect(view.getUint32(40, true)).toBe(0xffffffff);
    expect(decodeWavPcm16(new Uint8Array([...streaming, ...data])).samples).toEqual(
      Int16Array.from([1, -1, 32767]),
    );
  });

  it('makes silence of the asked length', () => {
    expect(silence(500)).toHaveLength(22_050);
    expect(silence(500).every((sample) => sample === 0)).toBe(true);
  });
});
