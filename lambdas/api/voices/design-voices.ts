import { designVoices } from '../../voices/designed-voices.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { designVoiceBody } from './schemas.js';

/** `POST /v3/voices`: up to three designed voices for a description, stored as the workspace's own. */
export const handler = apiHandler('VoiceCreate', { body: designVoiceBody }, async ({ body, principal }) =>
  respond.ok(
    await designVoices(principal.workspaceId, {
      prompt: body.prompt,
      gender: body.gender,
      locale: body.locale,
      seed: body.seed,
    }),
  ),
);
