import { deleteModelVoice, modelVoiceNotFound, modelVoicePath } from '../../model-audio/model-voices.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';

/** `DELETE /v3/models/audio/voices/{voice_id}`: `{status: "ok"}`, again for a voice deleted before. */
export const handler = apiHandler(
  'ModelAudioVoicesDelete',
  { path: modelVoicePath },
  async ({ path, principal }) => {
    if (!(await deleteModelVoice(principal.workspaceId, path.voice_id)))
      throw modelVoiceNotFound(path.voice_id);
    return respond.ok({ status: 'ok' });
  },
);
