/**
 * The body of `POST /v3/models/audio/tts` and `/tts/stream`, and the rules that depend on the voice:
 *
 * - `model`: `service-voice-1` (default) or `service-voice-1-turbo`; turbo speaks instant voices only
 *   (professional voices use `service-voice-1`).
 * - `expressiveness_boost` (0 to 1, default 1): instant voices only.
 * - `seed`, `speed`, `pitch_shift`, `pitch_variance`, and `<break time='…'/>` pauses in `text`:
 *   professional voices only.
 *
 * Each refusal is a 400 `invalid_parameter` naming the field. Fields the reference marks nullable take
 * null as "not given". Pure: no I/O.
 */
import { z } from 'zod';
import { InvalidParameterError } from '../core/errors.js';
import { MAX_TTS_TEXT_LENGTH, type ModelVoiceMode, parseTtsText, type TextPart } from './tts-text.js';

export const TTS_MODELS = ['service-voice-1', 'service-voice-1-turbo'] as const;
export type TtsModel = (typeof TTS_MODELS)[number];
export const DEFAULT_TTS_MODEL: TtsModel = 'service-voice-1';

/** `speed` range: a multiplier of the voice's own pace. */
export const TTS_SPEED = { min: 0.5, max: 2 } as const;
/** `pitch_shift` range, in semitones (what both speech engines can shift a voice by). */
export const TTS_PITCH_SHIFT = { min: -6, max: 6 } as const;
/** `pitch_variance` range: a multiplier of the voice's intonation range; 1 keeps it. */
export const TTS_PITCH_VARIANCE = { min: 0, max: 2 } as const;

const nullable = <T extends z.ZodType>(schema: T) =>
  schema.nullish().transform((value) => value ?? undefined);

const range = (min: number, max: number, what = 'a number') =>
  z
    .number({ error: `must be ${what} from ${min} to ${max}` })
    .min(min, { error: `must be ${what} from ${min} to ${max}` })
    .max(max, { error: `must be ${what} from ${min} to ${max}` });

export const ttsBody = z.strictObject({
  voice_id: z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(128, { error: 'must be at most 128 characters' })
    .meta({ description: 'An audio voice of your workspace (`GET /v3/models/audio/voices`), `ACTIVE`' }),
  text: z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(MAX_TTS_TEXT_LENGTH, { error: `must be at most ${MAX_TTS_TEXT_LENGTH} characters` })
    .meta({
      description:
        "Plain text. A professional voice also takes <break time='0.5s'/> pauses (seconds or milliseconds, at most 5 s each); other SSML is refused.",
    }),
  model: z.enum(TTS_MODELS).optional().meta({
    description: '`service-voice-1` (default) or `service-voice-1-turbo` (instant voices, lower latency)',
  }),
  language: nullable(
    z
      .string()
      .trim()
      .min(1, { error: 'must not be empty' })
      .max(35, { error: 'must be at most 35 characters' })
      .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, { error: 'must be a language code such as en or en-US' }),
  ).meta({ description: "Language of `text` (`en`, `en-US`); default: the voice's language" }),
  expressiveness_boost: nullable(range(0, 1)).meta({
    description: 'Instant voices: 1 (default) keeps the intonation of the voice, 0 flattens it to half',
  }),
  seed: nullable(
    z
      .number({ error: 'must be an integer from 0 to 4294967295' })
      .int({ error: 'must be an integer from 0 to 4294967295' })
      .min(0, { error: 'must be an integer from 0 to 4294967295' })
      .max(4_294_967_295, { error: 'must be an integer from 0 to 4294967295' }),
  ).meta({ description: 'Professional voices: accepted; the speech engines are deterministic' }),
  speed: nullable(range(TTS_SPEED.min, TTS_SPEED.max)).meta({
    description: "Professional voices: multiplies the voice's pace",
  }),
  pitch_shift: nullable(range(TTS_PITCH_SHIFT.min, TTS_PITCH_SHIFT.max)).meta({
    description: 'Professional voices: semitones up or down',
  }),
  pitch_variance: nullable(range(TTS_PITCH_VARIANCE.min, TTS_PITCH_VARIANCE.max)).meta({
    description: "Professional voices: multiplies the voice's intonation range; 1 keeps it",
  }),
});
export type TtsBody = z.output<typeof ttsBody>;

/** Options only one kind of voice takes, by the field's name. */
const PROFESSIONAL_ONLY = ['seed', 'speed', 'pitch_shift', 'pitch_variance'] as const;
const INSTANT_ONLY = ['expressiveness_boost'] as const;

/** What to speak and how, once the voice's mode is known. */
export interface TtsRequestPlan {
  model: TtsModel;
  parts: TextPart[];
  /** Multiplies the voice's own speed. */
  speed: number;
  /** Semitones added to the voice's own pitch. */
  pitchShift: number;
  /** Multiplies the voice's intonation range. */
  intonation: number;
  /** The request field that set `intonation` (an engine that cannot change it is refused on it). */
  intonationField: 'pitch_variance' | 'expressiveness_boost';
}

/**
 * Applies the rules that depend on the voice's mode to a validated body.
 * @throws InvalidParameterError naming the field a voice of `mode` does not take
 */
export function planTtsRequest(body: TtsBody, mode: ModelVoiceMode): TtsRequestPlan {
  const model = body.model ?? DEFAULT_TTS_MODEL;
  if (mode === 'professional') {
    if (model === 'service-voice-1-turbo') {
      throw new InvalidParameterError(
        '`model`: service-voice-1-turbo speaks instant voices only; professional voices use service-voice-1.',
        'model',
      );
    }
    for (const field of INSTANT_ONLY) {
      if (body[field] !== undefined) {
        throw new InvalidParameterError(
          `\`${field}\` applies to instant voices only; omit it for a professional voice.`,
          field,
        );
      }
    }
  } else {
    for (const field of PROFESSIONAL_ONLY) {
      if (body[field] !== undefined) {
        throw new InvalidParameterError(
          `\`${field}\` applies to professional voices only; omit it for an instant voice.`,
          field,
        );
      }
    }
  }
  const parts = parseTtsText(body.text, mode);
  return mode === 'professional'
    ? {
        model,
        parts,
        speed: body.speed ?? 1,
        pitchShift: body.pitch_shift ?? 0,
        intonation: body.pitch_variance ?? 1,
        intonationField: 'pitch_variance',
      }
    : {
        model,
        parts,
        speed: 1,
        pitchShift: 0,
        // 1 (the default) is the voice's own intonation; 0 halves its range.
        intonation: 0.5 + 0.5 * (body.expressiveness_boost ?? 1),
        intonationField: 'expressiveness_boost',
      };
}
