/**
 * Workspaces: the tenant. Plans, billing, credits and the workspace's media encryption (a
 * customer-managed KMS key and the state of its setup) live on the workspace item.
 */
import type { ErrorDetail } from '../core/errors.js';
import { ID_PATTERN, newId, nowSeconds } from '../core/ids.js';
import { getItem, putItem, putNewItem, queryPage, updateExistingItem } from '../core/repository.js';
import { keys } from '../core/table-schema.js';

export const PLANS = ['free', 'starter', 'creator', 'pro', 'team', 'enterprise', 'business_plus'] as const;
export type Plan = (typeof PLANS)[number];

export const BILLING_TYPES = ['wallet', 'subscription', 'usage_based'] as const;
export type BillingType = (typeof BILLING_TYPES)[number];

export const WORKSPACE_STATUS = { active: 'active', deleted: 'deleted' } as const;
export type WorkspaceStatus = (typeof WORKSPACE_STATUS)[keyof typeof WORKSPACE_STATUS];

/**
 * Third-party AI services an engine of this deployment may send a workspace's content to. Local engines
 * (eSpeak, the local planner, Apertium, the composite remix) are no vendor and are never restricted.
 */
export const AI_VENDORS = [
  'openai_compatible',
  'amazon_bedrock',
  'amazon_polly',
  'amazon_transcribe',
  'amazon_translate',
] as const;
export type AiVendor = (typeof AI_VENDORS)[number];

/**
 * What an administrator has restricted for the workspace (admin CLI `workspace update`), each refused
 * with the spec's 403 for it. All absent: nothing restricted.
 */
export interface WorkspaceRestrictions {
  /** Every call but reading the account is 403 `phone_verification_required`. @default false */
  phone_verification_required?: boolean;
  /** Operation ids (e.g. `VideoCreate`) answered 403 `api_endpoint_disabled`. @default [] */
  disabled_endpoints?: string[];
  /** Jobs whose engines would use one of these are refused 403 `ai_vendor_access_restricted`. @default [] */
  blocked_ai_vendors?: AiVendor[];
  /** Voices (stock or the workspace's) refused 403 `voice_not_usable`. @default [] */
  blocked_voices?: string[];
}

/** Per-workspace overrides of the plan's request-rate limits (requests per window). */
export type RateLimitOverrides = Partial<Record<'read' | 'write' | 'heavy' | 'status' | 'status_ip', number>>;

export interface WorkspaceOwner {
  email: string;
  first_name: string;
  last_name: string;
  username: string;
}

/**
 * States of a workspace's customer-managed key. No `encryption` attribute at all means media is
 * encrypted with the stack's own key.
 */
export const ENCRYPTION_STATES = { pending: 'pending', active: 'active', failed: 'failed' } as const;
export type EncryptionState = (typeof ENCRYPTION_STATES)[keyof typeof ENCRYPTION_STATES];

/** A customer-managed key set for the workspace's media ("bring your own key"). */
export interface WorkspaceEncryption {
  state: EncryptionState;
  /** Full KMS key ARN, validated when it was set. */
  key_arn: string;
  /** One per `encryption set`; names the setup workflow's execution. */
  setup_id: string;
  execution_arn: string;
  /**
   * One entry per setup step in the spec's error-detail shape: `path` is the step, `code` is
   * `passed`, `not_run` or what went wrong. Empty while pending.
   */
  report: ErrorDetail[];
  /** Unix seconds. */
  requested_at: number;
  updated_at: number;
  activated_at?: number;
}

export interface Workspace {
  workspace_id: string;
  name: string;
  status: WorkspaceStatus;
  plan: Plan;
  billing_type: BillingType;
  /** Credits granted per billing period (subscription, usage-based). */
  included_credits: number;
  /** Credits left to spend. */
  remaining_credits: number;
  /** Wallet balance in `wallet_currency`, for wallet billing. */
  wallet_balance: number;
  wallet_currency: 'usd' | 'credits';
  owner: WorkspaceOwner;
  /**
   * Most credits the workspace may spend in total (its usage limit; more credits do not lift it).
   * Absent or null: no limit.
   */
  usage_limit_credits?: number | null;
  /** Credits spent so far (reserved by running jobs included). @default 0 */
  used_credits?: number;
  /** Videos made on the free plan's trial (failed ones are given back). @default 0 */
  trial_videos_used?: number;
  rate_limits?: RateLimitOverrides;
  /**
   * Whitelisted for `POST /v3/avatars/{group_id}/consent` (an Enterprise feature, switched on per
   * account by an administrator: `admin workspace update <id> --consent-api on`). @default false
   */
  consent_api?: boolean;
  /**
   * Translations may speak with chosen stock voices (`stock_voice_config`, an Enterprise feature an
   * administrator enables: `admin workspace update <id> --translation-stock-voices on`). @default false
   */
  translation_stock_voices?: boolean;
  /**
   * Brand policy lock: videos are made with the workspace's default brand kit only; any other
   * `brand_kit_id` is 403 `brand_kit_locked` (set by an administrator:
   * `admin workspace update <id> --brand-lock on`). @default false
   */
  brand_lock?: boolean;
  /** @default {} (nothing restricted) */
  restrictions?: WorkspaceRestrictions;
  /**
   * Paid jobs the workspace may start per UTC day, beyond which creates are 429 `quota_exceeded`;
   * absent: the plan's quota (`PLAN_ENTITLEMENTS`), null: none.
   */
  daily_job_quota?: number | null;
  /**
   * Jobs of a type (by workflow name, e.g. `video-render`) the workspace runs at once, where an
   * administrator set its own; other types run the plan's (`PLAN_ENTITLEMENTS`).
   */
  job_concurrency?: Record<string, number>;
  /**
   * Burst slots per job type above its cap, billed at 1.5× (an Enterprise feature an administrator
   * enables: `admin workspace update <id> --burst on [--burst-slots <n>]`); absent: no burst.
   */
  job_burst_slots?: number;
  /** Absent: the stack's key. */
  encryption?: WorkspaceEncryption;
  created_at: number;
}

type WorkspaceItem = Workspace & {
  pk: string;
  sk: string;
  gsi1pk: string;
  gsi1sk: string;
  /**
   * `<state>#<setup_id>` of `encryption`: repository conditions compare top-level attributes, and
   * a setup may only record its outcome while it is still the workspace's pending setup.
   */
  encryption_fence?: string;
};

const WORKSPACES_INDEX_PARTITION = 'WORKSPACES';

function toWorkspace(item: WorkspaceItem): Workspace {
  const {
    pk: _pk,
    sk: _sk,
    gsi1pk: _gsi1pk,
    gsi1sk: _gsi1sk,
    encryption_fence: _encryptionFence,
    ...workspace
  } = item;
  return workspace;
}

export interface NewWorkspace {
  name: string;
  /** @default 'free' */
  plan?: Plan;
  /** @default 'subscription' */
  billing_type?: BillingType;
  /** Also the starting `remaining_credits`. @default 0 */
  included_credits?: number;
  /** @default an owner named after the workspace */
  owner?: Partial<WorkspaceOwner>;
  /** @default undefined (the plan's limits) */
  rate_limits?: RateLimitOverrides;
  /** A fixed id, for the local stack's seeded workspace. */
  workspace_id?: string;
}

export async function createWorkspace(input: NewWorkspace): Promise<Workspace> {
  const workspaceId = input.workspace_id ?? newId();
  const included = input.included_credits ?? 0;
  const username = input.owner?.username ?? input.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const workspace: Workspace = {
    workspace_id: workspaceId,
    name: input.name,
    status: WORKSPACE_STATUS.active,
    plan: input.plan ?? 'free',
    billing_type: input.billing_type ?? 'subscription',
    included_credits: included,
    remaining_credits: included,
    wallet_balance: 0,
    wallet_currency: 'credits',
    owner: {
      email: input.owner?.email ?? `${username}@example.invalid`,
      first_name: input.owner?.first_name ?? input.name,
      last_name: input.owner?.last_name ?? '',
      username,
    },
    ...(input.rate_limits ? { rate_limits: input.rate_limits } : {}),
    created_at: nowSeconds(),
  };
  const created = await putNewItem({
    ...keys.workspace(workspaceId),
    gsi1pk: WORKSPACES_INDEX_PARTITION,
    gsi1sk: workspaceId,
    ...workspace,
  });
  if (!created) throw new Error(`Workspace ${workspaceId} already exists`);
  return workspace;
}

/** @param consistent read the latest write (encryption decisions); @default false */
export async function getWorkspace(workspaceId: string, consistent = false): Promise<Workspace | undefined> {
  if (!ID_PATTERN.test(workspaceId)) return undefined;
  const item = await getItem<WorkspaceItem>(keys.workspace(workspaceId), consistent);
  return item ? toWorkspace(item) : undefined;
}

export async function listWorkspaces(limit = 100, token?: string) {
  const page = await queryPage<WorkspaceItem>({
    partition: WORKSPACES_INDEX_PARTITION,
    index: 'gsi1',
    limit,
    token,
    binding: 'admin:workspaces',
    newestFirst: false,
  });
  return { items: page.items.map(toWorkspace), nextToken: page.nextToken };
}

export type WorkspaceChanges = Partial<
  Pick<
    Workspace,
    | 'name'
    | 'status'
    | 'plan'
    | 'billing_type'
    | 'included_credits'
    | 'remaining_credits'
    | 'wallet_balance'
    | 'wallet_currency'
    | 'usage_limit_credits'
    | 'rate_limits'
    | 'consent_api'
    | 'translation_stock_voices'
    | 'brand_lock'
    | 'restrictions'
    | 'daily_job_quota'
    | 'job_concurrency'
    | 'job_burst_slots'
  >
>;

/** Sets the fields `changes` gives; a field given as undefined is removed (back to its default). */
export async function updateWorkspace(
  workspaceId: string,
  changes: WorkspaceChanges,
): Promise<Workspace | undefined> {
  const entries = Object.entries(changes);
  const item = await updateExistingItem<WorkspaceItem>(
    keys.workspace(workspaceId),
    Object.fromEntries(entries.filter(([, value]) => value !== undefined)),
    entries.filter(([, value]) => value === undefined).map(([field]) => field),
  );
  return item ? toWorkspace(item) : undefined;
}

/** Replaces a workspace wholesale (used by the admin CLI's restore path and tests). */
export async function saveWorkspace(workspace: Workspace): Promise<void> {
  await putItem({
    ...keys.workspace(workspace.workspace_id),
    gsi1pk: WORKSPACES_INDEX_PARTITION,
    gsi1sk: workspace.workspace_id,
    ...workspace,
    ...(workspace.encryption ? { encryption_fence: encryptionFence(workspace.encryption) } : {}),
  });
}

function encryptionFence(encryption: Pick<WorkspaceEncryption, 'state' | 'setup_id'>): string {
  return `${encryption.state}#${encryption.setup_id}`;
}

/**
 * Sets the workspace's encryption. With `expected`, only while the workspace's encryption is still
 * in that state of that setup (a superseded or cleared setup records nothing).
 * @returns false when the workspace is missing or `expected` no longer holds
 */
export async function putWorkspaceEncryption(
  workspaceId: string,
  encryption: WorkspaceEncryption,
  expected?: Pick<WorkspaceEncryption, 'state' | 'setup_id'>,
): Promise<boolean> {
  const updated = await updateExistingItem<WorkspaceItem>(
    keys.workspace(workspaceId),
    { encryption, encryption_fence: encryptionFence(encryption) },
    [],
    expected ? { encryption_fence: encryptionFence(expected) } : {},
  );
  return updated !== undefined;
}

/** Removes the workspace's customer key: media is encrypted with the stack's key again. */
export async function removeWorkspaceEncryption(workspaceId: string): Promise<boolean> {
  const updated = await updateExistingItem<WorkspaceItem>(keys.workspace(workspaceId), {}, [
    'encryption',
    'encryption_fence',
  ]);
  return updated !== undefined;
}
