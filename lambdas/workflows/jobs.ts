/**
 * THE list of job types (docs/architecture.md, "Jobs"). Each definition brings its workflow, its task
 * functions (`task-functions.ts`), the ARN variable the functions that start it read, and its restart
 * after a local crash; adding a job type = its definition here + its ASL file.
 */
import { consentReviewJob } from '../avatars/avatar-consent-job.js';
import { avatarTrainingJob } from '../avatars/avatar-training-job.js';
import { backgroundRemovalJob } from '../background-removals/background-removal-job.js';
import { aiClippingJob } from '../clipping/ai-clipping-job.js';
import { fillerRemovalJob } from '../filler-removals/filler-removal-job.js';
import { hyperframesRenderJob } from '../hyperframes/hyperframes-job.js';
import type { AnyJobDefinition } from '../jobs/job-definition.js';
import { lipsyncJob } from '../lipsyncs/lipsync-job.js';
import { voiceTrainingJob } from '../model-audio/voice-training-job.js';
import { modelImageJob } from '../model-images/model-image-job.js';
import { modelVideoJob } from '../model-videos/model-video-job.js';
import { videoTranslationJob } from '../translations/video-translation-job.js';
import { videoAgentJob } from '../video-agents/video-agent-job.js';
import { videoRenderJob } from '../videos/video-render-job.js';
import { voiceCloneJob } from '../voices/voice-clone-job.js';

export const JOBS: readonly AnyJobDefinition[] = [
  videoRenderJob,
  voiceCloneJob,
  voiceTrainingJob,
  avatarTrainingJob,
  consentReviewJob,
  videoTranslationJob,
  fillerRemovalJob,
  backgroundRemovalJob,
  lipsyncJob,
  aiClippingJob,
  modelVideoJob,
  modelImageJob,
  videoAgentJob,
  hyperframesRenderJob,
];
