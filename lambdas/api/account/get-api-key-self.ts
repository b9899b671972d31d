import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';

export const handler = apiHandler('ApiKeySelfGet', {}, async ({ principal }) =>
  respond.ok({
    key_id: principal.credentialId,
    name: principal.name,
    auth_type: principal.authType,
    workspace_id: principal.workspaceId,
    scope_mode: principal.scopeMode,
    scopes: principal.scopes,
    expires_at: principal.expiresAt,
  }),
);
