/**
 * How each sound of the catalog is made: music (chord progressions, arpeggios, bass lines, drums) and
 * sound effects (whooshes, risers, impacts, clicks, chimes...), written with the synthesizer of
 * `synth.ts`. Each recipe renders the same samples every time (noise is seeded). Pure: no I/O.
 */
import { seededRandom } from '../core/seeded-random.js';
import {
  clap,
  durationOf,
  echo,
  fade,
  hat,
  kick,
  midi,
  noise,
  normalize,
  pluck,
  type Stereo,
  snare,
  stereo,
  tone,
} from './synth.js';

export type Recipe = () => Stereo;

/** Seconds of one beat at `bpm`. */
const beat = (bpm: number) => 60 / bpm;

/** Chord tones (MIDI) by name, voiced around middle C. */
const CHORDS: Readonly<Record<string, readonly number[]>> = {
  C: [48, 52, 55, 60],
  Cmaj7: [48, 52, 55, 59],
  Cmaj9: [48, 55, 59, 62, 64],
  Cm: [48, 51, 55, 60],
  D: [50, 54, 57, 62],
  Dm: [50, 53, 57, 62],
  Dm7: [50, 53, 57, 60],
  Em: [52, 55, 59, 64],
  Em7: [52, 55, 59, 62],
  Eb: [51, 55, 58, 63],
  F: [53, 57, 60, 65],
  Fmaj7: [53, 57, 60, 64],
  G: [55, 59, 62, 67],
  G6: [55, 59, 62, 64],
  Gm: [55, 58, 62, 67],
  A: [57, 61, 64, 69],
  Am: [57, 60, 64, 69],
  Am9: [57, 60, 64, 67, 71],
  Ab: [56, 60, 63, 68],
  Bb: [58, 62, 65, 70],
};

function chord(name: string): readonly number[] {
  const notes = CHORDS[name];
  if (!notes) throw new Error(`unknown chord ${name}`);
  return notes;
}

/** Every bar of `bars`, cycling through `progression`, one chord per bar. */
function eachBar(
  bars: number,
  progression: readonly string[],
  visit: (bar: number, notes: readonly number[]) => void,
) {
  for (let bar = 0; bar < bars; bar++) visit(bar, chord(progression[bar % progression.length] as string));
}

function finish(audio: Stereo, fadeIn = 0.05, fadeOut = 1.5): Stereo {
  normalize(audio);
  fade(audio, fadeIn, fadeOut);
  return audio;
}

// ---------------------------------------------------------------------------------------------------
// Music

export const MUSIC_RECIPES: Readonly<Record<string, Recipe>> = {
  'sunrise-lofi': () => {
    const bpm = 80;
    const b = beat(bpm);
    const bars = 8;
    const audio = stereo(bars * 4 * b);
    eachBar(bars, ['Fmaj7', 'Em7', 'Dm7', 'Cmaj7'], (bar, notes) => {
      const start = bar * 4 * b;
      // Electric piano: soft, wobbling chords on 1 and the "and" of 2.
      for (const at of [0, 1.5]) {
        notes.forEach((note, index) => {
          tone(audio, {
            start: start + at * b + index * 0.012,
            duration: 2.4 * b,
            frequency: midi(note),
            amplitude: 0.12,
            wave: 'organ',
            attack: 0.01,
            release: 0.4,
            decay: 0.9,
            tremolo: { depth: 0.25, rate: 4.5 },
            pan: index % 2 ? 0.25 : -0.25,
          });
        });
      }
      tone(audio, {
        start,
        duration: 3.5 * b,
        frequency: midi((notes[0] ?? 48) - 12),
        amplitude: 0.35,
        attack: 0.02,
        release: 0.3,
        decay: 0.6,
      });
      // Boom-bap: kick on 1 and the "and" of 2, snare on 2 and 4, swung hats.
      kick(audio, start, 0.8);
      kick(audio, start + 2.5 * b, 0.6);
      snare(audio, start + b, 100 + bar, 0.35);
      snare(audio, start + 3 * b, 200 + bar, 0.35);
      for (let eighth = 0; eighth < 8; eighth++) {
        hat(
          audio,
          start + eighth * 0.5 * b + (eighth % 2 ? 0.06 : 0),
          300 + bar * 8 + eighth,
          eighth % 2 ? 0.07 : 0.11,
        );
      }
    });
    // Vinyl: a quiet pink bed and sparse crackles.
    noise(audio, {
      start: 0,
      duration: durationOf(audio),
      amplitude: 0.025,
      colour: 'pink',
      seed: 7,
      lowpass: { from: 3000, to: 3000 },
    });
    const crackle = seededRandom(11);
    for (let t = 0; t < durationOf(audio); t += 0.05 + crackle() * 0.4) {
      noise(audio, {
        start: t,
        duration: 0.004,
        amplitude: 0.15 * crackle(),
        seed: Math.floor(t * 1000),
        attack: 0.0002,
        release: 0.002,
      });
    }
    return finish(audio);
  },

  'bright-steps': () => {
    const bpm = 120;
    const b = beat(bpm);
    const bars = 12;
    const audio = stereo(bars * 4 * b);
    eachBar(bars, ['C', 'G', 'Am', 'F'], (bar, notes) => {
      const start = bar * 4 * b;
      const pattern = [0, 1, 2, 3, 2, 1, 2, 3];
      for (let sixteenth = 0; sixteenth < 16; sixteenth++) {
        const note = (notes[pattern[sixteenth % 8] as number] ?? 60) + 12;
        pluck(audio, {
          start: start + sixteenth * 0.25 * b,
          frequency: midi(note),
          duration: 0.6,
          amplitude: 0.22,
          pan: sixteenth % 2 ? 0.35 : -0.35,
          seed: bar * 16 + sixteenth,
        });
      }
      for (let eighth = 0; eighth < 8; eighth++) {
        tone(audio, {
          start: start + eighth * 0.5 * b,
          duration: 0.45 * b,
          frequency: midi((notes[0] ?? 48) - 12),
          amplitude: 0.28,
          wave: 'triangle',
          attack: 0.005,
          release: 0.05,
        });
      }
      for (let quarter = 0; quarter < 4; quarter++) kick(audio, start + quarter * b, 0.7);
      clap(audio, start + b, 500 + bar, 0.3);
      clap(audio, start + 3 * b, 600 + bar, 0.3);
      for (let eighth = 0; eighth < 8; eighth++)
        if (eighth % 2) hat(audio, start + eighth * 0.5 * b, 700 + bar * 8 + eighth, 0.12);
    });
    return finish(audio);
  },

  'tense-horizon': () => {
    const bpm = 90;
    const b = beat(bpm);
    const bars = 9;
    const audio = stereo(bars * 4 * b);
    const length = durationOf(audio);
    tone(audio, {
      start: 0,
      duration: length,
      frequency: midi(38),
      amplitude: 0.22,
      wave: 'saw',
      detune: 12,
      attack: 2,
      release: 2,
    });
    tone(audio, {
      start: 0,
      duration: length,
      frequency: midi(45),
      amplitude: 0.12,
      wave: 'triangle',
      detune: 8,
      attack: 3,
      release: 2,
    });
    eachBar(bars, ['Dm', 'Bb', 'Gm', 'A'], (bar, notes) => {
      const start = bar * 4 * b;
      for (let sixteenth = 0; sixteenth < 16; sixteenth++) {
        tone(audio, {
          start: start + sixteenth * 0.25 * b,
          duration: 0.18 * b,
          frequency: midi((notes[0] ?? 50) - 12 + (sixteenth % 4 === 3 ? 12 : 0)),
          amplitude: sixteenth % 4 === 0 ? 0.3 : 0.16,
          wave: 'saw',
          attack: 0.003,
          release: 0.03,
          pan: sixteenth % 2 ? 0.2 : -0.2,
        });
      }
      if (bar % 2 === 0) {
        kick(audio, start, 1);
        noise(audio, {
          start,
          duration: 1.6,
          amplitude: 0.35,
          colour: 'brown',
          seed: 40 + bar,
          attack: 0.002,
          decay: 2.5,
        });
      }
    });
    // A riser into the end.
    const riseStart = length - 4 * b;
    noise(audio, {
      start: riseStart,
      duration: 4 * b,
      amplitude: 0.5,
      seed: 99,
      swell: true,
      band: { from: 300, to: 6000, q: 3 },
    });
    tone(audio, {
      start: riseStart,
      duration: 4 * b,
      frequency: midi(50),
      endFrequency: midi(74),
      amplitude: 0.18,
      wave: 'saw',
      attack: 1,
      release: 0.05,
    });
    return finish(audio, 1, 0.3);
  },

  'calm-waters': () => {
    const audio = stereo(24);
    const progression = ['Cmaj9', 'Am9', 'Fmaj7', 'G6'];
    progression.forEach((name, index) => {
      chord(name).forEach((note, voice) => {
        tone(audio, {
          start: index * 6,
          duration: 7.5,
          frequency: midi(note),
          amplitude: 0.09,
          wave: 'triangle',
          detune: 6,
          attack: 2.5,
          release: 3,
          pan: voice % 2 ? 0.5 : -0.5,
        });
      });
    });
    const next = seededRandom(3);
    const pentatonic = [72, 74, 76, 79, 81, 84];
    for (let t = 0.5; t < 22; t += 0.75 + next() * 1.5) {
      tone(audio, {
        start: t,
        duration: 3,
        frequency: midi(pentatonic[Math.floor(next() * pentatonic.length)] ?? 72),
        amplitude: 0.1,
        wave: 'bell',
        attack: 0.002,
        decay: 1.8,
        pan: next() * 1.6 - 0.8,
      });
    }
    echo(audio, 0.42, 0.45, 0.35);
    return finish(audio, 1.5, 3);
  },

  'night-drive': () => {
    const bpm = 100;
    const b = beat(bpm);
    const bars = 10;
    const audio = stereo(bars * 4 * b);
    eachBar(bars, ['Am', 'F', 'C', 'G'], (bar, notes) => {
      const start = bar * 4 * b;
      notes.forEach((note, index) => {
        tone(audio, {
          start,
          duration: 4 * b,
          frequency: midi(note),
          amplitude: 0.06,
          wave: 'saw',
          detune: 10,
          attack: 0.3,
          release: 0.5,
          pan: index % 2 ? 0.4 : -0.4,
        });
      });
      for (let eighth = 0; eighth < 8; eighth++) {
        const root = (notes[0] ?? 57) - 24 + (eighth % 2 ? 12 : 0);
        tone(audio, {
          start: start + eighth * 0.5 * b,
          duration: 0.45 * b,
          frequency: midi(root),
          amplitude: 0.25,
          wave: 'saw',
          attack: 0.003,
          release: 0.08,
        });
      }
      const arpeggio = [0, 1, 2, 3, 2, 1, 0, 2];
      for (let eighth = 0; eighth < 8; eighth++) {
        tone(audio, {
          start: start + eighth * 0.5 * b,
          duration: 0.4 * b,
          frequency: midi((notes[arpeggio[eighth] as number] ?? 60) + 12),
          amplitude: 0.07,
          wave: 'square',
          attack: 0.005,
          release: 0.05,
          pan: 0.3,
        });
      }
      kick(audio, start, 0.85);
      kick(audio, start + 2 * b, 0.85);
      snare(audio, start + b, 800 + bar, 0.45);
      snare(audio, start + 3 * b, 900 + bar, 0.45);
      for (let eighth = 0; eighth < 8; eighth++)
        hat(audio, start + eighth * 0.5 * b, 1000 + bar * 8 + eighth, 0.08);
    });
    echo(audio, 0.6 * beat(bpm), 0.3, 0.2);
    return finish(audio);
  },

  'little-wonders': () => {
    const bpm = 110;
    const b = beat(bpm);
    const bars = 11;
    const audio = stereo(bars * 4 * b);
    const melody = [76, 79, 81, 79, 76, 74, 72, 74];
    eachBar(bars, ['C', 'F', 'G', 'C'], (bar, notes) => {
      const start = bar * 4 * b;
      for (const at of [0, 1, 1.5, 2.5, 3]) {
        notes.forEach((note, index) => {
          pluck(audio, {
            start: start + at * b + index * 0.012,
            frequency: midi(note + 12),
            duration: 0.5,
            amplitude: 0.12,
            brightness: 0.992,
            pan: -0.3,
            seed: bar * 50 + at * 10 + index,
          });
        });
      }
      for (let eighth = 0; eighth < 8; eighth += 2) {
        tone(audio, {
          start: start + eighth * 0.5 * b,
          duration: 1,
          frequency: midi(melody[(bar * 4 + eighth / 2) % melody.length] ?? 76),
          amplitude: 0.12,
          wave: 'bell',
          attack: 0.002,
          decay: 3,
          pan: 0.35,
        });
      }
      pluck(audio, {
        start,
        frequency: midi((notes[0] ?? 48) - 12),
        duration: 1,
        amplitude: 0.35,
        seed: 2000 + bar,
      });
      pluck(audio, {
        start: start + 2 * b,
        frequency: midi((notes[2] ?? 55) - 12),
        duration: 1,
        amplitude: 0.3,
        seed: 3000 + bar,
      });
      for (let sixteenth = 0; sixteenth < 16; sixteenth++)
        hat(
          audio,
          start + sixteenth * 0.25 * b,
          4000 + bar * 16 + sixteenth,
          sixteenth % 2 ? 0.05 : 0.09,
          -0.1,
        );
    });
    return finish(audio);
  },

  'epic-dawn': () => {
    const bpm = 80;
    const b = beat(bpm);
    const bars = 8;
    const audio = stereo(bars * 4 * b);
    eachBar(bars, ['Cm', 'Ab', 'Eb', 'Bb'], (bar, notes) => {
      const start = bar * 4 * b;
      notes.forEach((note, index) => {
        tone(audio, {
          start,
          duration: 4 * b,
          frequency: midi(note),
          amplitude: 0.09,
          wave: 'saw',
          detune: 14,
          attack: 0.6,
          release: 0.6,
          vibrato: { depth: 0.08, rate: 5 },
          pan: index % 2 ? 0.45 : -0.45,
        });
      });
      tone(audio, {
        start,
        duration: 4 * b,
        frequency: midi((notes[0] ?? 48) - 24),
        amplitude: 0.3,
        wave: 'triangle',
        attack: 0.05,
        release: 0.5,
      });
      for (const [at, pitch] of [
        [0, 100],
        [0.75, 90],
        [1.5, 100],
        [2, 80],
        [3, 100],
        [3.5, 110],
      ] as const) {
        tone(audio, {
          start: start + at * b,
          duration: 0.6,
          frequency: pitch,
          endFrequency: pitch * 0.55,
          amplitude: 0.6,
          attack: 0.001,
          decay: 6,
        });
        noise(audio, {
          start: start + at * b,
          duration: 0.3,
          amplitude: 0.15,
          colour: 'brown',
          seed: bar * 10 + at * 4,
          attack: 0.001,
          decay: 12,
        });
      }
      noise(audio, {
        start: start + 2 * b,
        duration: 2 * b,
        amplitude: 0.12,
        seed: 5000 + bar,
        swell: true,
        band: { from: 6000, to: 9000, q: 0.7 },
      });
    });
    echo(audio, 0.35, 0.3, 0.25);
    return finish(audio, 0.5, 2);
  },

  'soft-focus': () => {
    const bpm = 70;
    const b = beat(bpm);
    const bars = 7;
    const audio = stereo(bars * 4 * b);
    const broken = [0, 2, 1, 3, 2, 1, 3, 2];
    eachBar(bars, ['Am', 'F', 'C', 'G'], (bar, notes) => {
      const start = bar * 4 * b;
      tone(audio, {
        start,
        duration: 4 * b,
        frequency: midi((notes[0] ?? 57) - 12),
        amplitude: 0.25,
        wave: 'organ',
        attack: 0.005,
        decay: 0.8,
        release: 0.5,
      });
      for (let eighth = 0; eighth < 8; eighth++) {
        tone(audio, {
          start: start + eighth * 0.5 * b,
          duration: 2.5 * b,
          frequency: midi((notes[broken[eighth] as number] ?? 60) + 12),
          amplitude: 0.14,
          wave: 'organ',
          attack: 0.004,
          decay: 1.6,
          release: 0.4,
          pan: (eighth % 4) * 0.2 - 0.3,
        });
      }
    });
    echo(audio, 0.5, 0.35, 0.3);
    return finish(audio, 0.1, 3);
  },

  'pulse-grid': () => {
    const bpm = 125;
    const b = beat(bpm);
    const bars = 12;
    const audio = stereo(bars * 4 * b);
    const scale = [64, 67, 69, 71, 74, 76];
    const next = seededRandom(21);
    const sequence = Array.from({ length: 16 }, () =>
      next() < 0.6 ? (scale[Math.floor(next() * scale.length)] ?? 64) : 0,
    );
    for (let bar = 0; bar < bars; bar++) {
      const start = bar * 4 * b;
      sequence.forEach((note, sixteenth) => {
        if (note === 0 || bar < 2) return;
        tone(audio, {
          start: start + sixteenth * 0.25 * b,
          duration: 0.12,
          frequency: midi(note),
          amplitude: 0.1,
          wave: 'square',
          attack: 0.002,
          release: 0.04,
          pan: sixteenth % 2 ? 0.4 : -0.4,
        });
      });
      for (let quarter = 0; quarter < 4; quarter++) kick(audio, start + quarter * b, 0.8);
      for (let quarter = 0; quarter < 4; quarter++)
        hat(audio, start + (quarter + 0.5) * b, 6000 + bar * 4 + quarter, 0.14);
      const bassNote = bar % 4 < 2 ? 40 : 43;
      for (let eighth = 0; eighth < 8; eighth++) {
        if (eighth % 2 === 0) continue;
        tone(audio, {
          start: start + eighth * 0.5 * b,
          duration: 0.35 * b,
          frequency: midi(bassNote),
          amplitude: 0.3,
          wave: 'square',
          attack: 0.003,
          release: 0.05,
        });
      }
    }
    echo(audio, 0.75 * beat(bpm), 0.35, 0.2);
    return finish(audio);
  },

  'golden-hour': () => {
    const bpm = 96;
    const b = beat(bpm);
    const bars = 10;
    const audio = stereo(bars * 4 * b);
    // Down, down, up, up, down, up: on 1, 2, the "and" of 2, the "and" of 3, 4, the "and" of 4.
    const strums: readonly [number, 'down' | 'up'][] = [
      [0, 'down'],
      [1, 'down'],
      [1.5, 'up'],
      [2.5, 'up'],
      [3, 'down'],
      [3.5, 'up'],
    ];
    eachBar(bars, ['G', 'D', 'Em', 'C'], (bar, notes) => {
      const start = bar * 4 * b;
      const strings = [(notes[0] ?? 55) - 12, ...notes];
      for (const [at, direction] of strums) {
        const order = direction === 'down' ? strings : [...strings].reverse();
        order.forEach((note, index) => {
          pluck(audio, {
            start: start + at * b + index * 0.014,
            frequency: midi(note),
            duration: 1.2,
            amplitude: direction === 'down' ? 0.13 : 0.09,
            brightness: 0.995,
            pan: index / strings.length - 0.5,
            seed: bar * 100 + at * 10 + index,
          });
        });
      }
      kick(audio, start, 0.4);
      kick(audio, start + 2 * b, 0.4);
      for (let eighth = 0; eighth < 8; eighth++)
        hat(audio, start + eighth * 0.5 * b, 7000 + bar * 8 + eighth, 0.05, 0.5);
    });
    return finish(audio);
  },
};

// ---------------------------------------------------------------------------------------------------
// Sound effects

export const SOUND_EFFECT_RECIPES: Readonly<Record<string, Recipe>> = {
  whoosh: () => {
    const audio = stereo(1.4);
    noise(audio, {
      start: 0,
      duration: 1.4,
      amplitude: 0.9,
      colour: 'pink',
      seed: 1,
      attack: 0.6,
      release: 0.75,
      band: { from: 250, to: 3500, q: 2.5 },
    });
    return finish(audio, 0, 0.05);
  },

  'reverse-swoosh': () => {
    const audio = stereo(1.6);
    noise(audio, {
      start: 0,
      duration: 1.6,
      amplitude: 0.9,
      seed: 2,
      swell: true,
      band: { from: 6000, to: 400, q: 2 },
    });
    return finish(audio, 0, 0.01);
  },

  'tension-riser': () => {
    const audio = stereo(4);
    noise(audio, {
      start: 0,
      duration: 4,
      amplitude: 0.6,
      seed: 3,
      swell: true,
      band: { from: 200, to: 8000, q: 4 },
    });
    tone(audio, {
      start: 0,
      duration: 4,
      frequency: 110,
      endFrequency: 880,
      amplitude: 0.25,
      wave: 'saw',
      detune: 15,
      attack: 2.5,
      release: 0.02,
    });
    return finish(audio, 0, 0.01);
  },

  'cinematic-impact': () => {
    const audio = stereo(3);
    tone(audio, {
      start: 0,
      duration: 3,
      frequency: 90,
      endFrequency: 30,
      amplitude: 1,
      attack: 0.002,
      decay: 1.6,
    });
    noise(audio, {
      start: 0,
      duration: 1.5,
      amplitude: 0.6,
      colour: 'brown',
      seed: 4,
      attack: 0.001,
      decay: 4,
    });
    noise(audio, {
      start: 0,
      duration: 0.4,
      amplitude: 0.4,
      seed: 5,
      attack: 0.001,
      decay: 14,
      band: { from: 2500, to: 800, q: 1 },
    });
    echo(audio, 0.23, 0.4, 0.3);
    return finish(audio, 0, 0.4);
  },

  'ui-click': () => {
    const audio = stereo(0.12);
    tone(audio, {
      start: 0,
      duration: 0.05,
      frequency: 2200,
      endFrequency: 1400,
      amplitude: 0.6,
      attack: 0.0005,
      decay: 90,
    });
    noise(audio, {
      start: 0,
      duration: 0.02,
      amplitude: 0.4,
      seed: 6,
      attack: 0.0002,
      decay: 300,
      band: { from: 5000, to: 5000, q: 2 },
    });
    return finish(audio, 0, 0.01);
  },

  'bubble-pop': () => {
    const audio = stereo(0.25);
    tone(audio, {
      start: 0,
      duration: 0.12,
      frequency: 400,
      endFrequency: 1400,
      amplitude: 0.8,
      attack: 0.001,
      decay: 30,
    });
    return finish(audio, 0, 0.02);
  },

  'notification-ding': () => {
    const audio = stereo(1.6);
    tone(audio, {
      start: 0,
      duration: 1.6,
      frequency: midi(88),
      amplitude: 0.6,
      wave: 'bell',
      attack: 0.001,
      decay: 3,
    });
    tone(audio, {
      start: 0.12,
      duration: 1.4,
      frequency: midi(84),
      amplitude: 0.5,
      wave: 'bell',
      attack: 0.001,
      decay: 3,
    });
    return finish(audio, 0, 0.1);
  },

  'success-chime': () => {
    const audio = stereo(1.5);
    [72, 76, 79, 84].forEach((note, index) => {
      tone(audio, {
        start: index * 0.09,
        duration: 1.2,
        frequency: midi(note),
        amplitude: 0.4,
        wave: 'bell',
        attack: 0.001,
        decay: 3.5,
        pan: index * 0.2 - 0.3,
      });
    });
    return finish(audio, 0, 0.1);
  },

  'error-buzz': () => {
    const audio = stereo(0.6);
    for (const start of [0, 0.3]) {
      tone(audio, {
        start,
        duration: 0.22,
        frequency: 140,
        amplitude: 0.5,
        wave: 'square',
        attack: 0.002,
        release: 0.03,
      });
    }
    return finish(audio, 0, 0.02);
  },

  'cash-register': () => {
    const audio = stereo(1.5);
    // The drawer's mechanism, then the bell ("cha-ching"), then coins.
    noise(audio, {
      start: 0,
      duration: 0.12,
      amplitude: 0.5,
      seed: 7,
      attack: 0.001,
      decay: 30,
      band: { from: 1800, to: 1200, q: 1.5 },
    });
    noise(audio, {
      start: 0.14,
      duration: 0.1,
      amplitude: 0.5,
      seed: 8,
      attack: 0.001,
      decay: 35,
      band: { from: 2200, to: 1500, q: 1.5 },
    });
    tone(audio, {
      start: 0.3,
      duration: 1.2,
      frequency: midi(95),
      amplitude: 0.55,
      wave: 'bell',
      attack: 0.001,
      decay: 2.5,
    });
    tone(audio, {
      start: 0.3,
      duration: 1.2,
      frequency: midi(91),
      amplitude: 0.35,
      wave: 'bell',
      attack: 0.001,
      decay: 2.5,
    });
    const next = seededRandom(9);
    for (let index = 0; index < 6; index++) {
      tone(audio, {
        start: 0.45 + index * 0.07 + next() * 0.03,
        duration: 0.15,
        frequency: 3000 + next() * 2000,
        amplitude: 0.15,
        wave: 'bell',
        attack: 0.0005,
        decay: 25,
        pan: next() - 0.5,
      });
    }
    return finish(audio, 0, 0.1);
  },

  'keyboard-typing': () => {
    const audio = stereo(3.2);
    const next = seededRandom(10);
    for (let t = 0.05; t < 3.05; t += 0.08 + next() * 0.14) {
      noise(audio, {
        start: t,
        duration: 0.03,
        amplitude: 0.4 + next() * 0.3,
        seed: Math.floor(t * 10_000),
        attack: 0.0003,
        decay: 160,
        band: { from: 2500 + next() * 1500, to: 2000, q: 1.2 },
        pan: next() * 0.6 - 0.3,
      });
      tone(audio, { start: t, duration: 0.03, frequency: 180, amplitude: 0.15, attack: 0.0005, decay: 120 });
    }
    return finish(audio, 0.01, 0.05);
  },

  'camera-shutter': () => {
    const audio = stereo(0.4);
    noise(audio, {
      start: 0,
      duration: 0.05,
      amplitude: 0.8,
      seed: 11,
      attack: 0.0003,
      decay: 80,
      band: { from: 4000, to: 3000, q: 1.5 },
    });
    noise(audio, {
      start: 0.09,
      duration: 0.08,
      amplitude: 0.6,
      seed: 12,
      attack: 0.0003,
      decay: 60,
      band: { from: 2500, to: 1800, q: 1.5 },
    });
    return finish(audio, 0, 0.02);
  },

  heartbeat: () => {
    const audio = stereo(4);
    for (let beatIndex = 0; beatIndex < 5; beatIndex++) {
      const start = 0.1 + beatIndex * 0.8;
      tone(audio, {
        start,
        duration: 0.25,
        frequency: 60,
        endFrequency: 40,
        amplitude: 0.9,
        attack: 0.004,
        decay: 18,
      });
      tone(audio, {
        start: start + 0.22,
        duration: 0.22,
        frequency: 55,
        endFrequency: 38,
        amplitude: 0.6,
        attack: 0.004,
        decay: 20,
      });
    }
    return finish(audio, 0, 0.1);
  },

  'rain-ambience': () => {
    const audio = stereo(8);
    noise(audio, {
      start: 0,
      duration: 8,
      amplitude: 0.45,
      colour: 'pink',
      seed: 13,
      attack: 1,
      release: 1,
      lowpass: { from: 5000, to: 5000 },
    });
    const next = seededRandom(14);
    for (let t = 0.2; t < 7.8; t += 0.02 + next() * 0.12) {
      tone(audio, {
        start: t,
        duration: 0.03,
        frequency: 1500 + next() * 3000,
        endFrequency: 900,
        amplitude: 0.06 * next(),
        attack: 0.0005,
        decay: 120,
        pan: next() * 2 - 1,
      });
    }
    return finish(audio, 0.5, 1);
  },

  'drum-roll': () => {
    const audio = stereo(3);
    for (let t = 0; t < 2.5; t += 0.045) {
      snare(audio, t, Math.floor(t * 1000), 0.15 + (t / 2.5) * 0.35);
    }
    kick(audio, 2.55, 1);
    noise(audio, {
      start: 2.55,
      duration: 0.45,
      amplitude: 0.5,
      seed: 15,
      attack: 0.001,
      decay: 6,
      band: { from: 8000, to: 6000, q: 0.7 },
    });
    return finish(audio, 0, 0.1);
  },

  glitch: () => {
    const audio = stereo(0.8);
    const next = seededRandom(16);
    for (let t = 0; t < 0.75; t += 0.02 + next() * 0.05) {
      tone(audio, {
        start: t,
        duration: 0.02 + next() * 0.04,
        frequency: 200 + next() * 3000,
        amplitude: 0.4,
        wave: next() < 0.5 ? 'square' : 'saw',
        attack: 0.0005,
        release: 0.002,
        pan: next() * 2 - 1,
      });
    }
    return finish(audio, 0, 0.02);
  },
};
