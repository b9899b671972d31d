/**
 * Voice clones (`POST /v3/voices/clone`): a record plus a Step Functions execution
 * (`state-machines/voice-clone.asl.json`), as every job (ARCHITECTURE.md section 5).
 *
 * Create: check the language and the clone slots, fetch the recording (a media input: URL, asset or
 * base64, audio or video), write the clone `processing` while taking a slot (one transaction), start
 * the workflow (execution name = voice id), answer 202 with `voice_clone_id`.
 *
 * Build (one step, the media container on AWS): measure the recording (voice-analysis.ts), derive for
 * each speech engine the voice and settings nearest the speaker, speak a preview, then `complete`;
 * `voice_clone.success` is published. A recording that cannot be measured fails the clone with
 * `invalid_audio` and the analysis's reason; any failure gives the slot back and publishes
 * `voice_clone.fail`. The recording itself is deleted once the clone has ended (the clone keeps only
 * the measures), unless it is one of the workspace's assets.
 *
 * Every step reads the clone fresh and writes with conditions on its status, so a retried or restarted
 * step repeats nothing; a clone deleted meanwhile ends the workflow quietly.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NoSuchKey } from '@aws-sdk/client-s3';
import { ExecutionAlreadyExists, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { getWorkspace } from '../accounts/workspaces.js';
import { availableStockVoices, findStockVoice } from '../catalog/stock-voices.js';
import { sfnClient } from '../core/aws-clients.js';
import { config, SPEECH_ENGINE_NAMES } from '../core/config.js';
import { InvalidParameterError, PaymentRequiredError } from '../core/errors.js';
import { newId, nowSeconds } from '../core/ids.js';
import { logger } from '../core/observability.js';
import { getItem, updateExistingItem } from '../core/repository.js';
import { speechEngine } from '../engines/speech/index.js';
import { publishEvent } from '../events/domain-events.js';
import { type MediaInput, resolveMediaInput } from '../media/media-inputs.js';
import { deleteMediaObject, readMediaStream } from '../media/media-store.js';
import { JobFailure, type JobFailureDetails } from '../workflows/job-failure.js';
import { storeVoicePreview } from './designed-voices.js';
import {
  analyseRecording,
  catalogVoicesOfLanguage,
  type DerivedVoice,
  deriveVoice,
  VoiceAnalysisError,
  VoiceDerivationError,
} from './voice-analysis.js';
import { cloneSlotLimit, cloneSlotsKey } from './voice-clone-slots.js';
import {
  completeCloneRecord,
  createCloneRecord,
  type EngineVoiceSettings,
  failCloneRecord,
  getVoiceRecord,
  VOICE_KINDS,
  VOICE_STATUS,
  type VoiceRecord,
  voiceKey,
} from './workspace-voices.js';

export const CLONE_FAILURE = {
  /** The recording cannot be measured: not audio, silent, too short, too quiet, not speech. */
  invalidAudio: 'invalid_audio',
  /** ffmpeg or the speech engine could not run. */
  engineUnavailable: 'engine_unavailable',
  internalError: 'internal_error',
} as const;

/** Largest recording a clone takes. */
export const MAX_CLONE_RECORDING_BYTES = 50 * 1024 * 1024;
/** The language of a clone when the request names none: the service cannot recognise languages. */
export const DEFAULT_CLONE_LANGUAGE = 'en-US';

export interface CloneRequest {
  audio: MediaInput;
  voice_name: string;
  language?: string | undefined;
  remove_background_noise: boolean;
}

/** The catalog language a request's `language` names on this deployment's engine, or a 400. */
function cloneLanguage(language: string | undefined): string {
  if (language === undefined) return DEFAULT_CLONE_LANGUAGE;
  const engine = config().speechEngine;
  const voice = catalogVoicesOfLanguage(language).find((candidate) =>
    Object.hasOwn(candidate.engineVoices, engine),
  );
  if (!voice) {
    const languages = [...new Set(availableStockVoices().map((candidate) => candidate.language))].join(', ');
    throw new InvalidParameterError(
      `There is no voice of the language ${language} on this deployment to clone into; use one of ${languages}.`,
      'language',
    );
  }
  return voice.language;
}

async function slotsInUse(workspaceId: string): Promise<number> {
  const item = await getItem<{ pk: string; sk: string; used?: number }>(cloneSlotsKey(workspaceId), true);
  return item?.used ?? 0;
}

/** Starts the clone workflow; the execution is named after the clone, so a second start does nothing. */
async function startCloneWorkflow(record: VoiceRecord): Promise<void> {
  try {
    await sfnClient().send(
      new StartExecutionCommand({
        stateMachineArn: config().voiceCloneStateMachineArn,
        name: record.voice_id,
        input: JSON.stringify({ workspace_id: record.workspace_id, voice_id: record.voice_id }),
      }),
    );
  } catch (error) {
    if (!(error instanceof ExecutionAlreadyExists)) throw error;
  }
}

/**
 * Creates a clone and starts its workflow.
 * @throws ServiceError 400 (`audio`, `language`), 402 `plan_upgrade_required` when every slot is in use
 */
export async function createVoiceClone(workspaceId: string, request: CloneRequest): Promise<VoiceRecord> {
  const workspace = await getWorkspace(workspaceId, true);
  if (!workspace) throw new Error(`Workspace ${workspaceId} vanished`);
  const language = cloneLanguage(request.language);
  // Refuse before fetching the recording when the slots are obviously full (the write checks again).
  const limit = cloneSlotLimit(workspace.plan);
  if ((await slotsInUse(workspaceId)) >= limit) {
    throw new PaymentRequiredError(
      `All ${limit} voice clone slots of the ${workspace.plan} plan are in use; delete a cloned voice (DELETE /v3/voices/{voice_id}) or move to a larger plan.`,
      'plan_upgrade_required',
    );
  }
  const media = await resolveMediaInput(workspaceId, request.audio, {
    param: 'audio',
    accept: ['audio', 'video'],
    maxBytes: MAX_CLONE_RECORDING_BYTES,
  });
  const sourceOwned = media.source !== 'asset';
  const record: VoiceRecord = {
    voice_id: newId(),
    workspace_id: workspaceId,
    kind: VOICE_KINDS.clone,
    name: request.voice_name,
    language,
    gender: null,
    status: VOICE_STATUS.processing,
    created_at: nowSeconds(),
    base_voice_id: null,
    engine_voices: {},
    preview_key: null,
    failure_code: null,
    failure_message: null,
    holds_slot: true,
    source_key: media.objectKey,
    source_owned: sourceOwned,
    remove_background_noise: request.remove_background_noise,
    measures: null,
  };
  try {
    await createCloneRecord(record, workspace.plan);
  } catch (error) {
    if (sourceOwned) await deleteMediaObject(media.objectKey);
    throw error;
  }
  try {
    await startCloneWorkflow(record);
  } catch (error) {
    // Without a workflow the clone would stay processing forever: end it now and free its slot.
    logger.error('Could not start a voice clone', { voiceId: record.voice_id, error });
    await recordCloneFailure(
      { workspace_id: workspaceId, voice_id: record.voice_id },
      {
        code: CLONE_FAILURE.internalError,
        message: 'The clone could not be started; its slot is free again. Create the clone again.',
      },
    );
    throw error;
  }
  return record;
}

// ---------------------------------------------------------------------------------------------
// Workflow steps

export interface CloneRef {
  workspace_id: string;
  voice_id: string;
}

/**
 * Deletes an ended clone's recording (unless it is an asset of the workspace) and forgets it. Run after
 * the clone's terminal write, and again by a restarted step, so a crash in between leaves nothing.
 */
async function dropSource(record: VoiceRecord): Promise<void> {
  if (!record.source_key) return;
  if (record.source_owned) await deleteMediaObject(record.source_key);
  await updateExistingItem(voiceKey(record.workspace_id, record.voice_id), { source_key: null });
}

/** Publishes the terminal event of a clone that has ended (again, with the same id, after a restart). */
async function announceCloneOutcome(record: VoiceRecord): Promise<void> {
  if (record.status === VOICE_STATUS.complete) {
    await publishEvent({
      event_id: `voice_clone.success:${record.voice_id}`,
      event_type: 'voice_clone.success',
      workspace_id: record.workspace_id,
      entity_id: record.voice_id,
      event_data: {
        voice_clone_id: record.voice_id,
        voice_id: record.voice_id,
        name: record.name,
        language: record.language,
        gender: record.gender,
      },
    });
  } else if (record.status === VOICE_STATUS.failed) {
    await publishEvent({
      event_id: `voice_clone.fail:${record.voice_id}`,
      event_type: 'voice_clone.fail',
      workspace_id: record.workspace_id,
      entity_id: record.voice_id,
      event_data: {
        voice_clone_id: record.voice_id,
        voice_id: record.voice_id,
        failure_code: record.failure_code,
        failure_message: record.failure_message,
      },
    });
  }
}

/** What a clone's preview says: its base voice's introduction, with the clone's name in it. */
function previewTextOf(derived: DerivedVoice, cloneName: string): string {
  const base = findStockVoice(derived.baseVoiceId);
  if (!base) return cloneName;
  return base.previewText.includes(base.name)
    ? base.previewText.replace(base.name, cloneName)
    : base.previewText;
}

/** For every speech engine that has a voice of the language: its voice and settings for the speaker. */
function engineVoicesFor(
  analysis: Awaited<ReturnType<typeof analyseRecording>>,
  language: string,
): Record<string, DerivedVoice> {
  const derived: Record<string, DerivedVoice> = {};
  for (const engine of SPEECH_ENGINE_NAMES) {
    try {
      derived[engine] = deriveVoice(analysis, { language, engine });
    } catch (error) {
      if (!(error instanceof VoiceDerivationError)) throw error;
    }
  }
  return derived;
}

export async function buildVoiceClone(ref: CloneRef): Promise<{ status: string }> {
  const record = await getVoiceRecord(ref.workspace_id, ref.voice_id, true);
  if (!record) return { status: 'deleted' };
  if (record.status !== VOICE_STATUS.processing) {
    // A workflow started again after a crash: finish what the crash cut off.
    await dropSource(record);
    await announceCloneOutcome(record);
    return { status: record.status };
  }
  if (!record.source_key) throw new JobFailure(CLONE_FAILURE.internalError, 'The clone has no recording.');

  await mkdir(config().mediaWorkDir, { recursive: true });
  const workDir = await mkdtemp(join(config().mediaWorkDir, `voice-clone-${record.voice_id}-`));
  try {
    const recording = join(workDir, 'recording');
    try {
      await writeFile(recording, await readMediaStream(record.source_key));
    } catch (error) {
      if (error instanceof NoSuchKey || (error as Error).name === 'NoSuchKey') {
        throw new JobFailure(
          CLONE_FAILURE.invalidAudio,
          'The recording is gone (its asset was deleted before the clone started); clone again with the recording.',
        );
      }
      throw error;
    }
    let analysis: Awaited<ReturnType<typeof analyseRecording>>;
    try {
      analysis = await analyseRecording(recording, {
        denoise: record.remove_background_noise ?? true,
        workDir,
      });
    } catch (error) {
      if (error instanceof VoiceAnalysisError) {
        throw new JobFailure(
          CLONE_FAILURE.engineUnavailable,
          `The recording could not be analysed: ${error.message}`,
        );
      }
      throw error;
    }
    if (!analysis.usable) {
      throw new JobFailure(
        CLONE_FAILURE.invalidAudio,
        analysis.reason ?? 'The recording cannot be measured.',
      );
    }
    const derived = engineVoicesFor(analysis, record.language);
    const here = derived[speechEngine().name];
    if (!here) {
      throw new JobFailure(
        CLONE_FAILURE.engineUnavailable,
        `This deployment's speech engine has no voice of ${record.language} to clone into.`,
      );
    }
    const engineVoices: Record<string, EngineVoiceSettings> = Object.fromEntries(
      Object.entries(derived).map(([engine, voice]) => [
        engine,
        { voice_id: voice.engineVoiceId, speed: voice.speed, pitch: voice.pitch },
      ]),
    );
    const complete: VoiceRecord = {
      ...record,
      gender: here.gender,
      language: here.language,
      base_voice_id: here.baseVoiceId,
      engine_voices: engineVoices,
    };
    const previewKey = await storeVoicePreview(complete, previewTextOf(here, record.name));
    const stored = await completeCloneRecord(ref.workspace_id, ref.voice_id, {
      gender: here.gender,
      language: here.language,
      base_voice_id: here.baseVoiceId,
      engine_voices: engineVoices,
      preview_key: previewKey,
      measures: {
        pitch_hz: analysis.pitchHz,
        speaking_rate: analysis.speakingRate,
        loudness_db: analysis.loudnessDb,
        duration_seconds: analysis.durationSeconds,
        speech_seconds: analysis.speechSeconds,
      },
    });
    if (!stored) {
      // Deleted (or ended) while it was being built: leave nothing behind.
      if (previewKey && !(await getItem(voiceKey(ref.workspace_id, ref.voice_id), true))) {
        await deleteMediaObject(previewKey);
      }
      return { status: 'deleted' };
    }
    await dropSource(stored);
    await announceCloneOutcome(stored);
    return { status: stored.status };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** The workflow's failure path (and a create that could not start it): failed, slot back, event. */
export async function recordCloneFailure(ref: CloneRef, failure: JobFailureDetails): Promise<void> {
  await failCloneRecord(ref.workspace_id, ref.voice_id, failure);
  // Failed now, or before (a repeated step), or deleted meanwhile (nothing left to do).
  const ended = await getVoiceRecord(ref.workspace_id, ref.voice_id, true);
  if (!ended || ended.status === VOICE_STATUS.processing) return;
  await dropSource(ended);
  await announceCloneOutcome(ended);
}
