import { speakToFile } from '../../model-audio/speech-responses.js';
import { ttsBody } from '../../model-audio/tts-request.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';

/**
 * `POST /v3/models/audio/tts`: speaks `text` with an audio voice and answers when it is done, with a
 * presigned URL of the 44.1 kHz mono WAV file, its duration and the words' timings.
 */
export const handler = apiHandler('ModelAudioTtsCreate', { body: ttsBody }, async ({ body, principal }) => {
  const speech = await speakToFile(principal.workspaceId, body);
  return { ...respond.ok(speech.data), headers: { 'Content-Language': speech.language } };
});
