/**
 * The admin CLI's commands: what the hosted product does in its dashboard. Workspaces (plan,
 * billing type, credits, rate limits, status), API keys (created with the secret shown once,
 * listed, revoked) and workspace encryption keys (set, shown, cleared). Pure functions over the same
 * domain modules the API uses; `bin/admin.ts` connects them to the local stack or to a deployed
 * stack.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { createApiKey, listApiKeys, revokeApiKey, SCOPE_MODES } from '../../lambdas/accounts/api-keys.js';
import {
  AI_VENDORS,
  BILLING_TYPES,
  createWorkspace,
  getWorkspace,
  listWorkspaces,
  PLANS,
  type Plan,
  type RateLimitOverrides,
  updateWorkspace,
  WORKSPACE_STATUS,
  type WorkspaceChanges,
  type WorkspaceRestrictions,
} from '../../lambdas/accounts/workspaces.js';
import { isValidScope } from '../../lambdas/api/pipeline/scopes.js';
import { PLAN_ENTITLEMENTS } from '../../lambdas/billing/plans.js';
import { ServiceError } from '../../lambdas/core/errors.js';
import {
  clearWorkspaceEncryption,
  describeWorkspaceEncryption,
  requestEncryptionSetup,
  WorkspaceNotFoundError,
} from '../../lambdas/encryption/workspace-encryption.js';

export const ADMIN_USAGE = `Usage: npm run admin -- <command> [options]

Workspaces
  workspace create --name <name> [--plan <plan>] [--billing-type <type>] [--credits <n>]
                   [--username <u>] [--email <e>]
  workspace list
  workspace show <workspace_id>
  workspace update <workspace_id> [--name <n>] [--plan <plan>] [--billing-type <type>]
                   [--credits <n>] [--remaining-credits <n>] [--wallet-balance <n>]
                   [--usage-limit <n>|none] [--status active|deleted] [--rate-limit <class>=<n>]...
                   [--consent-api on|off]   whitelist an Enterprise account for the avatar consent API
                   [--translation-stock-voices on|off]   let translations use stock_voice_config
                   [--brand-lock on|off]    videos may use the default brand kit only (brand_kit_locked)
                   [--daily-job-quota <n>|none|plan]   paid jobs a UTC day (quota_exceeded beyond)
                   [--job-concurrency <workflow>=<n>|plan]...  jobs of a type run at once (more wait)
                   [--burst on|off] [--burst-slots <n>]   Enterprise burst: up to n (default 50) more
                                            jobs per type once the cap is full, charged 1.5×
                   [--phone-verification required|done]  only the account may be read until done
                   [--disable-endpoint <OperationId>]... [--enable-endpoint <OperationId>]...
                   [--block-vendor <vendor>]... [--unblock-vendor <vendor>]...
                   [--block-voice <voice_id>]... [--unblock-voice <voice_id>]...
API keys
  key create <workspace_id> --name <name> [--scope-mode full|read_only|custom]
             [--scopes <scope,scope>] [--expires-in-days <n>]
  key list <workspace_id>
  key revoke <workspace_id> <key_id>
Encryption (customer-managed KMS key for a workspace's media)
  encryption set <workspace_id> --key-arn <arn>   full key ARN in the stack's region; starts the setup
  encryption show <workspace_id>                  state: none, pending, active or failed (with report)
  encryption clear <workspace_id>                 new media uses the stack key again; existing media
                                                  stays under the customer key

Plans: ${PLANS.join(', ')}. Billing types: ${BILLING_TYPES.join(', ')}.
AI vendors: ${AI_VENDORS.join(', ')}.
Workflows for --job-concurrency: the job workflows of state-machines/ (video-render,
video-translation, lipsync, ...) but avatar-consent-review. Operation ids: as in the OpenAPI document (GET /openapi.json).
Rate-limit classes: read, write, heavy, status, status_ip (requests per window).
Target: the running local stack (or DATA_DIR) by default; a deployed stack when TABLE_NAME and
HMAC_KEY_ID are set in the environment (with AWS credentials and region; encryption also needs
BUCKET_NAME and ENCRYPTION_SETUP_STATE_MACHINE_ARN).`;

/** The command or its input is wrong (exit status 2); `code` is the API's error code, when there is one. */
export class AdminUsageError extends Error {
  readonly code: string | undefined;

  constructor(message: string, code?: string) {
    super(message);
    this.code = code;
  }
}

/** Domain refusals (a 4xx in API terms) and unknown workspaces are the caller's mistake: usage errors. */
async function asAdminCommand<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ServiceError && error.status < 500)
      throw new AdminUsageError(error.message, error.code);
    if (error instanceof WorkspaceNotFoundError) throw new AdminUsageError(error.message);
    throw error;
  }
}

export interface AdminResult {
  /** What to print: JSON for machines and people alike. */
  output: unknown;
}

const nonNegative = z.coerce.number().nonnegative();
/** Credits are whole: every charge is a whole number (billing/plans.ts `videoCredits`). */
const wholeCredits = z.coerce.number().int({ error: 'must be a whole number of credits' }).nonnegative();
const plan = z.enum(PLANS);
const billingType = z.enum(BILLING_TYPES);

/**
 * What `--burst on|off` and `--burst-slots <n>` (which implies on) set: the burst slots per job type, or
 * undefined (off); nothing when neither is given. Only a plan with burst (Enterprise) may turn it on.
 */
function burstChange(
  workspacePlan: Plan,
  burst: string | undefined,
  slots: string | undefined,
): { slots: number | undefined } | undefined {
  if (burst === undefined && slots === undefined) return undefined;
  const on = burst === undefined || parse(z.enum(['on', 'off']), burst, 'burst') === 'on';
  if (!on) {
    if (slots !== undefined) throw new AdminUsageError('--burst-slots goes with --burst on only.');
    return { slots: undefined };
  }
  const planSlots = PLAN_ENTITLEMENTS[workspacePlan].jobBurstSlots;
  if (planSlots === null) {
    throw new AdminUsageError(
      `--burst: burst concurrency is an Enterprise feature; this workspace's plan is ${workspacePlan} (set --plan enterprise first).`,
      'plan_upgrade_required',
    );
  }
  return {
    slots: slots === undefined ? planSlots : parse(z.coerce.number().int().positive(), slots, 'burst-slots'),
  };
}

function parse<S extends z.ZodType>(schema: S, value: unknown, option: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new AdminUsageError(`--${option}: ${result.error.issues[0]?.message ?? 'invalid value'}`);
  return result.data;
}

function rateLimits(values: string[] | undefined): RateLimitOverrides | undefined {
  if (!values || values.length === 0) return undefined;
  const limits: RateLimitOverrides = {};
  for (const value of values) {
    const [name, amount] = value.split('=');
    const bucket = parse(z.enum(['read', 'write', 'heavy', 'status', 'status_ip']), name, 'rate-limit');
    limits[bucket] = parse(z.coerce.number().int().positive(), amount, 'rate-limit');
  }
  return limits;
}

const endpointName = z.string().regex(/^[A-Za-z][A-Za-z0-9]*$/, 'an operation id, e.g. VideoCreate');

/** Adds `add` to `list` and takes `remove` out, without repeats; undefined when neither is given. */
function changedList<T extends string>(
  list: readonly T[] | undefined,
  add: readonly T[],
  remove: readonly T[],
): T[] | undefined {
  if (add.length === 0 && remove.length === 0) return undefined;
  return [...new Set([...(list ?? []), ...add])].filter((entry) => !remove.includes(entry));
}

/** The workspace's restrictions after the `workspace update` options that change them, if any do. */
function restrictionChanges(
  current: WorkspaceRestrictions,
  values: Partial<Record<string, string | string[] | boolean>>,
): WorkspaceRestrictions | undefined {
  const listOf = <S extends z.ZodType<string>>(schema: S, option: string) =>
    ((values[option] as string[] | undefined) ?? []).map((value) => parse(schema, value, option));
  const next: WorkspaceRestrictions = { ...current };
  let changed = false;
  if (typeof values['phone-verification'] === 'string') {
    next.phone_verification_required =
      parse(z.enum(['required', 'done']), values['phone-verification'], 'phone-verification') === 'required';
    changed = true;
  }
  const endpoints = changedList(
    current.disabled_endpoints,
    listOf(endpointName, 'disable-endpoint'),
    listOf(endpointName, 'enable-endpoint'),
  );
  const vendors = changedList(
    current.blocked_ai_vendors,
    listOf(z.enum(AI_VENDORS), 'block-vendor'),
    listOf(z.enum(AI_VENDORS), 'unblock-vendor'),
  );
  const voices = changedList(
    current.blocked_voices,
    listOf(z.string().min(1), 'block-voice'),
    listOf(z.string().min(1), 'unblock-voice'),
  );
  if (endpoints) next.disabled_endpoints = endpoints;
  if (vendors) next.blocked_ai_vendors = vendors;
  if (voices) next.blocked_voices = voices;
  return changed || endpoints || vendors || voices ? next : undefined;
}

async function requireWorkspace(workspaceId: string | undefined) {
  if (!workspaceId) throw new AdminUsageError('Name the workspace id.');
  const workspace = await getWorkspace(workspaceId);
  if (!workspace) throw new AdminUsageError(`No workspace ${workspaceId}.`);
  return workspace;
}

export async function runAdminCommand(argv: string[]): Promise<AdminResult> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: 'string' },
      plan: { type: 'string' },
      'billing-type': { type: 'string' },
      credits: { type: 'string' },
      'remaining-credits': { type: 'string' },
      'wallet-balance': { type: 'string' },
      'usage-limit': { type: 'string' },
      status: { type: 'string' },
      'rate-limit': { type: 'string', multiple: true },
      'consent-api': { type: 'string' },
      'translation-stock-voices': { type: 'string' },
      'brand-lock': { type: 'string' },
      'daily-job-quota': { type: 'string' },
      'job-concurrency': { type: 'string', multiple: true },
      burst: { type: 'string' },
      'burst-slots': { type: 'string' },
      'phone-verification': { type: 'string' },
      'disable-endpoint': { type: 'string', multiple: true },
      'enable-endpoint': { type: 'string', multiple: true },
      'block-vendor': { type: 'string', multiple: true },
      'unblock-vendor': { type: 'string', multiple: true },
      'block-voice': { type: 'string', multiple: true },
      'unblock-voice': { type: 'string', multiple: true },
      username: { type: 'string' },
      email: { type: 'string' },
      'scope-mode': { type: 'string' },
      scopes: { type: 'string' },
      'expires-in-days': { type: 'string' },
      'key-arn': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [resource, action, ...rest] = positionals;
  if (values.help || !resource) return { output: ADMIN_USAGE };

  switch (`${resource} ${action ?? ''}`) {
    case 'workspace create': {
      if (!values.name) throw new AdminUsageError('--name is required.');
      const limits = rateLimits(values['rate-limit']);
      const workspace = await createWorkspace({
        name: values.name,
        ...(values.plan ? { plan: parse(plan, values.plan, 'plan') } : {}),
        ...(values['billing-type']
          ? { billing_type: parse(billingType, values['billing-type'], 'billing-type') }
          : {}),
        ...(values.credits ? { included_credits: parse(wholeCredits, values.credits, 'credits') } : {}),
        owner: {
          ...(values.username ? { username: values.username } : {}),
          ...(values.email ? { email: values.email } : {}),
        },
        ...(limits ? { rate_limits: limits } : {}),
      });
      return { output: workspace };
    }
    case 'workspace list': {
      const workspaces = [];
      let token: string | undefined;
      do {
        const page = await listWorkspaces(100, token);
        workspaces.push(...page.items);
        token = page.nextToken ?? undefined;
      } while (token);
      return { output: workspaces };
    }
    case 'workspace show':
      return { output: await requireWorkspace(rest[0]) };
    case 'workspace update': {
      const workspace = await requireWorkspace(rest[0]);
      const changes: WorkspaceChanges = {};
      if (values.name) changes.name = values.name;
      if (values.plan) changes.plan = parse(plan, values.plan, 'plan');
      if (values['billing-type'])
        changes.billing_type = parse(billingType, values['billing-type'], 'billing-type');
      if (values.credits) {
        changes.included_credits = parse(wholeCredits, values.credits, 'credits');
        changes.remaining_credits = changes.included_credits;
      }
      if (values['remaining-credits'])
        changes.remaining_credits = parse(wholeCredits, values['remaining-credits'], 'remaining-credits');
      if (values['wallet-balance'])
        changes.wallet_balance = parse(nonNegative, values['wallet-balance'], 'wallet-balance');
      if (values['usage-limit'])
        changes.usage_limit_credits =
          values['usage-limit'] === 'none' ? null : parse(nonNegative, values['usage-limit'], 'usage-limit');
      if (values.status)
        changes.status = parse(
          z.enum([WORKSPACE_STATUS.active, WORKSPACE_STATUS.deleted]),
          values.status,
          'status',
        );
      if (values['consent-api'])
        changes.consent_api = parse(z.enum(['on', 'off']), values['consent-api'], 'consent-api') === 'on';
      if (values['translation-stock-voices'])
        changes.translation_stock_voices =
          parse(z.enum(['on', 'off']), values['translation-stock-voices'], 'translation-stock-voices') ===
          'on';
      if (values['brand-lock'])
        changes.brand_lock = parse(z.enum(['on', 'off']), values['brand-lock'], 'brand-lock') === 'on';
      const limits = rateLimits(values['rate-limit']);
      if (limits) changes.rate_limits = { ...workspace.rate_limits, ...limits };
      if (values['daily-job-quota']) {
        const quota = values['daily-job-quota'];
        changes.daily_job_quota =
          quota === 'plan'
            ? undefined
            : quota === 'none'
              ? null
              : parse(z.coerce.number().int().nonnegative(), quota, 'daily-job-quota');
      }
      if (values['job-concurrency']) {
        // Loaded only here: every job definition is a lot to load for each command.
        const { JOBS } = await import('../../lambdas/workflows/jobs.js');
        const limited = JOBS.filter((job) => job.concurrencyLimited).map((job) => job.name);
        const caps = { ...workspace.job_concurrency };
        for (const value of values['job-concurrency']) {
          const [workflow = '', amount] = value.split('=');
          parse(z.enum(limited as [string, ...string[]]), workflow, 'job-concurrency');
          if (amount === 'plan') delete caps[workflow];
          else caps[workflow] = parse(z.coerce.number().int().positive(), amount, 'job-concurrency');
        }
        changes.job_concurrency = caps;
      }
      const burst = burstChange(changes.plan ?? workspace.plan, values.burst, values['burst-slots']);
      if (burst) changes.job_burst_slots = burst.slots;
      const restrictions = restrictionChanges(workspace.restrictions ?? {}, values);
      if (restrictions) changes.restrictions = restrictions;
      if (Object.keys(changes).length === 0)
        throw new AdminUsageError('Nothing to update: give at least one option.');
      return { output: await updateWorkspace(workspace.workspace_id, changes) };
    }
    case 'key create': {
      const workspace = await requireWorkspace(rest[0]);
      if (!values.name) throw new AdminUsageError('--name is required.');
      const scopeMode = parse(
        z.enum(Object.values(SCOPE_MODES)),
        values['scope-mode'] ?? 'full',
        'scope-mode',
      );
      const scopes =
        values.scopes
          ?.split(',')
          .map((scope) => scope.trim())
          .filter(Boolean) ?? [];
      if (scopeMode === 'custom' && scopes.length === 0)
        throw new AdminUsageError('--scopes is required with --scope-mode custom.');
      if (scopeMode !== 'custom' && scopes.length > 0)
        throw new AdminUsageError('--scopes goes with --scope-mode custom only.');
      const invalid = scopes.filter((scope) => !isValidScope(scope));
      if (invalid.length > 0)
        throw new AdminUsageError(
          `Invalid scopes: ${invalid.join(', ')} (form resource:read, resource:write, *:read, *:*).`,
        );
      const days = values['expires-in-days']
        ? parse(z.coerce.number().positive(), values['expires-in-days'], 'expires-in-days')
        : undefined;
      const { apiKey, secret } = await createApiKey({
        workspace_id: workspace.workspace_id,
        name: values.name,
        scope_mode: scopeMode,
        scopes,
        expires_at: days === undefined ? null : Math.floor(Date.now() / 1000 + days * 86_400),
      });
      return { output: { ...apiKey, api_key: secret, note: 'The key is shown once. Store it now.' } };
    }
    case 'key list': {
      const workspace = await requireWorkspace(rest[0]);
      const keys = [];
      let token: string | undefined;
      do {
        const page = await listApiKeys(workspace.workspace_id, 100, token);
        keys.push(...page.items);
        token = page.nextToken ?? undefined;
      } while (token);
      return { output: keys };
    }
    case 'key revoke': {
      const workspace = await requireWorkspace(rest[0]);
      const keyId = rest[1];
      if (!keyId) throw new AdminUsageError('Name the key id to revoke.');
      const revoked = await revokeApiKey(workspace.workspace_id, keyId);
      if (!revoked) throw new AdminUsageError(`No key ${keyId} in workspace ${workspace.workspace_id}.`);
      return { output: revoked };
    }
    case 'encryption set': {
      const workspaceId = rest[0];
      if (!workspaceId) throw new AdminUsageError('Name the workspace id.');
      if (!values['key-arn']) throw new AdminUsageError('--key-arn is required.');
      const keyArn = values['key-arn'];
      return { output: await asAdminCommand(() => requestEncryptionSetup(workspaceId, keyArn)) };
    }
    case 'encryption show': {
      const workspaceId = rest[0];
      if (!workspaceId) throw new AdminUsageError('Name the workspace id.');
      return { output: await asAdminCommand(() => describeWorkspaceEncryption(workspaceId)) };
    }
    case 'encryption clear': {
      const workspaceId = rest[0];
      if (!workspaceId) throw new AdminUsageError('Name the workspace id.');
      const cleared = await asAdminCommand(() => clearWorkspaceEncryption(workspaceId));
      return {
        output: {
          ...cleared,
          note:
            cleared.cleared.state === 'none'
              ? 'The workspace had no customer key: its media is encrypted with the stack key.'
              : 'New media is encrypted with the stack key. Media written before stays encrypted with the customer key and is readable only while that key stays enabled and usable by this service.',
        },
      };
    }
    default:
      throw new AdminUsageError(`Unknown command "${positionals.join(' ')}".\n\n${ADMIN_USAGE}`);
  }
}
