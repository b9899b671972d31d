import { describe, expect, it } from 'vitest';
import { decodeWavPcm16, encodeWavPcm16 } from '../../../lambdas/engines/speech/wav.js';

describe('WAV PCM16', () => {
  it('writes a canonical header and reads the samples back', () => {
    const samples = Int16Array.from([0, 1, -1, 32767, -32768, 1234]);
    const file = encodeWavPcm16(samples, 22050);
    expect(file.byteLength).toBe(44 + samples.length * 2);
    const view = new DataView(file.buffer);
    expect(Buffer.from(file.subarray(0, 4)).toString('ascii')).toBe('RIFF');
    expect(view.getUint32(4, true)).toBe(file.byteLength - 8);
    expect(Buffer.from(file.subarray(8, 16)).toString('ascii')).toBe('WAVEfmt ');
    expect(view.getUint32(28, true)).toBe(22050 * 2); // byte rate
    const decoded = decodeWavPcm16(file);
    expect(decoded).toMatchObject({ format: 1, channels: 1, sampleRate: 22050, bitsPerSample: 16 });
    expect([...decoded.samples]).toEqual([...samples]);
  });

  it('rejects what is not 16-bit PCM WAV', () => {
    expect(() => decodeWavPcm16(new Uint8Array(10))).toThrow(/RIFF/);
    const file = encodeWavPcm16(new Int16Array(4), 8000);
    new DataView(file.buffer).setUint16(34, 8, true);
    expect(() => decodeWavPcm16(file)).toThrow(/16-bit/);
  });
});
