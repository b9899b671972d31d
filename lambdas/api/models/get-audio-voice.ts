import { modelVoicePath, modelVoiceView, requireModelVoice } from '../../model-audio/model-voices.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';

export const handler = apiHandler(
  'ModelAudioVoicesGet',
  { path: modelVoicePath },
  async ({ path, principal }) =>
    respond.ok(modelVoiceView(await requireModelVoice(principal.workspaceId, path.voice_id))),
);
