/**
 * A small, deterministic synthesizer for the sound catalog: oscillators with envelopes, plucked
 * strings (Karplus-Strong), noise with moving filters, drums, an echo, and mixing into a stereo
 * buffer. Everything is computed in plain JavaScript from the recipe alone (noise from a seeded
 * generator), so the same recipe always gives the same samples. Pure: no I/O.
 */
import { seededRandom } from '../core/seeded-random.js';

export const SOUND_SAMPLE_RATE = 44_100;

/** Stereo audio: two channels of float samples, nominally in [-1, 1]. */
export interface Stereo {
  left: Float32Array;
  right: Float32Array;
}

export function stereo(seconds: number): Stereo {
  const length = Math.round(seconds * SOUND_SAMPLE_RATE);
  return { left: new Float32Array(length), right: new Float32Array(length) };
}

export const durationOf = (audio: Stereo) => audio.left.length / SOUND_SAMPLE_RATE;

/** Frequency of a MIDI note number (69 = A4 = 440 Hz). */
export const midi = (note: number) => 440 * 2 ** ((note - 69) / 12);

/** Writes `value(i)` for `count` samples from `startSeconds`, panned (-1 left, 0 centre, 1 right). */
function mix(
  audio: Stereo,
  startSeconds: number,
  count: number,
  pan: number,
  value: (i: number) => number,
): void {
  const start = Math.round(startSeconds * SOUND_SAMPLE_RATE);
  // Equal-power panning.
  const angle = ((Math.max(-1, Math.min(1, pan)) + 1) * Math.PI) / 4;
  const gainLeft = Math.cos(angle);
  const gainRight = Math.sin(angle);
  const end = Math.min(audio.left.length, start + count);
  for (let index = Math.max(0, start); index < end; index++) {
    const sample = value(index - start);
    audio.left[index] = (audio.left[index] ?? 0) + sample * gainLeft;
    audio.right[index] = (audio.right[index] ?? 0) + sample * gainRight;
  }
}

/** Attack, then hold, then release (seconds), shaped as a smooth rise and an exponential-ish fall. */
function envelope(t: number, duration: number, attack: number, release: number): number {
  if (t < 0 || t > duration) return 0;
  const rise = attack > 0 ? Math.min(1, t / attack) : 1;
  const fall = release > 0 ? Math.min(1, (duration - t) / release) : 1;
  return Math.sin((rise * Math.PI) / 2) * fall * fall;
}

export type Wave = 'sine' | 'triangle' | 'saw' | 'square' | 'organ' | 'bell';

function oscillator(wave: Wave, phase: number): number {
  const x = phase - Math.floor(phase);
  switch (wave) {
    case 'sine':
      return Math.sin(2 * Math.PI * x);
    case 'triangle':
      return 1 - 4 * Math.abs(x - 0.5);
    case 'saw':
      return 2 * x - 1;
    case 'square':
      return x < 0.5 ? 0.8 : -0.8;
    case 'organ':
      return (
        0.6 * Math.sin(2 * Math.PI * x) + 0.25 * Math.sin(4 * Math.PI * x) + 0.15 * Math.sin(6 * Math.PI * x)
      );
    case 'bell':
      // Inharmonic partials, as a struck bar or bell has.
      return (
        0.55 * Math.sin(2 * Math.PI * x) +
        0.25 * Math.sin(2 * Math.PI * x * 2.76) +
        0.12 * Math.sin(2 * Math.PI * x * 5.4) +
        0.08 * Math.sin(2 * Math.PI * x * 8.93)
      );
  }
}

export interface ToneOptions {
  start: number;
  duration: number;
  /** Hz at the start. */
  frequency: number;
  /** Hz at the end (a glide); @default frequency */
  endFrequency?: number;
  amplitude: number;
  wave?: Wave;
  attack?: number;
  release?: number;
  pan?: number;
  /** Exponential decay rate (1/s), for struck sounds (piano, bells, plucks). @default 0 */
  decay?: number;
  /** Vibrato depth in semitones and rate in Hz. */
  vibrato?: { depth: number; rate: number };
  /** Tremolo (amplitude wobble) depth 0..1 and rate in Hz. */
  tremolo?: { depth: number; rate: number };
  /** Detuned copies, in cents each side, for a thicker sound. @default 0 */
  detune?: number;
}

export function tone(audio: Stereo, options: ToneOptions): void {
  const count = Math.round(options.duration * SOUND_SAMPLE_RATE);
  const wave = options.wave ?? 'sine';
  const attack = options.attack ?? 0.01;
  const release = options.release ?? Math.min(0.1, options.duration / 3);
  const decay = options.decay ?? 0;
  const endFrequency = options.endFrequency ?? options.frequency;
  const glide = endFrequency !== options.frequency ? Math.log(endFrequency / options.frequency) : 0;
  const detunes = options.detune
    ? [-options.detune, 0, options.detune].map((cents) => 2 ** (cents / 1200))
    : [1];
  const phases = detunes.map(() => 0);
  const step = 1 / SOUND_SAMPLE_RATE;
  mix(audio, options.start, count, options.pan ?? 0, (i) => {
    const t = i * step;
    let frequency = glide
      ? options.frequency * Math.exp(glide * (count > 1 ? i / (count - 1) : 0))
      : options.frequency;
    if (options.vibrato) {
      frequency *= 2 ** ((options.vibrato.depth * Math.sin(2 * Math.PI * options.vibrato.rate * t)) / 12);
    }
    let sample = 0;
    for (let voice = 0; voice < detunes.length; voice++) {
      const phase = (phases[voice] ?? 0) + frequency * (detunes[voice] ?? 1) * step;
      phases[voice] = phase - Math.floor(phase);
      sample += oscillator(wave, phases[voice] ?? 0);
    }
    if (detunes.length > 1) sample /= detunes.length;
    let gain = options.amplitude * envelope(t, options.duration, attack, release);
    if (decay > 0) gain *= Math.exp(-decay * t);
    if (options.tremolo)
      gain *= 1 - options.tremolo.depth * (0.5 + 0.5 * Math.sin(2 * Math.PI * options.tremolo.rate * t));
    return sample * gain;
  });
}

/** A plucked string (Karplus-Strong): guitar, ukulele and harp-like notes. */
export function pluck(
  audio: Stereo,
  options: {
    start: number;
    frequency: number;
    duration: number;
    amplitude: number;
    pan?: number;
    brightness?: number;
    seed: number;
  },
): void {
  const period = Math.max(2, Math.round(SOUND_SAMPLE_RATE / options.frequency));
  const next = seededRandom(options.seed);
  const line = Float32Array.from({ length: period }, () => next() * 2 - 1);
  const damping = 0.5 * (options.brightness ?? 0.996);
  const count = Math.round(options.duration * SOUND_SAMPLE_RATE);
  let index = 0;
  mix(audio, options.start, count, options.pan ?? 0, (i) => {
    const current = line[index] ?? 0;
    const following = line[(index + 1) % period] ?? 0;
    line[index] = (current + following) * damping;
    index = (index + 1) % period;
    const fade = i > count - 2205 ? (count - i) / 2205 : 1;
    return current * options.amplitude * fade;
  });
}

export type NoiseColour = 'white' | 'pink' | 'brown';

export interface NoiseOptions {
  start: number;
  duration: number;
  amplitude: number;
  colour?: NoiseColour;
  seed: number;
  attack?: number;
  release?: number;
  pan?: number;
  decay?: number;
  /** A resonant band-pass moving from `from` to `to` Hz (exponentially); none: the raw noise. */
  band?: { from: number; to: number; q?: number };
  /** A low-pass moving from `from` to `to` Hz. */
  lowpass?: { from: number; to: number };
  /** Amplitude rising to the end (a swell) instead of the envelope's shape. @default false */
  swell?: boolean;
}

export function noise(audio: Stereo, options: NoiseOptions): void {
  const count = Math.round(options.duration * SOUND_SAMPLE_RATE);
  const next = seededRandom(options.seed);
  const colour = options.colour ?? 'white';
  let pinkState = [0, 0, 0];
  let brown = 0;
  // Band-pass biquad (RBJ, 0 dB peak), coefficients refreshed every 16 samples as the band moves.
  let b0 = 0;
  let b2 = 0;
  let a1 = 0;
  let a2 = 0;
  let x1 = 0;
  let x2 = 0;
  let y1 = 0;
  let y2 = 0;
  let onePole = 0;
  const attack = options.attack ?? 0.005;
  const release = options.release ?? Math.min(0.2, options.duration / 3);
  mix(audio, options.start, count, options.pan ?? 0, (i) => {
    const t = i / SOUND_SAMPLE_RATE;
    const progress = count > 1 ? i / (count - 1) : 0;
    const white = next() * 2 - 1;
    let sample = white;
    if (colour === 'pink') {
      pinkState = [
        0.997 * (pinkState[0] ?? 0) + 0.029591 * white,
        0.985 * (pinkState[1] ?? 0) + 0.032534 * white,
        0.95 * (pinkState[2] ?? 0) + 0.048056 * white,
      ];
      sample = ((pinkState[0] ?? 0) + (pinkState[1] ?? 0) + (pinkState[2] ?? 0)) * 3.5;
    } else if (colour === 'brown') {
      brown = Math.max(-1, Math.min(1, brown + white * 0.04));
      sample = brown * 2;
    }
    if (options.band) {
      if (i % 16 === 0) {
        const frequency = Math.min(
          options.band.from * (options.band.to / options.band.from) ** progress,
          18_000,
        );
        const w = (2 * Math.PI * frequency) / SOUND_SAMPLE_RATE;
        const alpha = Math.sin(w) / (2 * (options.band.q ?? 2));
        const a0 = 1 + alpha;
        b0 = alpha / a0;
        b2 = -alpha / a0;
        a1 = (-2 * Math.cos(w)) / a0;
        a2 = (1 - alpha) / a0;
      }
      const y = b0 * sample + b2 * x2 - a1 * y1 - a2 * y2;
      x2 = x1;
      x1 = sample;
      y2 = y1;
      y1 = y;
      sample = y * 2;
    }
    if (options.lowpass) {
      const frequency = options.lowpass.from * (options.lowpass.to / options.lowpass.from) ** progress;
      const alpha = 1 - Math.exp((-2 * Math.PI * frequency) / SOUND_SAMPLE_RATE);
      onePole += alpha * (sample - onePole);
      sample = onePole;
    }
    let gain = options.swell
      ? progress ** 2 * Math.min(1, (count - i) / 441)
      : envelope(t, options.duration, attack, release);
    if (options.decay) gain *= Math.exp(-options.decay * t);
    return sample * gain * options.amplitude;
  });
}

/** A kick drum: a sine dropping from 150 to 45 Hz with a fast decay. */
export function kick(audio: Stereo, start: number, amplitude = 0.9): void {
  tone(audio, {
    start,
    duration: 0.45,
    frequency: 150,
    endFrequency: 42,
    amplitude,
    attack: 0.001,
    release: 0.05,
    decay: 9,
  });
}

/** A snare: a short tone and a burst of band-passed noise. */
export function snare(audio: Stereo, start: number, seed: number, amplitude = 0.5): void {
  tone(audio, {
    start,
    duration: 0.15,
    frequency: 190,
    endFrequency: 160,
    amplitude: amplitude * 0.5,
    attack: 0.001,
    decay: 25,
  });
  noise(audio, {
    start,
    duration: 0.25,
    amplitude,
    seed,
    attack: 0.001,
    decay: 18,
    band: { from: 3500, to: 2500, q: 0.9 },
  });
}

/** A closed hi-hat: a very short burst of high noise. */
export function hat(audio: Stereo, start: number, seed: number, amplitude = 0.18, pan = 0.3): void {
  noise(audio, {
    start,
    duration: 0.06,
    amplitude,
    seed,
    attack: 0.0005,
    decay: 60,
    band: { from: 9000, to: 9000, q: 1.2 },
    pan,
  });
}

/** A clap: three quick noise bursts. */
export function clap(audio: Stereo, start: number, seed: number, amplitude = 0.4): void {
  for (const [index, offset] of [0, 0.011, 0.023].entries()) {
    noise(audio, {
      start: start + offset,
      duration: 0.18,
      amplitude,
      seed: seed + index,
      attack: 0.0005,
      decay: 30,
      band: { from: 1400, to: 1200, q: 1.5 },
    });
  }
}

/** A feedback echo (delay line) on both channels, the right one a little later for width. */
export function echo(audio: Stereo, delaySeconds: number, feedback: number, wet: number): void {
  for (const [channel, extra] of [
    [audio.left, 0],
    [audio.right, 0.013],
  ] as const) {
    const delay = Math.round((delaySeconds + extra) * SOUND_SAMPLE_RATE);
    const line = new Float32Array(channel.length);
    for (let i = 0; i < channel.length; i++) {
      const delayed = i >= delay ? (line[i - delay] ?? 0) : 0;
      line[i] = (channel[i] ?? 0) + delayed * feedback;
      channel[i] = (channel[i] ?? 0) + delayed * wet;
    }
  }
}

/** Fades the first `inSeconds` in and the last `outSeconds` out. */
export function fade(audio: Stereo, inSeconds: number, outSeconds: number): void {
  const length = audio.left.length;
  const fadeIn = Math.round(inSeconds * SOUND_SAMPLE_RATE);
  const fadeOut = Math.round(outSeconds * SOUND_SAMPLE_RATE);
  for (let i = 0; i < length; i++) {
    let gain = 1;
    if (i < fadeIn) gain *= i / fadeIn;
    if (i >= length - fadeOut) gain *= (length - i) / fadeOut;
    audio.left[i] = (audio.left[i] ?? 0) * gain;
    audio.right[i] = (audio.right[i] ?? 0) * gain;
  }
}

/**
 * Scales the audio so its loudest sample is `peak` (linear, 0.89 ≈ -1 dBFS), soft-clipping first, but
 * no louder on average than `maxRms`, so that a square-wave buzz is not louder than a piano.
 */
export function normalize(audio: Stereo, peak = 0.89, maxRms = 0.25): void {
  let loudest = 0;
  let power = 0;
  for (const channel of [audio.left, audio.right]) {
    for (let i = 0; i < channel.length; i++) {
      channel[i] = Math.tanh(channel[i] ?? 0);
      loudest = Math.max(loudest, Math.abs(channel[i] ?? 0));
      power += (channel[i] ?? 0) ** 2;
    }
  }
  if (loudest === 0) return;
  const rms = Math.sqrt(power / (2 * audio.left.length));
  const gain = Math.min(peak / loudest, maxRms / rms);
  for (const channel of [audio.left, audio.right])
    for (let i = 0; i < channel.length; i++) channel[i] = (channel[i] ?? 0) * gain;
}

/** Seconds from the start to the loudest 50 ms window (RMS of both channels). */
export function loudestPeakSeconds(audio: Stereo): number {
  const window = Math.round(0.05 * SOUND_SAMPLE_RATE);
  let best = 0;
  let bestAt = 0;
  for (let start = 0; start + window <= audio.left.length; start += Math.round(window / 2)) {
    let power = 0;
    for (let i = start; i < start + window; i++)
      power += (audio.left[i] ?? 0) ** 2 + (audio.right[i] ?? 0) ** 2;
    if (power > best) {
      best = power;
      bestAt = start + window / 2;
    }
  }
  return Math.round((bestAt / SOUND_SAMPLE_RATE) * 100) / 100;
}

/** Interleaved little-endian 16-bit PCM of the audio. */
export function toPcm16Stereo(audio: Stereo): Uint8Array {
  const bytes = new Uint8Array(audio.left.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < audio.left.length; i++) {
    const l = Math.max(-1, Math.min(1, audio.left[i] ?? 0));
    const r = Math.max(-1, Math.min(1, audio.right[i] ?? 0));
    view.setInt16(i * 4, Math.round(l * 32767), true);
    view.setInt16(i * 4 + 2, Math.round(r * 32767), true);
  }
  return bytes;
}
