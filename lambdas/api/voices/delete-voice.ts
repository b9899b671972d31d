import { deleteVoice } from '../../voices/voices.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { voiceIdPath } from './schemas.js';

/** `DELETE /v3/voices/{voice_id}`: deletes an own voice and frees its clone slot. */
export const handler = apiHandler('VoiceDelete', { path: voiceIdPath }, async ({ path, principal }) => {
  await deleteVoice(principal.workspaceId, path.voice_id);
  return respond.ok({ voice_id: path.voice_id });
});
