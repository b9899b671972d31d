import { apiHandler } from '../../core/api-handler.js';
import { respond } from '../../core/http.js';
import { rotateCallbackSecret } from '../../webhooks/callback-secret.js';

export const handler = apiHandler('WebhookCallbackSecretRotate', {}, async ({ principal }) =>
  respond.ok(await rotateCallbackSecret(principal.workspaceId)),
);
