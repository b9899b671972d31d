/** Voices: this area's rows of the route table (lambdas/api/routes.ts), with the endpoints that serve them. */
import { newId } from '../../core/ids.js';
import { designVoices } from '../../voices/designed-voices.js';
import { createSpeech } from '../../voices/speech.js';
import { createVoiceClone } from '../../voices/voice-clones.js';
import { deleteVoice, getVoiceDetail, listVoices } from '../../voices/voices.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { areaRoutes, create, paidCreate, row } from '../route-rows.js';
import {
  cloneVoiceBody,
  designedVoicesBody,
  designVoiceBody,
  listVoicesQuery,
  speechBody,
  speechResponseBody,
  voiceCloneBody,
  voiceDeleteBody,
  voiceDetailBody,
  voiceIdPath,
  voiceListBody,
} from './schemas.js';

const voiceList = endpoint(
  { query: listVoicesQuery },
  async ({ query, principal }) => {
    const page = await listVoices(principal.workspaceId, {
      type: query.type,
      language: query.language,
      gender: query.gender,
      engine: query.engine,
      limit: query.limit,
      token: query.token,
    });
    return respond.list(page.items, page.nextToken);
  },
  { response: voiceListBody },
);

/** `POST /v3/voices`: up to three designed voices for a description, stored as the workspace's own. */
const voiceCreate = endpoint(
  { body: designVoiceBody },
  async ({ body, principal }) =>
    respond.ok(
      await designVoices(principal.workspaceId, {
        prompt: body.prompt,
        gender: body.gender,
        locale: body.locale,
        seed: body.seed,
      }),
    ),
  { response: designedVoicesBody },
);

/** `POST /v3/voices/clone`: 202 with `voice_clone_id`; poll `GET /v3/voices/{voice_clone_id}` until complete. */
const voiceCloneCreate = endpoint(
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
  { successStatus: 202, response: voiceCloneBody },
);

/** `POST /v3/voices/speech`: text or SSML spoken by a voice; a presigned WAV URL with word timings. */
const voiceSpeechCreate = endpoint(
  { body: speechBody },
  async ({ body, principal }) => {
    const { deprecatedEngine, ...speech } = await createSpeech(principal.workspaceId, newId(), body);
    const response = respond.ok(speech);
    return deprecatedEngine
      ? {
          ...response,
          headers: {
            Deprecation: 'true',
            Warning: `299 - "engine ${body.engine} is deprecated; omit engine"`,
          },
        }
      : response;
  },
  { response: speechResponseBody },
);

/** `GET /v3/voices/{voice_id}`: a voice; clones with `status` (poll until `complete`). */
const voiceGet = endpoint(
  { path: voiceIdPath },
  async ({ path, principal }) => respond.ok(await getVoiceDetail(principal.workspaceId, path.voice_id)),
  { response: voiceDetailBody },
);

/** `DELETE /v3/voices/{voice_id}`: deletes an own voice and frees its clone slot. */
const voiceDelete = endpoint(
  { path: voiceIdPath },
  async ({ path, principal }) => {
    await deleteVoice(principal.workspaceId, path.voice_id);
    return respond.ok({ voice_id: path.voice_id });
  },
  { response: voiceDeleteBody },
);

export const AREA_ROUTES = areaRoutes('voices', [
  row('GET', '/v3/voices', 'VoiceList', 'List voices', ['voices:read'], 'read', { endpoint: voiceList }),
  row('POST', '/v3/voices', 'VoiceCreate', 'Design a voice from a description', ['voices:write'], 'write', {
    ...create,
    endpoint: voiceCreate,
  }),
  row('POST', '/v3/voices/clone', 'VoiceCloneCreate', 'Clone a voice from audio', ['voices:write'], 'heavy', {
    ...paidCreate,
    endpoint: voiceCloneCreate,
  }),
  row('POST', '/v3/voices/speech', 'VoiceSpeechCreate', 'Synthesize speech', ['voices:write'], 'write', {
    endpoint: voiceSpeechCreate,
    billing: 'credits',
  }),
  row('GET', '/v3/voices/{voice_id}', 'VoiceGet', 'Get a voice or voice clone', ['voices:read'], 'status', {
    endpoint: voiceGet,
  }),
  row('DELETE', '/v3/voices/{voice_id}', 'VoiceDelete', 'Delete a voice clone', ['voices:write'], 'write', {
    endpoint: voiceDelete,
  }),
]);
