/**
 * RIFF/WAVE files with 16-bit signed little-endian PCM: writing (engines) and reading (tests, and
 * engines that receive WAV). Pure functions, no I/O.
 */

const HEADER_BYTES = 44;

/** A canonical 44-byte-header WAV file holding `samples` (interleaved when `channels` > 1). */
export function encodeWavPcm16(samples: Int16Array, sampleRate: number, channels = 1): Uint8Array {
  if (!Number.isInteger(sampleRate) || sampleRate <= 0) throw new RangeError(`bad sample rate ${sampleRate}`);
  if (!Number.isInteger(channels) || channels < 1) throw new RangeError(`bad channel count ${channels}`);
  const dataBytes = samples.length * 2;
  const out = new Uint8Array(HEADER_BYTES + dataBytes);
  const view = new DataView(out.buffer);
  const ascii = (offset: number, text: string) => {
    for (let i = 0; i < text.length; i++) out[offset + i] = text.charCodeAt(i);
  };
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, channels, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * channels * 2, true); // byte rate
  view.setUint16(32, channels * 2, true); // block align
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
  for (let i = 0; i < samples.length; i++) view.setInt16(HEADER_BYTES + i * 2, samples[i] ?? 0, true);
  return out;
}

export interface DecodedWav {
  format: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** Interleaved samples. */
  samples: Int16Array;
}

/** Reads a 16-bit PCM WAV file (any chunk layout); throws on anything else. */
export function decodeWavPcm16(file: Uint8Array): DecodedWav {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const tag = (offset: number) => String.fromCharCode(...file.subarray(offset, offset + 4));
  if (file.byteLength < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new Error('not a RIFF/WAVE file');
  let fmt: Omit<DecodedWav, 'samples'> | undefined;
  let offset = 12;
  while (offset + 8 <= file.byteLength) {
    const id = tag(offset);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === 'fmt ') {
      fmt = {
        format: view.getUint16(body, true),
        channels: view.getUint16(body + 2, true),
        sampleRate: view.getUint32(body + 4, true),
        bitsPerSample: view.getUint16(body + 14, true),
      };
    } else if (id === 'data') {
      if (!fmt) throw new Error('WAV data chunk before its fmt chunk');
      if (fmt.format !== 1 || fmt.bitsPerSample !== 16) throw new Error('WAV is not 16-bit PCM');
      const end = Math.min(body + size, file.byteLength);
      const samples = new Int16Array(Math.floor((end - body) / 2));
      for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(body + i * 2, true);
      return { ...fmt, samples };
    }
    offset = body + size + (size % 2);
  }
  throw new Error('WAV file has no data chunk');
}
