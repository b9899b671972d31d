import { createModelVoice, createModelVoiceBody, modelVoiceView } from '../../model-audio/model-voices.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';

/**
 * `POST /v3/models/audio/voices`: 202 with the voice, `PENDING`; poll `GET /v3/models/audio/voices/{voice_id}`
 * until it is `ACTIVE` or `FAILED`. With `mode: professional` and `voice_id`, retrains that voice.
 */
export const handler = apiHandler(
  'ModelAudioVoicesCreate',
  { body: createModelVoiceBody },
  async ({ body, principal }) =>
    respond.accepted(
      modelVoiceView(
        await createModelVoice({ workspaceId: principal.workspaceId, plan: principal.plan }, body),
      ),
    ),
  { successStatus: 202 },
);
