/**
 * The audio of text to speech: 44.1 kHz mono 16-bit PCM WAV, the format the reference names. The
 * speech engines speak at their own rates (eSpeak 22,050 Hz, Polly 16,000 Hz), so their samples are
 * resampled. Pure functions, no I/O.
 */

/** Sample rate of every text-to-speech output. */
export const TTS_SAMPLE_RATE = 44_100;

/**
 * `samples` at `from` Hz as samples at `to` Hz, by linear interpolation between neighbours. Going up
 * (the only direction used here) this adds no content above the source's own Nyquist frequency
 * beyond the interpolation's mild images, which a 2x or 2.76x upsampling of speech keeps inaudible.
 */
export function resamplePcm16(samples: Int16Array, from: number, to: number): Int16Array {
  if (!(from > 0 && to > 0)) throw new RangeError(`bad sample rates ${from} → ${to}`);
  if (from === to || samples.length === 0) return samples;
  const length = Math.max(1, Math.round((samples.length * to) / from));
  const out = new Int16Array(length);
  const step = from / to;
  const last = samples.length - 1;
  for (let i = 0; i < length; i++) {
    const position = i * step;
    const index = Math.min(last, Math.floor(position));
    const fraction = position - index;
    const a = samples[index] ?? 0;
    const b = samples[Math.min(last, index + 1)] ?? a;
    out[i] = Math.round(a + (b - a) * fraction);
  }
  return out;
}

/** Little-endian bytes of 16-bit samples (the data of a WAV file). */
export function pcm16Bytes(samples: Int16Array): Uint8Array {
  const bytes = new Uint8Array(samples.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i] ?? 0, true);
  return bytes;
}

/** `ms` of silence at `sampleRate`. */
export function silence(ms: number, sampleRate: number = TTS_SAMPLE_RATE): Int16Array {
  return new Int16Array(Math.round((ms * sampleRate) / 1000));
}

const UNKNOWN_LENGTH = 0xffffffff;

/**
 * The 44-byte header of a mono 16-bit PCM WAV file. Without `dataBytes` (a stream whose length is
 * not known when the header is sent) both sizes are 0xFFFFFFFF, which readers (ffmpeg, browsers,
 * libsndfile) take as "until the end of the file".
 */
export function wavHeader(sampleRate: number = TTS_SAMPLE_RATE, dataBytes?: number): Uint8Array {
  const header = new Uint8Array(44);
  const view = new DataView(header.buffer);
  const ascii = (offset: number, text: string) => {
    for (let i = 0; i < text.length; i++) header[offset + i] = text.charCodeAt(i);
  };
  ascii(0, 'RIFF');
  view.setUint32(4, dataBytes === undefined ? UNKNOWN_LENGTH : 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, 'data');
  view.setUint32(40, dataBytes === undefined ? UNKNOWN_LENGTH : dataBytes, true);
  return header;
}
