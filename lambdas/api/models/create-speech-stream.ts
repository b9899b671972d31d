import { speakToStream } from '../../model-audio/speech-responses.js';
import { ttsBody } from '../../model-audio/tts-request.js';
import { streamingApiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';

/**
 * `POST /v3/models/audio/tts/stream`: the same speech as a 44.1 kHz mono WAV stream, sent sentence by
 * sentence as it is spoken (chunked). Refusals come before the first byte, as ordinary error responses.
 */
export const handler = streamingApiHandler(
  'ModelAudioTtsStreamCreate',
  { body: ttsBody },
  async ({ body, principal }) => {
    const speech = await speakToStream(principal.workspaceId, body);
    return respond.stream('audio/wav', speech.chunks, { 'Content-Language': speech.language });
  },
);
