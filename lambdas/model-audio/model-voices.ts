/**
 * Audio voices of the Models API (`/v3/models/audio/voices`): a workspace's own voices, made from
 * recordings of a speaker, that `POST /v3/models/audio/tts` speaks with.
 *
 * - `instant`: one recording, no training and no clone slot; `PENDING` for the few seconds its
 *   recording is measured, then `ACTIVE` (or `FAILED` with a `failure_reason`).
 * - `professional`: one or more recordings of one speaker (at least `MIN_PROFESSIONAL_SPEECH_SECONDS`
 *   of speech in all), trained by the `model-voice-training` workflow: `PENDING` → `ACTIVE` or
 *   `FAILED`. Retraining (`mode: professional` with `voice_id`) trains it again on new recordings,
 *   keeping its name and language. Professional voices need the entitlement of
 *   `professionalCloningEnabled` (403 `forbidden` otherwise).
 *
 * Both kinds are a record plus an execution of the same workflow (docs/architecture.md, "Jobs"): measuring a
 * recording needs ffmpeg, which runs in the media container function on AWS, not in API functions.
 * What "training" is with the reference engines: see voice-training.ts.
 *
 * Creating and retraining (they start the training job) are in model-voice-creation.ts. Deleting
 * removes the record and its recordings; a tombstone kept for `TOMBSTONE_DAYS` makes a
 * repeated delete succeed again (as the reference says), while reads answer 404.
 */
import { z } from 'zod';
import type { Plan } from '../accounts/workspaces.js';
import { mediaInputSchema, type ResolvedMedia } from '../assets/media-inputs.js';
import { engineVoiceOf } from '../catalog/stock-voices.js';
import { config } from '../core/config.js';
import { ConflictError, NotFoundError } from '../core/errors.js';
import { nowSeconds } from '../core/ids.js';
import { deleteExistingItem, getItem, putItem, queryWorkspaceResources } from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import { limitParam, tokenParam, userText } from '../core/validation.js';
import { deleteMediaObject } from '../media/media-store.js';
import { catalogVoicesOfLanguage } from '../voices/voice-analysis.js';
import type { ModelVoiceMode } from './tts-text.js';

export const MODEL_VOICE_STATUS = { pending: 'PENDING', active: 'ACTIVE', failed: 'FAILED' } as const;
export type ModelVoiceStatus = (typeof MODEL_VOICE_STATUS)[keyof typeof MODEL_VOICE_STATUS];

/** The reference's failure reasons (uppercase in the API; lowercase as workflow failure codes). */
export const MODEL_VOICE_FAILURE_REASONS = [
  'INVALID_AUDIO',
  'INSUFFICIENT_AUDIO',
  'PREPROCESSING_FAILED',
  'TRAINING_FAILED',
  'DESIGN_FAILED',
  'ARTIFACT_VALIDATION_FAILED',
  'INTERNAL_ERROR',
] as const;
export type ModelVoiceFailureReason = (typeof MODEL_VOICE_FAILURE_REASONS)[number];

/** Plans whose workspaces may create and retrain professional voices (the Enterprise plans). */
export const PROFESSIONAL_VOICE_PLANS: readonly Plan[] = ['enterprise', 'business_plus'];

/** Most recordings one professional create or retrain takes. */
export const MAX_PROFESSIONAL_RECORDINGS = 20;

/** How long a deleted voice's tombstone answers repeated deletes, in days. */
export const TOMBSTONE_DAYS = 30;

/** The `similarity` values of an instant create, and how far each moves the voice to the speaker. */
export const SIMILARITY_LEVELS = { medium: 0.5, mel: 0.65, high: 0.8, extra_high: 0.9, max: 1 } as const;
export type Similarity = keyof typeof SIMILARITY_LEVELS;

/** A recording of the current training, in the media bucket. */
export interface ModelVoiceRecording {
  object_key: string;
  source: ResolvedMedia['source'];
  mime_type: string;
  size_bytes: number;
}

/** What training measured of the speaker (the combined measures of every recording). */
export interface ModelVoiceAnalysis {
  pitch_hz: number;
  pitch_low_hz: number;
  pitch_high_hz: number;
  speaking_rate: number;
  loudness_db: number;
  speech_seconds: number;
  voiced_seconds: number;
  likely_gender: 'male' | 'female';
}

/** How the speech engine speaks the voice (derived from the analysis by voice-training.ts). */
export interface ModelVoiceSettings {
  engine: string;
  engine_voice_id: string;
  speed: number;
  pitch: number;
  gender: 'male' | 'female';
  /** BCP-47 tag of the engine voice's language, e.g. `en-US`. */
  language_tag: string;
  /** The stock voice the engine voice belongs to. */
  base_voice_id: string;
}

export type ModelVoiceRecord = {
  pk: string;
  sk: string;
  voice_id: string;
  workspace_id: string;
  mode: ModelVoiceMode;
  name: string;
  /** Primary language code (`en`); null until known. */
  language: string | null;
  /** The language as given (`en-GB`): the accent the engine voice is chosen for. */
  language_tag: string | null;
  status: ModelVoiceStatus;
  failure_reason?: ModelVoiceFailureReason;
  failure_message?: string;
  created_at: number;
  updated_at: number;
  /** The training the record waits for; an older training's outcome is ignored. */
  training_id: string;
  /** Trainings started (the first one included). */
  trainings: number;
  trained_at?: number;
  /** Recordings of the training under way; emptied once it ends. */
  recordings: ModelVoiceRecording[];
  /** Instant: the speaker's gender as given (else measured). */
  gender: 'male' | 'female' | null;
  age: 'young' | 'old' | null;
  remove_background_noise: boolean;
  similarity: Similarity;
  analysis?: ModelVoiceAnalysis;
  settings?: ModelVoiceSettings;
};

export interface ModelVoiceView {
  voice_id: string;
  mode: ModelVoiceMode;
  name: string;
  language?: string;
  status: ModelVoiceStatus;
  created_at: number;
  failure_reason?: ModelVoiceFailureReason;
  failure_message?: string;
}

export function modelVoiceView(record: ModelVoiceRecord): ModelVoiceView {
  return {
    voice_id: record.voice_id,
    mode: record.mode,
    name: record.name,
    ...(record.language ? { language: record.language } : {}),
    status: record.status,
    created_at: record.created_at,
    ...(record.status === MODEL_VOICE_STATUS.failed
      ? {
          failure_reason: record.failure_reason ?? 'INTERNAL_ERROR',
          failure_message: record.failure_message ?? '',
        }
      : {}),
  };
}

export const modelVoiceKey = (workspaceId: string, voiceId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.modelVoice, voiceId);
export const modelVoiceTombstoneKey = (workspaceId: string, voiceId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.modelVoiceTombstone, voiceId);

/** What is left of a deleted voice for `TOMBSTONE_DAYS`. */
export type ModelVoiceTombstone = {
  pk: string;
  sk: string;
  voice_id: string;
  deleted_at: number;
  expires_at: number;
  /**
   * The training that was running when the voice was deleted (an instant voice being created): it may
   * still be reading its recordings, so it removes them itself when it finds the voice gone.
   */
  cancelled_training?: { training_id: string; recordings: ModelVoiceRecording[] };
};

export const modelVoiceNotFound = (voiceId: string, param: string | null = 'voice_id') =>
  new NotFoundError(`No audio voice ${voiceId} exists in this workspace.`, 'voice_not_found', param);

export function professionalCloningEnabled(plan: Plan): boolean {
  return PROFESSIONAL_VOICE_PLANS.includes(plan);
}

// ---------------------------------------------------------------------------------------------------
// Requests

const nullable = <T extends z.ZodType>(schema: T) =>
  schema.nullish().transform((value) => value ?? undefined);

const voiceName = userText(
  z
    .string()
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(256, { error: 'must be at most 256 characters' }),
);
const languageCode = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, { error: 'must be a language code such as en or en-US' });
const recordings = (max: number) =>
  z
    .array(mediaInputSchema, { error: 'must be an array of recordings' })
    .min(1, { error: 'must hold at least one recording' })
    .max(max, {
      error:
        max === 1
          ? 'must hold exactly one recording for an instant voice'
          : `must hold at most ${max} recordings`,
    });

export const createModelVoiceBody = z.discriminatedUnion(
  'mode',
  [
    z.strictObject({
      mode: z.literal('instant'),
      name: voiceName,
      audio: recordings(1),
      language: nullable(languageCode),
      gender: nullable(z.enum(['male', 'female'])),
      age: nullable(z.enum(['young', 'old'])),
      remove_background_noise: z.boolean().default(true),
      similarity: z
        .enum(Object.keys(SIMILARITY_LEVELS) as [Similarity, ...Similarity[]])
        .default('extra_high'),
    }),
    z.strictObject({
      mode: z.literal('professional'),
      audio: recordings(MAX_PROFESSIONAL_RECORDINGS),
      name: nullable(voiceName),
      language: nullable(languageCode),
      voice_id: nullable(z.string().min(1, { error: 'must not be empty' }).max(128)),
    }),
  ],
  { error: (issue) => (issue.code === 'invalid_union' ? 'must be instant or professional' : undefined) },
);
export type CreateModelVoiceBody = z.output<typeof createModelVoiceBody>;

export const modelVoicePath = z.strictObject({ voice_id: z.string().min(1).max(128) });
export const listModelVoicesQuery = z.strictObject({ limit: limitParam(100, 20), token: tokenParam });

// ---------------------------------------------------------------------------------------------------
// Reads

export async function getModelVoice(
  workspaceId: string,
  voiceId: string,
  consistent = false,
): Promise<ModelVoiceRecord | undefined> {
  return getItem<ModelVoiceRecord>(modelVoiceKey(workspaceId, voiceId), consistent);
}

export async function requireModelVoice(workspaceId: string, voiceId: string): Promise<ModelVoiceRecord> {
  const voice = await getModelVoice(workspaceId, voiceId);
  if (!voice) throw modelVoiceNotFound(voiceId);
  return voice;
}

export async function listModelVoices(workspaceId: string, limit: number, token?: string) {
  const page = await queryWorkspaceResources<ModelVoiceRecord>(
    workspaceId,
    RESOURCE_TYPES.modelVoice,
    'ModelAudioVoicesList',
    limit,
    token,
  );
  return { items: page.items.map(modelVoiceView), nextToken: page.nextToken };
}

// ---------------------------------------------------------------------------------------------------
// Create and retrain

/** The primary language code of a tag (`en-GB` → `en`). */
export const primaryLanguage = (tag: string) => (tag.split('-')[0] ?? tag).toLowerCase();

/** Whether the deployment's speech engine speaks `language` (a tag or a primary language). */
export function engineSpeaks(language: string, engine: string = config().speechEngine): boolean {
  return catalogVoicesOfLanguage(language).some((voice) => engineVoiceOf(voice, engine) !== undefined);
}

/** Removes the recordings this service stored (URLs and inline files); assets stay, they are the user's. */
export async function removeRecordings(recordings: readonly ModelVoiceRecording[]): Promise<void> {
  await Promise.all(
    recordings
      .filter((recording) => recording.source !== 'asset')
      .map((recording) => deleteMediaObject(recording.object_key)),
  );
}

// ---------------------------------------------------------------------------------------------------
// Delete

/**
 * Deletes a voice: true when it was deleted now or before (its tombstone), false when it never existed.
 * @throws ConflictError 409 while a professional voice is training
 */
export async function deleteModelVoice(workspaceId: string, voiceId: string): Promise<boolean> {
  const voice = await getModelVoice(workspaceId, voiceId, true);
  if (!voice) {
    const tombstone = await getItem<ModelVoiceTombstone>(modelVoiceTombstoneKey(workspaceId, voiceId), true);
    return tombstone !== undefined && tombstone.expires_at > nowSeconds();
  }
  const training = () =>
    new ConflictError(
      `Audio voice ${voiceId} is training; a professional voice can be deleted once its training has finished.`,
      'resource_not_ready',
      { param: 'voice_id' },
    );
  if (voice.mode === 'professional' && voice.status === MODEL_VOICE_STATUS.pending) throw training();
  // An instant voice being created is cancelled: its training finds no record, records nothing, and
  // removes the recordings it may still be reading.
  const cancelling = voice.status === MODEL_VOICE_STATUS.pending;
  const tombstone: ModelVoiceTombstone = {
    ...modelVoiceTombstoneKey(workspaceId, voiceId),
    voice_id: voiceId,
    deleted_at: nowSeconds(),
    expires_at: nowSeconds() + TOMBSTONE_DAYS * 86_400,
    ...(cancelling
      ? { cancelled_training: { training_id: voice.training_id, recordings: voice.recordings } }
      : {}),
  };
  await putItem(tombstone);
  const deleted = await deleteExistingItem(
    modelVoiceKey(workspaceId, voiceId),
    voice.mode === 'professional' ? { status: MODEL_VOICE_STATUS.pending } : {},
  );
  if (!deleted) {
    if (await getModelVoice(workspaceId, voiceId, true)) {
      await deleteExistingItem(modelVoiceTombstoneKey(workspaceId, voiceId));
      throw training();
    }
    return true; // deleted by a concurrent call
  }
  if (!cancelling) await removeRecordings(voice.recordings);
  return true;
}
