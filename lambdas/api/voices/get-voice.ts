import { getVoiceDetail } from '../../voices/voices.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { voiceIdPath } from './schemas.js';

/** `GET /v3/voices/{voice_id}`: a voice; clones with `status` (poll until `complete`). */
export const handler = apiHandler('VoiceGet', { path: voiceIdPath }, async ({ path, principal }) =>
  respond.ok(await getVoiceDetail(principal.workspaceId, path.voice_id)),
);
