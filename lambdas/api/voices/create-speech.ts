import { newId } from '../../core/ids.js';
import { createSpeech } from '../../voices/speech.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { speechBody } from './schemas.js';

/** `POST /v3/voices/speech`: text or SSML spoken by a voice; a presigned WAV URL with word timings. */
export const handler = apiHandler('VoiceSpeechCreate', { body: speechBody }, async ({ body, principal }) => {
  const { deprecatedEngine, ...speech } = await createSpeech(principal.workspaceId, newId(), body);
  const response = respond.ok(speech);
  return deprecatedEngine
    ? {
        ...response,
        headers: { Deprecation: 'true', Warning: `299 - "engine ${body.engine} is deprecated; omit engine"` },
      }
    : response;
});
