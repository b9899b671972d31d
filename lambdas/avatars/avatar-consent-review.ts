/**
 * The consent review job's step (avatar-consent-job.ts): Review, in the media container on AWS. A
 * consent video is approved when someone speaks in it (voice-analysis.ts measures the speech) and the
 * face in it is the digital twin's: the face of the twin's footage and the faces in frames of the
 * consent video are compared by their landmark geometry (vision/face-similarity.ts). Anything else
 * rejects it with the reason, through the failure step.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { config } from '../core/config.js';
import { JobFailure } from '../core/errors.js';
import { bestFaceInVideo, SAME_FACE_THRESHOLD } from '../engines/vision/face-similarity.js';
import { finishJob, resumeJob } from '../jobs/job-lifecycle.js';
import { jobStep } from '../jobs/job-steps.js';
import { downloadMediaObject, readMediaObject } from '../media/media-store.js';
import { analyseRecording } from '../voices/voice-analysis.js';
import { CONSENT_FAILURE, consentReviewJob, endReview, type ReviewRef } from './avatar-consent-job.js';
import { CONSENT_STATUS, getLookRecord } from './avatar-records.js';

async function review(ref: ReviewRef): Promise<null> {
  const group = await resumeJob(consentReviewJob, ref);
  if (!group?.consent_video_key) return null;
  const twin = group.consent_reference_look_id
    ? await getLookRecord(ref.workspace_id, group.consent_reference_look_id, true)
    : undefined;
  if (!twin?.preview_key) {
    throw new JobFailure(
      CONSENT_FAILURE.faceMismatch,
      'The look of the digital twin to compare the consent video with was deleted; submit the consent again.',
    );
  }
  await mkdir(config().mediaWorkDir, { recursive: true });
  const workDir = await mkdtemp(join(config().mediaWorkDir, `consent-${ref.review_id}-`));
  try {
    const videoPath = join(workDir, 'consent');
    await downloadMediaObject(group.consent_video_key, videoPath);
    const speech = await analyseRecording(videoPath, { workDir });
    if (!speech.usable) {
      throw new JobFailure(
        CONSENT_FAILURE.noSpeech,
        `Nobody can be heard giving consent in the video: ${speech.reason ?? 'no speech'} Record the person saying the consent statement aloud.`,
      );
    }
    const match = await bestFaceInVideo(videoPath, await readMediaObject(twin.preview_key));
    if (!match.sameFace) {
      const why =
        match.reason?.picture === 'a'
          ? `${match.reason.code === 'no_face' ? 'no face' : 'several faces'} in its frames`
          : `face similarity ${match.similarity.toFixed(2)}, below ${SAME_FACE_THRESHOLD}`;
      throw new JobFailure(
        CONSENT_FAILURE.faceMismatch,
        `The consent video does not show the person of the digital twin (${why}). The person in the twin's footage must record the consent.`,
      );
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  const approved = await endReview(group, { status: CONSENT_STATUS.approved });
  if (approved) await finishJob(consentReviewJob, approved);
  return null;
}

export const Review = /* @__PURE__ */ jobStep(consentReviewJob, 'Review', review);
