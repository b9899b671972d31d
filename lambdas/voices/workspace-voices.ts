/**
 * Voices a workspace owns: designed (`POST /v3/voices`) and cloned (`POST /v3/voices/clone`). Each is
 * an item `WS#<workspace>` / `VOICE#<voice_id>`, also indexed (gsi1) by creation time so the list
 * shows the newest first. A voice is a stock voice's language plus, per speech engine, the engine
 * voice and the speed and pitch that make it sound as designed or measured (`engine_voices`), so it
 * speaks on whichever engine the deployment uses.
 *
 * Clones hold one of the workspace's clone slots (`voice-clone-slots.ts`) from their creation until
 * they fail or are deleted; the slot moves in the same DynamoDB transaction as the voice's item, so a
 * retried or concurrent step can neither lose nor double-count one.
 */
import type { Plan } from '../accounts/workspaces.js';
import type { PageSource } from '../catalog/catalog-pages.js';
import { findStockVoice } from '../catalog/stock-voices.js';
import { config } from '../core/config.js';
import { PaymentRequiredError } from '../core/errors.js';
import {
  deleteExistingItem,
  getItem,
  putNewItem,
  queryPage,
  transactWrite,
  updateExistingItem,
} from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import { cloneSlotLimit, cloneSlotsKey } from './voice-clone-slots.js';
import { languageMatches, type VoiceFilter } from './voice-filter.js';

export const VOICE_KINDS = { designed: 'designed', clone: 'clone' } as const;
export type VoiceKind = (typeof VOICE_KINDS)[keyof typeof VOICE_KINDS];

/** The reference's clone statuses (`GET /v3/voices/{voice_id}`); designed voices are born `complete`. */
export const VOICE_STATUS = { processing: 'processing', complete: 'complete', failed: 'failed' } as const;
export type VoiceStatus = (typeof VOICE_STATUS)[keyof typeof VOICE_STATUS];

/** How one speech engine speaks a voice. */
export interface EngineVoiceSettings {
  /** The engine's voice id (`SynthesisRequest.voiceId`). */
  voice_id: string;
  /** Speed multiplier, 0.5 to 2; a request's own speed multiplies it. */
  speed: number;
  /** Pitch offset, -50 to +50; a request's own pitch is added. */
  pitch: number;
}

/** What the analysis measured in a clone's recording (kept so the clone can be explained). */
export interface CloneMeasures {
  pitch_hz: number;
  speaking_rate: number;
  loudness_db: number;
  duration_seconds: number;
  speech_seconds: number;
}

export interface VoiceRecord {
  voice_id: string;
  workspace_id: string;
  kind: VoiceKind;
  name: string;
  /** BCP-47 tag; for a clone being processed, the language asked for (or the default). */
  language: string;
  /** Null for a clone until its recording has been measured. */
  gender: 'male' | 'female' | null;
  status: VoiceStatus;
  /** Unix seconds. */
  created_at: number;
  /** The stock voice the voice is derived from. */
  base_voice_id: string | null;
  /** Per speech engine name (`espeak`, `polly`); empty until a clone is complete. */
  engine_voices: Record<string, EngineVoiceSettings>;
  preview_key: string | null;
  failure_code: string | null;
  failure_message: string | null;
  /** Whether the voice holds a clone slot now. */
  holds_slot: boolean;
  /** Designed voices: the style applied to the stock voice. */
  design_style?: string | null;
  /** Clones: the recording (deleted once measured), whether it is the clone's own copy, how to read it. */
  source_key?: string | null;
  source_owned?: boolean;
  remove_background_noise?: boolean;
  measures?: CloneMeasures | null;
}

type VoiceItem = VoiceRecord & { pk: string; sk: string; gsi1pk: string; gsi1sk: string };

export const voiceKey = (workspaceId: string, voiceId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.voice, voiceId);

const listPartition = (workspaceId: string) => `${keys.workspacePartition(workspaceId)}#VOICES`;

function voiceItem(record: VoiceRecord): VoiceItem & Record<string, unknown> {
  return {
    ...voiceKey(record.workspace_id, record.voice_id),
    gsi1pk: listPartition(record.workspace_id),
    // Creation time first: the index lists the newest voices first.
    gsi1sk: `${String(Date.now()).padStart(15, '0')}#${record.voice_id}`,
    ...record,
  };
}

function toRecord(item: VoiceItem): VoiceRecord {
  const { pk: _pk, sk: _sk, gsi1pk: _gsi1pk, gsi1sk: _gsi1sk, ...record } = item;
  return record;
}

/** Longest voice id a request may name (stock ids, designed ids and clone ids are all shorter). */
export const MAX_VOICE_ID_LENGTH = 128;

export async function getVoiceRecord(
  workspaceId: string,
  voiceId: string,
  consistent = false,
): Promise<VoiceRecord | undefined> {
  if (voiceId.length === 0 || voiceId.length > MAX_VOICE_ID_LENGTH) return undefined;
  const item = await getItem<VoiceItem>(voiceKey(workspaceId, voiceId), consistent);
  return item ? toRecord(item) : undefined;
}

/** Writes a designed voice unless the workspace has it already; returns the stored one either way. */
export async function putDesignedVoice(
  record: VoiceRecord,
): Promise<{ voice: VoiceRecord; created: boolean }> {
  if (await putNewItem(voiceItem(record))) return { voice: record, created: true };
  const existing = await getVoiceRecord(record.workspace_id, record.voice_id, true);
  if (existing) return { voice: existing, created: false };
  // Deleted between the two calls: write it again.
  return putDesignedVoice(record);
}

/** Sets a designed voice's preview once it is stored. */
export async function setVoicePreview(
  workspaceId: string,
  voiceId: string,
  previewKey: string,
): Promise<boolean> {
  return (
    (await updateExistingItem(voiceKey(workspaceId, voiceId), { preview_key: previewKey })) !== undefined
  );
}

/**
 * Writes a new clone (status `processing`) and takes one of the workspace's clone slots, in one
 * transaction. @throws PaymentRequiredError 402 `plan_upgrade_required` when every slot is in use
 */
export async function createCloneRecord(record: VoiceRecord, plan: Plan): Promise<void> {
  const limit = cloneSlotLimit(plan);
  const refused = await transactWrite([
    {
      Put: {
        TableName: config().tableName,
        Item: voiceItem({ ...record, holds_slot: true }),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Update: {
        TableName: config().tableName,
        Key: cloneSlotsKey(record.workspace_id),
        UpdateExpression: 'ADD used :one',
        ConditionExpression: 'attribute_not_exists(used) OR used < :limit',
        ExpressionAttributeValues: { ':one': 1, ':limit': limit },
      },
    },
  ]);
  if (refused === undefined) return;
  if (refused === 1) {
    throw new PaymentRequiredError(
      `All ${limit} voice clone slots of the ${plan} plan are in use; delete a cloned voice (DELETE /v3/voices/{voice_id}) or move to a larger plan.`,
      'plan_upgrade_required',
    );
  }
  throw new Error(`Voice id collision: ${record.voice_id}`);
}

/**
 * Moves a clone from `processing` to `complete` with what makes it speak. False when the clone is no
 * longer processing (deleted meanwhile, or a repeated step).
 */
export async function completeCloneRecord(
  workspaceId: string,
  voiceId: string,
  fields: Pick<
    VoiceRecord,
    'gender' | 'language' | 'base_voice_id' | 'engine_voices' | 'preview_key' | 'measures'
  >,
): Promise<VoiceRecord | undefined> {
  const item = await updateExistingItem<VoiceItem>(
    voiceKey(workspaceId, voiceId),
    { ...fields, status: VOICE_STATUS.complete },
    [],
    { status: VOICE_STATUS.processing },
  );
  return item ? toRecord(item) : undefined;
}

/**
 * Moves a clone from `processing` to `failed` with a reason and gives its slot back, in one
 * transaction. False when it was not processing (deleted, or already ended: the step ran before).
 */
export async function failCloneRecord(
  workspaceId: string,
  voiceId: string,
  failure: { code: string; message: string },
): Promise<VoiceRecord | undefined> {
  for (;;) {
    const current = await getVoiceRecord(workspaceId, voiceId, true);
    if (current?.status !== VOICE_STATUS.processing) return undefined;
    const failed: VoiceRecord = {
      ...current,
      status: VOICE_STATUS.failed,
      failure_code: failure.code,
      failure_message: failure.message,
      holds_slot: false,
    };
    const refused = await transactWrite([
      {
        Update: {
          TableName: config().tableName,
          Key: voiceKey(workspaceId, voiceId),
          UpdateExpression:
            'SET #status = :failed, failure_code = :code, failure_message = :message, holds_slot = :false',
          ConditionExpression: '#status = :processing',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':failed': VOICE_STATUS.failed,
            ':processing': VOICE_STATUS.processing,
            ':code': failure.code,
            ':message': failure.message,
            ':false': false,
          },
        },
      },
      ...(current.holds_slot ? [releaseSlot(workspaceId)] : []),
    ]);
    if (refused === undefined) return failed;
    // Changed meanwhile: read again.
  }
}

function releaseSlot(workspaceId: string) {
  return {
    Update: {
      TableName: config().tableName,
      Key: cloneSlotsKey(workspaceId),
      UpdateExpression: 'ADD used :minusOne',
      ExpressionAttributeValues: { ':minusOne': -1 },
    },
  };
}

/**
 * Deletes a voice and, when it holds a clone slot, gives the slot back in the same transaction.
 * Returns the deleted record, or undefined when there was none.
 */
export async function deleteVoiceRecord(
  workspaceId: string,
  voiceId: string,
): Promise<VoiceRecord | undefined> {
  for (;;) {
    const current = await getVoiceRecord(workspaceId, voiceId, true);
    if (!current) return undefined;
    if (!current.holds_slot) {
      if (await deleteExistingItem(voiceKey(workspaceId, voiceId), { holds_slot: true })) return current;
      continue; // it took a slot meanwhile (cannot happen today) or vanished: read again
    }
    const refused = await transactWrite([
      {
        Delete: {
          TableName: config().tableName,
          Key: voiceKey(workspaceId, voiceId),
          ConditionExpression: 'holds_slot = :true',
          ExpressionAttributeValues: { ':true': true },
        },
      },
      releaseSlot(workspaceId),
    ]);
    if (refused === undefined) return current;
    // Failed (slot given back) or deleted meanwhile: read again.
  }
}

/** Whether an own voice of the list matches the filter (complete voices only: others cannot speak). */
function listed(record: VoiceRecord, filter: VoiceFilter): boolean {
  if (record.status !== VOICE_STATUS.complete) return false;
  if (filter.gender !== undefined && record.gender !== filter.gender) return false;
  if (filter.engine !== undefined && !Object.hasOwn(record.engine_voices, filter.engine)) return false;
  if (filter.language !== undefined) {
    const languageName = findStockVoice(record.base_voice_id ?? '')?.languageName ?? record.language;
    if (!languageMatches(filter.language, record.language, languageName)) return false;
  }
  return true;
}

/**
 * The workspace's own voices for `GET /v3/voices`: complete voices, newest first, filtered like the
 * stock ones. `view` makes each listed record the API's shape (with presigned previews).
 */
export function workspaceVoices<View>(
  workspaceId: string,
  filter: VoiceFilter,
  view: (record: VoiceRecord) => Promise<View>,
): PageSource<View> {
  return {
    async page(limit, token) {
      const page = await queryPage<VoiceItem>({
        partition: listPartition(workspaceId),
        index: 'gsi1',
        limit,
        token,
        binding: `${workspaceId}:VoiceList:private:${JSON.stringify([filter.language, filter.gender, filter.engine])}`,
        keep: (item) => listed(toRecord(item as unknown as VoiceItem), filter),
      });
      return {
        items: await Promise.all(page.items.map((item) => view(toRecord(item)))),
        nextToken: page.nextToken,
      };
    },
  };
}
