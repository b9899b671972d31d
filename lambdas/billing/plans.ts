/**
 * What each plan allows and what a video costs. The spec names the refusals (400
 * `resolution_not_allowed`, 402 `trial_limit_exceeded`, `plan_upgrade_required`, ...) but not the
 * numbers: these are this service's, documented in the README ("Credits").
 */
import type { Plan, Workspace } from '../accounts/workspaces.js';

export const RESOLUTIONS = ['720p', '1080p', '4k'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

/** Rank for "above the plan" comparisons. */
const RESOLUTION_RANK: Readonly<Record<Resolution, number>> = { '720p': 0, '1080p': 1, '4k': 2 };

export interface PlanEntitlements {
  /** Highest output resolution a create may ask for. */
  maxResolution: Resolution;
  /** Videos the plan may make in all (the free trial), or null for no such limit. */
  trialVideoLimit: number | null;
  /** Custom watermarks (a premium option of the Enterprise plans). */
  watermark: boolean;
  /** Paid jobs a workspace may start per UTC day (429 `quota_exceeded` beyond), or null for no quota. */
  dailyJobQuota: number | null;
  /** Jobs of one type a workspace runs at once; more wait their turn (jobs/job-admission.ts). */
  jobConcurrency: number;
  /**
   * Burst slots per job type a workspace may have enabled above `jobConcurrency` (billed at
   * `BURST_RATE_MULTIPLIER`), the default when an administrator enables burst; null: the plan has none.
   */
  jobBurstSlots: number | null;
}

export const PLAN_ENTITLEMENTS: Readonly<Record<Plan, PlanEntitlements>> = {
  free: {
    maxResolution: '720p',
    trialVideoLimit: 3,
    watermark: false,
    dailyJobQuota: 25,
    jobConcurrency: 1,
    jobBurstSlots: null,
  },
  starter: {
    maxResolution: '1080p',
    trialVideoLimit: null,
    watermark: false,
    dailyJobQuota: null,
    jobConcurrency: 2,
    jobBurstSlots: null,
  },
  creator: {
    maxResolution: '1080p',
    trialVideoLimit: null,
    watermark: false,
    dailyJobQuota: null,
    jobConcurrency: 3,
    jobBurstSlots: null,
  },
  pro: {
    maxResolution: '4k',
    trialVideoLimit: null,
    watermark: false,
    dailyJobQuota: null,
    jobConcurrency: 5,
    jobBurstSlots: null,
  },
  team: {
    maxResolution: '4k',
    trialVideoLimit: null,
    watermark: false,
    dailyJobQuota: null,
    jobConcurrency: 10,
    jobBurstSlots: null,
  },
  enterprise: {
    maxResolution: '4k',
    trialVideoLimit: null,
    watermark: true,
    dailyJobQuota: null,
    jobConcurrency: 20,
    jobBurstSlots: 50,
  },
  business_plus: {
    maxResolution: '4k',
    trialVideoLimit: null,
    watermark: true,
    dailyJobQuota: null,
    jobConcurrency: 20,
    jobBurstSlots: 50,
  },
};

/** Jobs of a type (by workflow name) the workspace may run at once: its own cap for the type, else its plan's. */
export function jobConcurrencyCap(workspace: Workspace, jobName: string): number {
  return workspace.job_concurrency?.[jobName] ?? PLAN_ENTITLEMENTS[workspace.plan].jobConcurrency;
}

/** What a job run on a burst slot is charged: this times the contract rate, rounded up to a whole credit. */
export const BURST_RATE_MULTIPLIER = 1.5;

/**
 * Burst slots per job type above the cap: what an administrator enabled (`--burst on`), while the
 * workspace's plan has burst (a workspace moved off Enterprise bursts no more); 0 for none.
 */
export function jobBurstSlots(workspace: Workspace): number {
  return PLAN_ENTITLEMENTS[workspace.plan].jobBurstSlots === null ? 0 : (workspace.job_burst_slots ?? 0);
}

export function resolutionAllowed(plan: Plan, resolution: Resolution): boolean {
  return RESOLUTION_RANK[resolution] <= RESOLUTION_RANK[PLAN_ENTITLEMENTS[plan].maxResolution];
}

/** The lower of a resolution and the plan's highest (for defaults, which are never refused). */
export function capResolution(plan: Plan, resolution: Resolution): Resolution {
  return resolutionAllowed(plan, resolution) ? resolution : PLAN_ENTITLEMENTS[plan].maxResolution;
}

/** Credits per started minute of video, by output resolution. */
export const CREDITS_PER_MINUTE: Readonly<Record<Resolution, number>> = { '720p': 1, '1080p': 1, '4k': 2 };

/** Every started minute of `durationSeconds`, at least one: what every per-minute price counts. */
export function startedMinutes(durationSeconds: number): number {
  return Math.max(1, Math.ceil(Math.max(0, durationSeconds) / 60 - 1e-9));
}

/** What `durationSeconds` of video at `resolution` costs: every started minute, at least one. */
export function videoCredits(durationSeconds: number, resolution: Resolution): number {
  return startedMinutes(durationSeconds) * CREDITS_PER_MINUTE[resolution];
}

/**
 * What translating `durationSeconds` of a source into one language costs: every started minute, at
 * least one; `precision` mode (the hosted API's higher-quality mode) twice that.
 */
export function translationCredits(durationSeconds: number, mode: 'speed' | 'precision'): number {
  return startedMinutes(durationSeconds) * (mode === 'precision' ? 2 : 1);
}

/** What removing the background of `durationSeconds` of video costs: every started minute, at least one. */
export function backgroundRemovalCredits(durationSeconds: number): number {
  return startedMinutes(durationSeconds);
}

/**
 * What a lipsync of `durationSeconds` (the part re-dubbed) costs: every started minute, at least one;
 * `precision` mode twice that, as a translation's.
 */
export function lipsyncCredits(durationSeconds: number, mode: 'speed' | 'precision'): number {
  return translationCredits(durationSeconds, mode);
}

/**
 * What AI clipping of `durationSeconds` of source costs: every started minute of the source, at least
 * one, whatever the number of clips made from it.
 */
export function clippingCredits(durationSeconds: number): number {
  return startedMinutes(durationSeconds);
}

/** Credits of one avatar look, by how it is made (a look pack costs this per look). */
export const AVATAR_LOOK_CREDITS = { photo: 1, prompt: 1, look_pack: 1, digital_twin: 5 } as const;

/** Avatar groups (characters) a workspace of each plan may own; digital twins need a paid plan. */
export const AVATAR_GROUP_LIMITS: Readonly<Record<Plan, { groups: number; digitalTwins: boolean }>> = {
  free: { groups: 3, digitalTwins: false },
  starter: { groups: 10, digitalTwins: true },
  creator: { groups: 25, digitalTwins: true },
  pro: { groups: 50, digitalTwins: true },
  team: { groups: 100, digitalTwins: true },
  enterprise: { groups: 500, digitalTwins: true },
  business_plus: { groups: 500, digitalTwins: true },
};

/** Looks one avatar group may hold. */
export const MAX_LOOKS_PER_GROUP = 20;

/**
 * What removing the filler words of `durationSeconds` of a source costs: every started minute of the
 * source, at least one (the hosted price is per source minute with a one-minute minimum).
 */
export function fillerRemovalCredits(durationSeconds: number): number {
  return startedMinutes(durationSeconds);
}

/**
 * A source's length before it is measured, from its size, as if it were 500 kbit/s (errs long): what a
 * per-minute job reserves at admission; it is charged the measured minutes.
 */
export function estimatedSourceSeconds(sizeBytes: number): number {
  return sizeBytes / 62_500;
}

/**
 * Credits of a model video per started 5 s, by resolution (`POST /v3/models/videos`). The contract
 * fixes the ratios ("1080p billed at the 2k rate, 3 times the 768p rate"), not the unit: one credit per
 * started 5 s at 768p. It names no 480p rate: 480p costs what 768p does (a credit is the smallest unit).
 */
export const MODEL_VIDEO_CREDITS_PER_5_SECONDS = { '480p': 1, '768p': 1, '1080p': 3, '2k': 3 } as const;

/** What a model video of `durationSeconds` (5 to 15) at `resolution` costs: every started 5 s. */
export function modelVideoCredits(
  durationSeconds: number,
  resolution: keyof typeof MODEL_VIDEO_CREDITS_PER_5_SECONDS,
): number {
  return Math.max(1, Math.ceil(durationSeconds / 5)) * MODEL_VIDEO_CREDITS_PER_5_SECONDS[resolution];
}

/**
 * The plan tier a model video resolution needs (`resolutionAllowed`): 480p and 768p are within every
 * plan's, 1080p needs a 1080p plan, 2k a 4k one.
 */
export const MODEL_VIDEO_RESOLUTION_TIER = {
  '480p': '720p',
  '768p': '720p',
  '1080p': '1080p',
  '2k': '4k',
} as const satisfies Readonly<Record<string, Resolution>>;

/** Credits of one generated image (`POST /v3/models/images`): the job costs this per image asked for. */
export const MODEL_IMAGE_CREDITS_PER_IMAGE = 1;
