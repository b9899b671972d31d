import { createVoiceClone } from '../../voices/voice-clones.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { cloneVoiceBody } from './schemas.js';

/** `POST /v3/voices/clone`: 202 with `voice_clone_id`; poll `GET /v3/voices/{voice_clone_id}` until complete. */
export const handler = apiHandler(
  'VoiceCloneCreate',
  { body: cloneVoiceBody },
  async ({ body, principal }) => {
    const clone = await createVoiceClone(principal.workspaceId, {
      audio: body.audio,
      voice_name: body.voice_name.trim(),
      language: body.language,
      remove_background_noise: body.remove_background_noise,
    });
    return respond.accepted({ voice_clone_id: clone.voice_id, status: clone.status });
  },
  { successStatus: 202 },
);
