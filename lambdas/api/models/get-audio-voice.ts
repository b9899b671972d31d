import { apiHandler } from '../../core/api-handler.js';
import { respond } from '../../core/http.js';
import { modelVoicePath, modelVoiceView, requireModelVoice } from '../../model-audio/model-voices.js';

export const handler = apiHandler(
  'ModelAudioVoicesGet',
  { path: modelVoicePath },
  async ({ path, principal }) =>
    respond.ok(modelVoiceView(await requireModelVoice(principal.workspaceId, path.voice_id))),
);
