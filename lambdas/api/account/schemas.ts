/** The JSON answers of the account routes (`GET /v3/users/me`, `GET /v3/api_keys/self`, `GET /v3/usage`). */
import { z } from 'zod';
import { SCOPE_MODES } from '../../accounts/api-keys.js';
import { AUTH_TYPES } from '../../accounts/principal.js';
import { BILLING_TYPES, PLANS } from '../../accounts/workspaces.js';
import { PAID_JOB_TYPES, type PaidJobType } from '../../billing/usage-ledger.js';
import { USAGE_GRANULARITIES } from '../../billing/usage-report.js';
import { dataEnvelope, unixSeconds } from '../pipeline/response-envelopes.js';
import { RATE_CLASSES, type RateClass } from '../pipeline/route-types.js';

/** Credits are whole: every charge is a whole number of minutes at a whole rate, and admins set whole amounts. */
const credits = z.number().int().nonnegative();

/** The account document (`accountView` of accounts/account-view.ts). */
export const accountResponse = z.object({
  username: z.string(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  workspace_id: z.string(),
  workspace_name: z.string(),
  billing_type: z.enum(BILLING_TYPES).meta({
    description: 'Which billing object is present: `wallet`, `subscription` or `usage_based`.',
  }),
  wallet: z
    .object({
      currency: z.enum(['usd', 'credits']),
      remaining_balance: z.number(),
      auto_reload: z.object({ enabled: z.boolean() }).meta({ description: 'Never enabled on this service.' }),
    })
    .optional()
    .meta({ description: 'Present for wallet billing only.' }),
  usage_based: z
    .object({ included_credits: credits, remaining_credits: credits })
    .optional()
    .meta({ description: 'Present for usage-based billing only.' }),
  subscription: z
    .object({
      plan: z.enum(PLANS),
      credits: z.object({
        premium_credits: z.object({ remaining: credits }).meta({
          description: 'No `resets_at`: credits are set by the operator, not renewed on a schedule.',
        }),
      }),
    })
    .optional()
    .meta({ description: 'Present for subscription billing only.' }),
  included_credits: credits.meta({ description: 'Credits granted per billing period.' }),
  remaining_credits: credits.meta({
    description: 'Credits left to spend (subscription and usage-based billing).',
  }),
});
export const accountBody = dataEnvelope(accountResponse);

/** The calling credential, as `GET /v3/api_keys/self` describes it (the authenticated principal). */
export const apiKeySelfResponse = z.object({
  key_id: z.string().meta({ description: "The API key id; for OAuth, the token's subject." }),
  name: z.string().meta({ description: 'The key name; for OAuth the client id or subject.' }),
  auth_type: z.enum([AUTH_TYPES.apiKey, AUTH_TYPES.oauth]),
  workspace_id: z.string(),
  scope_mode: z.enum([SCOPE_MODES.full, SCOPE_MODES.read_only, SCOPE_MODES.custom]),
  scopes: z.array(z.string()),
  expires_at: unixSeconds.nullable().meta({ description: 'Null for a credential that does not expire.' }),
});
export const apiKeySelfBody = dataEnvelope(apiKeySelfResponse);

/** A day of the usage window: `YYYY-MM-DD`, a real calendar date (UTC). */
const usageDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be a date as YYYY-MM-DD' })
  // Runs after a failed pattern too (zod keeps checking): an unparsable date must not throw.
  .refine(
    (day) => {
      const time = Date.parse(`${day}T00:00:00Z`);
      return !Number.isNaN(time) && new Date(time).toISOString().startsWith(day);
    },
    {
      error: 'must be a real calendar date as YYYY-MM-DD',
    },
  );

export const usageQuery = z.strictObject({
  from: usageDay
    .optional()
    .meta({ description: `First day of the window (UTC, included). Default: 29 days before \`to\`.` }),
  to: usageDay.optional().meta({ description: 'Last day of the window (UTC, included). Default: today.' }),
  granularity: z
    .enum(USAGE_GRANULARITIES)
    .default('day')
    .meta({ description: 'Length of the periods: `day`, `week` (ISO, from Monday) or `month`.' }),
});

const usageCount = z.object({
  credits_charged: credits.meta({ description: 'Credits charged by jobs settled in the period.' }),
  jobs_settled: z
    .number()
    .int()
    .nonnegative()
    .meta({ description: 'Paid jobs completed (refunded ones are not counted).' }),
  burst_credits_charged: credits.meta({
    description:
      'Of `credits_charged`, what jobs run on Enterprise burst slots were charged (1.5× the rate, rounded up to a whole credit). An extension of this service.',
  }),
  burst_jobs_settled: z
    .number()
    .int()
    .nonnegative()
    .meta({ description: 'Of `jobs_settled`, the jobs run on burst slots. An extension of this service.' }),
});
const usageTally = usageCount.extend({
  by_job_type: z.record(z.string(), usageCount).meta({
    description: `Per job type (${Object.keys(PAID_JOB_TYPES).join(', ')}); types with no charge are left out.`,
  }),
});

/** `GET /v3/usage` (usage-report.ts and `workspaceRateHeadroom`). */
export const usageResponse = z.object({
  workspace_id: z.string(),
  plan: z.enum(PLANS),
  credits: z.object({
    balance: z.enum(['remaining_credits', 'wallet_balance']).meta({
      description: 'Which balance pays for jobs: the wallet for wallet billing, the credits otherwise.',
    }),
    included: credits.meta({ description: 'Credits granted per billing period.' }),
    used: credits.meta({ description: 'Credits spent, credits reserved by jobs not ended yet included.' }),
    reserved: credits.meta({
      description: 'Credits held by jobs not ended yet (settled or refunded when they end).',
    }),
    remaining: z.number().meta({ description: 'What is left of the paying balance.' }),
    usage_limit: credits.nullable().meta({ description: "The workspace's usage limit, or null for none." }),
  }),
  window: z.object({
    from: z.string(),
    to: z.string(),
    granularity: z.enum(USAGE_GRANULARITIES),
  }),
  usage: z.object({
    periods: z.array(usageTally.extend({ from: z.string(), to: z.string() })).meta({
      description:
        'Every period of the window in order, zeros included; the first and last may be cut by the window.',
    }),
    totals: usageTally,
  }),
  rate_limits: z
    .array(
      z.object({
        rate_class: z.enum(Object.values(RATE_CLASSES) as [RateClass, ...RateClass[]]),
        limit: z.number().int().positive(),
        window_seconds: z.number().int().positive(),
        used: z.number().int().nonnegative(),
        remaining: z.number().int().nonnegative(),
      }),
    )
    .meta({
      description:
        'Per request class: the limit, and the headroom now (slots leased by busy instances count as used). This request itself is counted in `read`.',
    }),
  jobs: z.array(
    z.object({
      job_type: z.enum(Object.keys(PAID_JOB_TYPES) as [PaidJobType, ...PaidJobType[]]),
      running: z.number().int().nonnegative(),
      burst_running: z.number().int().nonnegative().meta({
        description: 'Of `running`, the jobs on burst slots (charged 1.5×). An extension of this service.',
      }),
      queued: z.number().int().nonnegative(),
      concurrency_limit: z.number().int().nonnegative().meta({
        description:
          'How many jobs of the type the workspace runs at once (its plan, or its own cap); more wait in `queued`, started in the order they were created.',
      }),
      burst_limit: z.number().int().nonnegative().meta({
        description:
          'Enterprise burst: how many more may run once `concurrency_limit` are running, each charged 1.5× (rounded up to a whole credit); 0 when burst is off. An extension of this service.',
      }),
      credits_reserved: credits.meta({
        description: 'Credits held by the jobs of the type that have not ended (burst top-ups included).',
      }),
    }),
  ),
});
export const usageBody = dataEnvelope(usageResponse);
