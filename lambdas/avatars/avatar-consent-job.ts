/**
 * The consent review job (docs/architecture.md, "Jobs"): `state-machines/avatar-consent-review.asl.json`
 * runs one step, Review (`avatar-consent-review.ts`, in the media container on AWS), and the
 * framework's failure step from its Catch. One run per submitted consent video (`review_id`); a newer
 * submission supersedes a review under way, whose writes then change nothing. The group's
 * `consent_status` is the job's status: `pending` while it runs, `approved` (succeeded) or `rejected`
 * with the reason (failed). It costs nothing and has no webhook events: the group's GET says it.
 */
import { z } from 'zod';
import { GRANTS } from '../core/grants.js';
import { nowSeconds } from '../core/ids.js';
import { defineJob, JOB_OUTCOME } from '../jobs/job-definition.js';
import { TASK_PACKAGING } from '../jobs/task-deployment.js';
import {
  type AvatarGroupRecord,
  CONSENT_STATUS,
  getGroupRecord,
  updateGroupRecord,
} from './avatar-records.js';

export const CONSENT_FAILURE = {
  /** The consent video shows no face, or not the face of the twin. */
  faceMismatch: 'consent_face_mismatch',
  /** Nobody speaks in it. */
  noSpeech: 'consent_no_speech',
  invalidMedia: 'invalid_media',
  engineUnavailable: 'engine_unavailable',
  timeout: 'review_timeout',
  internalError: 'internal_error',
} as const;

export const reviewRef = z.object({
  workspace_id: z.string().min(1),
  group_id: z.string().min(1),
  review_id: z.string().min(1),
});
export type ReviewRef = z.infer<typeof reviewRef>;

/** The group while `ref` is its current review; undefined once deleted or superseded. */
async function groupUnderReview(ref: ReviewRef): Promise<AvatarGroupRecord | undefined> {
  const group = await getGroupRecord(ref.workspace_id, ref.group_id, true);
  return group?.consent_review_id === ref.review_id ? group : undefined;
}

/** Ends the review (conditional on it being this review, still pending). */
export function endReview(
  group: AvatarGroupRecord,
  outcome:
    | { status: typeof CONSENT_STATUS.approved }
    | { status: typeof CONSENT_STATUS.rejected; reason: string },
): Promise<AvatarGroupRecord | undefined> {
  return updateGroupRecord(
    group.workspace_id,
    group.group_id,
    {
      consent_status: outcome.status,
      consent_reason: outcome.status === CONSENT_STATUS.rejected ? outcome.reason : null,
      consent_reviewed_at: nowSeconds(),
    },
    { consent_review_id: group.consent_review_id, consent_status: CONSENT_STATUS.pending },
  );
}

export const consentReviewJob = defineJob({
  name: 'avatar-consent-review',
  taskPrefix: 'ConsentReview',
  ref: reviewRef,
  executionName: (ref) => ref.review_id,
  refOf: (group: AvatarGroupRecord) => ({
    workspace_id: group.workspace_id,
    group_id: group.group_id,
    review_id: group.consent_review_id ?? '',
  }),
  stepsModule: 'avatars/avatar-consent-review',
  steps: {
    Review: {
      description:
        "Avatar consent: check the consent video shows the twin's face (landmark geometry) and has speech, then approve or reject",
      input: reviewRef,
      output: z.null(),
      deployment: {
        // publishEvents: the framework's ending publishes a job's outcome event; this job has none, but
        // its code can reach the call, and the deploy preflight holds roles to what code can reach.
        access: [GRANTS.jobItems, GRANTS.jobMedia, GRANTS.publishEvents],
        packaging: TASK_PACKAGING.mediaImage,
        memorySize: 3008,
        timeoutSeconds: 300,
      },
    },
  },
  record: {
    get: groupUnderReview,
    outcome: (group) =>
      group.consent_status === CONSENT_STATUS.approved
        ? JOB_OUTCOME.succeeded
        : group.consent_status === CONSENT_STATUS.pending
          ? JOB_OUTCOME.running
          : JOB_OUTCOME.failed,
    fail: (group, failure) => endReview(group, { status: CONSENT_STATUS.rejected, reason: failure.message }),
  },
  wording: {
    timeout: (step) => ({
      code: CONSENT_FAILURE.timeout,
      message: `The consent review (${step}) took longer than allowed; submit the consent video again (a shorter one reviews faster).`,
    }),
    fault: (step) => ({
      code: CONSENT_FAILURE.internalError,
      message: `The consent review (${step}) failed unexpectedly; submit the consent video again. If it keeps failing, report the group id.`,
    }),
    notStarted: {
      code: CONSENT_FAILURE.internalError,
      message: 'The consent review could not be started; submit the consent video again.',
    },
  },
  // The failure step is one function for every job, whose `release`s delete media.
  failureAccess: [GRANTS.jobMedia],
  concurrencyLimited: false,
});
