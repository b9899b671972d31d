/**
 * The avatar look job (docs/architecture.md, "Jobs"): `state-machines/avatar-training.asl.json` runs
 * one step, Train (`avatar-training.ts`, in the media container on AWS), and the framework's failure
 * step from its Catch. Every look of `POST /v3/avatars` and `POST /v3/avatars/looks` is one run: it is
 * created `processing` with its credits reserved and ends `completed` (charged) with what makes it
 * talk, or `failed` (refunded) with a reason. Either way the picture or footage it was made from is
 * deleted, unless it is one of the workspace's assets.
 *
 * Events follow the hosted catalogue: photo avatars `photo_avatar_train.*`, prompt avatars
 * `photo_avatar_generation.*`, look packs `photo_avatar_look.*`, digital twins `instant_avatar.*`.
 */
import { z } from 'zod';
import { reservationOf } from '../billing/credits.js';
import { GRANTS } from '../core/grants.js';
import type { EventType } from '../events/event-types.js';
import { defineJob, outcomeByStatus, refundedJobWording } from '../jobs/job-definition.js';
import { TASK_PACKAGING } from '../jobs/task-deployment.js';
import { mediaKeys } from '../media/media-keys.js';
import { deleteMediaObject, deleteMediaPrefix } from '../media/media-store.js';
import {
  type AvatarLookRecord,
  avatarLookKey,
  failLookRecord,
  getLookRecord,
  LOOK_ORIGINS,
  LOOK_STATUS,
  type LookOrigin,
  updateLookRecord,
} from './avatar-records.js';

export const AVATAR_FAILURE = {
  /** The picture or footage cannot be read as what it should be. */
  invalidMedia: 'invalid_media',
  /** No face, several faces, a face too small or cut off; a footage without a steady stretch. */
  noFace: 'no_face',
  multipleFaces: 'multiple_faces',
  faceTooSmall: 'face_too_small',
  faceCutOff: 'face_cut_off',
  tooMuchMotion: 'too_much_motion',
  tooShort: 'too_short',
  /** The look a look pack varies was deleted or failed meanwhile. */
  referenceUnavailable: 'reference_unavailable',
  /** The vision models, ffmpeg or the image model could not run. */
  engineUnavailable: 'engine_unavailable',
  timeout: 'training_timeout',
  internalError: 'internal_error',
} as const;

export const lookRef = z.object({ workspace_id: z.string().min(1), look_id: z.string().min(1) });
export type LookRef = z.infer<typeof lookRef>;

const EVENTS: Readonly<Record<LookOrigin, { success: EventType; failure: EventType }>> = {
  [LOOK_ORIGINS.photo]: { success: 'photo_avatar_train.success', failure: 'photo_avatar_train.fail' },
  [LOOK_ORIGINS.prompt]: {
    success: 'photo_avatar_generation.success',
    failure: 'photo_avatar_generation.fail',
  },
  [LOOK_ORIGINS.lookPack]: { success: 'photo_avatar_look.success', failure: 'photo_avatar_look.fail' },
  [LOOK_ORIGINS.digitalTwin]: { success: 'instant_avatar.success', failure: 'instant_avatar.fail' },
};

const eventData = (look: AvatarLookRecord) => ({
  avatar_id: look.look_id,
  avatar_group_id: look.group_id,
  avatar_type: look.avatar_type,
  name: look.name,
  status: look.status,
  ...(look.status === LOOK_STATUS.failed
    ? { error: { code: look.failure_code, message: look.failure_message } }
    : {}),
});

/**
 * Deletes an ended look's source (unless it is an asset of the workspace) and forgets it. Run after the
 * look's terminal write, and again by a restarted step, so a crash in between leaves nothing.
 */
async function dropSource(look: AvatarLookRecord): Promise<void> {
  if (!look.source_key && look.reference_keys.length === 0) return;
  if (look.source_owned) {
    await Promise.all(
      [look.source_key, ...look.reference_keys]
        .filter((key): key is string => key !== null)
        .map((key) => deleteMediaObject(key)),
    );
  }
  await updateLookRecord(look.workspace_id, look.look_id, { source_key: null, reference_keys: [] });
}

export const avatarTrainingJob = defineJob({
  name: 'avatar-training',
  taskPrefix: 'AvatarTraining',
  ref: lookRef,
  executionName: (ref) => ref.look_id,
  refOf: (look: AvatarLookRecord) => ({ workspace_id: look.workspace_id, look_id: look.look_id }),
  stepsModule: 'avatars/avatar-training',
  steps: {
    Train: {
      description:
        'Avatar look: find the face (landmarks), make the mouth and blink sprites, cut the person out, draw a prompt look or choose a digital twin loop',
      input: lookRef,
      output: z.null(),
      deployment: {
        access: [GRANTS.jobItems, GRANTS.jobMedia, GRANTS.publishEvents, GRANTS.generateMedia],
        packaging: TASK_PACKAGING.mediaImage,
        memorySize: 3008,
        timeoutSeconds: 600,
      },
    },
  },
  record: {
    get: (ref) => getLookRecord(ref.workspace_id, ref.look_id, true),
    outcome: outcomeByStatus({ succeeded: LOOK_STATUS.completed, failed: LOOK_STATUS.failed }),
    fail: (look, failure) => failLookRecord(look, failure),
  },
  wording: refundedJobWording({
    codes: AVATAR_FAILURE,
    job: 'The avatar',
    again: 'Create the avatar again',
    startAgain: 'Create it again',
    report: 'the avatar id',
    faster: 'A shorter video or a smaller picture trains faster.',
  }),
  events: {
    entityId: (look) => look.look_id,
    success: {
      type: {
        byRecord: (look) => EVENTS[look.origin].success,
        all: Object.values(EVENTS).map((types) => types.success),
      },
      data: eventData,
    },
    failure: {
      type: {
        byRecord: (look) => EVENTS[look.origin].failure,
        all: Object.values(EVENTS).map((types) => types.failure),
      },
      data: eventData,
    },
  },
  billing: {
    key: (look) => avatarLookKey(look.workspace_id, look.look_id),
    reservation: (look) => reservationOf(look),
    charge: (look) => look.credits_reserved ?? 0,
  },
  release: dropSource,
  cleanUpGone: (ref) => deleteMediaPrefix(mediaKeys.avatarLook(ref.workspace_id, ref.look_id)),
  failureAccess: [GRANTS.jobMedia],
  concurrencyLimited: true,
});
