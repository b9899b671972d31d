import { rotateCallbackSecret } from '../../webhooks/callback-secret.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';

export const handler = apiHandler('WebhookCallbackSecretRotate', {}, async ({ principal }) =>
  respond.ok(await rotateCallbackSecret(principal.workspaceId)),
);
