/**
 * THE list of Step Functions task functions and of the workflows that are not job workflows: the
 * CDK stack creates one Lambda function per entry (with exactly the access it names) and maps
 * `${TaskFunction_<Name>}` in the ASL files to it; the local stack resolves the same placeholders to
 * the same handler modules in process. Adding a task = one entry + one handler module.
 */
import { GRANTS, type Grant } from '../core/grants.js';

/**
 * How a task function is deployed: `zip` is the usual bundle; `media-image` is the container image
 * with ffmpeg, fonts and the speech engines (its node_modules do not fit Lambda's zip limit).
 */
export const TASK_PACKAGING = { zip: 'zip', mediaImage: 'media-image' } as const;
export type TaskPackaging = (typeof TASK_PACKAGING)[keyof typeof TASK_PACKAGING];

export interface TaskFunctionDefinition {
  /** Entry module under `lambdas/`, without extension; it exports `handler`. */
  module: string;
  description: string;
  /** What it may touch; the CDK stack gives its role exactly these grants. */
  access: readonly Grant[];
  /** @default 'zip' */
  packaging?: TaskPackaging;
  /** Lambda memory in MB. @default 256 */
  memorySize?: number;
  /** Lambda timeout; keep it at or below the state's TimeoutSeconds. @default 30 */
  timeoutSeconds?: number;
}

const VIDEO_JOB_ACCESS = [GRANTS.jobItems, GRANTS.jobMedia] as const;

/** By the `<Name>` of `${TaskFunction_<Name>}` (letters and digits). */
export const TASK_FUNCTIONS = {
  EncryptionDescribeKey: {
    module: 'workflows/encryption-setup/describe-key',
    description: 'Workspace encryption setup: describe the customer key',
    access: [GRANTS.describeCustomerKeys],
  },
  EncryptionCheckKeyAccess: {
    module: 'workflows/encryption-setup/check-key-access',
    description: 'Workspace encryption setup: data key and encrypt/decrypt round trips with the customer key',
    access: [GRANTS.checkCustomerKeys],
  },
  EncryptionApplyToMediaPrefix: {
    module: 'workflows/encryption-setup/apply-to-media-prefix',
    description:
      "Workspace encryption setup: check S3 writes with the key under the workspace's prefix, activate",
    access: [GRANTS.mediaPrefixCheck, GRANTS.workspaceItems],
  },
  EncryptionRecordFailure: {
    module: 'workflows/encryption-setup/record-failure',
    description: 'Workspace encryption setup: record the failed setup and its per-step report',
    access: [GRANTS.workspaceItems],
  },
  VideoPrepare: {
    module: 'workflows/video-render/prepare',
    description: 'Video render: start processing, resolve avatars and voices',
    access: [GRANTS.jobItems],
  },
  VideoSynthesizeSpeech: {
    module: 'workflows/video-render/synthesize-speech',
    description: "Video render: synthesize each scene's speech with word timings",
    access: [...VIDEO_JOB_ACCESS, GRANTS.synthesizeSpeech],
    memorySize: 1024,
    timeoutSeconds: 600,
  },
  VideoCompose: {
    module: 'workflows/video-render/compose',
    description: 'Video render: compose scenes, narration and captions with ffmpeg; store the outputs',
    access: VIDEO_JOB_ACCESS,
    packaging: TASK_PACKAGING.mediaImage,
    memorySize: 3008,
    timeoutSeconds: 900,
  },
  VideoFinalize: {
    module: 'workflows/video-render/finalize',
    description: 'Video render: complete, settle credits, publish avatar_video.success',
    access: [...VIDEO_JOB_ACCESS, GRANTS.publishEvents],
  },
  VideoRecordFailure: {
    module: 'workflows/video-render/record-failure',
    description: 'Video render: record the failure, refund credits, publish avatar_video.fail',
    access: [...VIDEO_JOB_ACCESS, GRANTS.publishEvents],
  },
  ModelVoiceTrain: {
    module: 'workflows/model-voice-training/train',
    description:
      'Audio voice training: decode and measure the recordings with ffmpeg, derive the engine voice, check it speaks, publish audio_voice.success',
    access: [GRANTS.jobItems, GRANTS.jobMedia, GRANTS.publishEvents, GRANTS.synthesizeSpeech],
    packaging: TASK_PACKAGING.mediaImage,
    memorySize: 2048,
    timeoutSeconds: 900,
  },
  ModelVoiceRecordFailure: {
    module: 'workflows/model-voice-training/record-failure',
    description:
      'Audio voice training: record FAILED with its reason, remove the recordings, publish audio_voice.fail',
    access: [GRANTS.jobItems, GRANTS.jobMedia, GRANTS.publishEvents],
  },
  VoiceCloneBuild: {
    module: 'workflows/voice-clone/build',
    description: 'Voice clone: measure the recording (ffmpeg), derive the voice, speak its preview, complete',
    access: [...VIDEO_JOB_ACCESS, GRANTS.publishEvents, GRANTS.synthesizeSpeech],
    packaging: TASK_PACKAGING.mediaImage,
    memorySize: 1024,
    timeoutSeconds: 300,
  },
  VoiceCloneRecordFailure: {
    module: 'workflows/voice-clone/record-failure',
    description: 'Voice clone: record the failure, free the clone slot, publish voice_clone.fail',
    access: [...VIDEO_JOB_ACCESS, GRANTS.publishEvents],
  },
} as const satisfies Readonly<Record<string, TaskFunctionDefinition>>;
export type TaskFunctionName = keyof typeof TASK_FUNCTIONS;

/**
 * Job workflows, started by API functions (and the batch worker); the ARN reaches them through
 * this environment variable.
 */
export const JOB_WORKFLOWS: Readonly<Record<string, { environmentVariable: string }>> = {
  'video-render': { environmentVariable: 'VIDEO_RENDER_STATE_MACHINE_ARN' },
  'voice-clone': { environmentVariable: 'VOICE_CLONE_STATE_MACHINE_ARN' },
  'model-voice-training': { environmentVariable: 'MODEL_VOICE_TRAINING_STATE_MACHINE_ARN' },
};

/** The encryption setup workflow (`state-machines/workspace-encryption-setup.asl.json`). */
export const ENCRYPTION_SETUP_WORKFLOW = 'workspace-encryption-setup';

/**
 * Workflows started by administration (the admin CLI), not by API functions: they get no
 * `states:StartExecution` grant on the API's roles, and their ARN reaches the CLI through this
 * environment variable (`lambdas/core/config.ts`), set from the stack's outputs or the local stack.
 */
export const ADMIN_WORKFLOWS: Readonly<Record<string, { environmentVariable: string; output: string }>> = {
  [ENCRYPTION_SETUP_WORKFLOW]: {
    environmentVariable: 'ENCRYPTION_SETUP_STATE_MACHINE_ARN',
    output: 'EncryptionSetupStateMachineArn',
  },
};
