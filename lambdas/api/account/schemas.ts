/** The JSON answers of the account routes (`GET /v3/users/me`, `GET /v3/api_keys/self`). */
import { z } from 'zod';
import { SCOPE_MODES } from '../../accounts/api-keys.js';
import { AUTH_TYPES } from '../../accounts/principal.js';
import { BILLING_TYPES, PLANS } from '../../accounts/workspaces.js';
import { dataEnvelope, unixSeconds } from '../pipeline/response-envelopes.js';

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
