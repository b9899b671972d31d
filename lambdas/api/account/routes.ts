/** Account and key inspection: this area's rows of the route table (lambdas/api/routes.ts), with the endpoints that serve them. */
import { accountView, callerWorkspace } from '../../accounts/account-view.js';
import { creditSummary, jobsInFlight, usageByPeriod, usageWindow } from '../../billing/usage-report.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { workspaceRateHeadroom } from '../pipeline/rate-limit.js';
import { areaRoutes, row } from '../route-rows.js';
import { accountBody, apiKeySelfBody, usageBody, usageQuery } from './schemas.js';

const userMeGet = endpoint(
  {},
  async ({ principal }) => respond.ok(accountView(await callerWorkspace(principal.workspaceId))),
  { response: accountBody },
);

const usageGet = endpoint(
  { query: usageQuery },
  async ({ query, principal }) => {
    const window = usageWindow(query, new Date());
    const workspace = await callerWorkspace(principal.workspaceId, true);
    const [usage, jobs, rateLimits] = await Promise.all([
      usageByPeriod(principal.workspaceId, window),
      jobsInFlight(workspace),
      workspaceRateHeadroom(principal.workspaceId, principal.plan, principal.rateLimits),
    ]);
    const reserved = jobs.reduce((sum, job) => sum + job.credits_reserved, 0);
    return respond.ok({
      workspace_id: workspace.workspace_id,
      plan: workspace.plan,
      credits: creditSummary(workspace, reserved),
      window,
      usage,
      rate_limits: rateLimits,
      jobs,
    });
  },
  { response: usageBody },
);

const apiKeySelfGet = endpoint(
  {},
  async ({ principal }) =>
    respond.ok({
      key_id: principal.credentialId,
      name: principal.name,
      auth_type: principal.authType,
      workspace_id: principal.workspaceId,
      scope_mode: principal.scopeMode,
      scopes: principal.scopes,
      expires_at: principal.expiresAt,
    }),
  { response: apiKeySelfBody },
);

export const AREA_ROUTES = areaRoutes('account', [
  row('GET', '/v3/users/me', 'UserMeGet', 'Account info with billing and credits', ['account:read'], 'read', {
    endpoint: userMeGet,
  }),
  row(
    'GET',
    '/v3/usage',
    'UsageGet',
    'Credits, usage per period and job type, rate-limit headroom, jobs in flight',
    ['account:read'],
    'read',
    { endpoint: usageGet, extension: true },
  ),
  row('GET', '/v3/api_keys/self', 'ApiKeySelfGet', 'Describe the calling API key', [], 'read', {
    endpoint: apiKeySelfGet,
  }),
]);
