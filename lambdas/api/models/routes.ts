/** Models: this area's rows of the route table (lambdas/api/routes.ts), with the endpoints that serve them. */
import { createModelVoice } from '../../model-audio/model-voice-creation.js';
import {
  createModelVoiceBody,
  deleteModelVoice,
  listModelVoices,
  listModelVoicesQuery,
  modelVoiceNotFound,
  modelVoicePath,
  modelVoiceView,
  requireModelVoice,
} from '../../model-audio/model-voices.js';
import { speakToFile, speakToStream } from '../../model-audio/speech-responses.js';
import { ttsBody } from '../../model-audio/tts-request.js';
import { createModelImage } from '../../model-images/create-model-image.js';
import { requireModelImage } from '../../model-images/model-image-records.js';
import { createModelImageBody } from '../../model-images/model-image-request.js';
import { modelImageView } from '../../model-images/model-image-views.js';
import { createModelVideo } from '../../model-videos/create-model-video.js';
import { requireModelVideo } from '../../model-videos/model-video-records.js';
import { createModelVideoBody } from '../../model-videos/model-video-request.js';
import { modelVideoView } from '../../model-videos/model-video-views.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { apiCreditCreate, areaRoutes, row } from '../route-rows.js';
import {
  modelImageBody,
  modelImageCreatedBody,
  modelImagePath,
  modelVideoBody,
  modelVideoCreatedBody,
  modelVideoPath,
  modelVoiceBody,
  modelVoiceDeleteBody,
  modelVoiceListBody,
  ttsFileBody,
} from './schemas.js';

/** `GET /v3/models/audio/voices`: the workspace's audio voices, instant and professional, newest first. */
const modelAudioVoicesList = endpoint(
  { query: listModelVoicesQuery },
  async ({ query, principal }) => {
    const page = await listModelVoices(principal.workspaceId, query.limit, query.token);
    return respond.list(page.items, page.nextToken);
  },
  { response: modelVoiceListBody },
);

/**
 * `POST /v3/models/audio/voices`: 202 with the voice, `PENDING`; poll `GET /v3/models/audio/voices/{voice_id}`
 * until it is `ACTIVE` or `FAILED`. With `mode: professional` and `voice_id`, retrains that voice.
 */
const modelAudioVoicesCreate = endpoint(
  { body: createModelVoiceBody },
  async ({ body, principal }) =>
    respond.accepted(
      modelVoiceView(
        await createModelVoice({ workspaceId: principal.workspaceId, plan: principal.plan }, body),
      ),
    ),
  { successStatus: 202, response: modelVoiceBody },
);

const modelAudioVoicesGet = endpoint(
  { path: modelVoicePath },
  async ({ path, principal }) =>
    respond.ok(modelVoiceView(await requireModelVoice(principal.workspaceId, path.voice_id))),
  { response: modelVoiceBody },
);

/** `DELETE /v3/models/audio/voices/{voice_id}`: `{status: "ok"}`, again for a voice deleted before. */
const modelAudioVoicesDelete = endpoint(
  { path: modelVoicePath },
  async ({ path, principal }) => {
    if (!(await deleteModelVoice(principal.workspaceId, path.voice_id)))
      throw modelVoiceNotFound(path.voice_id);
    return respond.ok({ status: 'ok' });
  },
  { response: modelVoiceDeleteBody },
);

/**
 * `POST /v3/models/audio/tts`: speaks `text` with an audio voice and answers when it is done, with a
 * presigned URL of the 44.1 kHz mono WAV file, its duration and the words' timings.
 */
const modelAudioTtsCreate = endpoint(
  { body: ttsBody },
  async ({ body, principal }) => {
    const speech = await speakToFile(principal.workspaceId, body);
    return { ...respond.ok(speech.data), headers: { 'Content-Language': speech.language } };
  },
  { response: ttsFileBody },
);

/**
 * `POST /v3/models/audio/tts/stream`: the same speech as a 44.1 kHz mono WAV stream, sent sentence by
 * sentence as it is spoken (chunked). Refusals come before the first byte, as ordinary error responses.
 */
const modelAudioTtsStreamCreate = endpoint({ body: ttsBody }, async ({ body, principal }) => {
  const speech = await speakToStream(principal.workspaceId, body);
  return respond.stream('audio/wav', speech.chunks, { 'Content-Language': speech.language });
});

/**
 * `POST /v3/models/videos`: 202 with the `video_id`, `pending`; poll `GET /v3/models/videos/{video_id}`
 * until it is `completed` or `failed`.
 */
const modelVideosCreate = endpoint(
  { body: createModelVideoBody },
  async ({ body, principal }) => {
    const record = await createModelVideo({ workspaceId: principal.workspaceId, plan: principal.plan }, body);
    return respond.accepted({ video_id: record.video_id, status: record.status });
  },
  { successStatus: 202, response: modelVideoCreatedBody },
);

const modelVideosGet = endpoint(
  { path: modelVideoPath },
  async ({ path, principal }) =>
    respond.ok(await modelVideoView(await requireModelVideo(principal.workspaceId, path.video_id))),
  { response: modelVideoBody },
);

/**
 * `POST /v3/models/images`: 202 with the `generation_id`, `pending`; poll
 * `GET /v3/models/images/{generation_id}` until it is `completed` (every image) or `failed`.
 */
const modelImagesCreate = endpoint(
  { body: createModelImageBody },
  async ({ body, principal }) => {
    const record = await createModelImage(principal.workspaceId, body);
    return respond.accepted({ generation_id: record.generation_id, status: record.status });
  },
  { successStatus: 202, response: modelImageCreatedBody },
);

const modelImagesGet = endpoint(
  { path: modelImagePath },
  async ({ path, principal }) =>
    respond.ok(await modelImageView(await requireModelImage(principal.workspaceId, path.generation_id))),
  { response: modelImageBody },
);

export const AREA_ROUTES = areaRoutes('models', [
  row(
    'GET',
    '/v3/models/audio/voices',
    'ModelAudioVoicesList',
    'List audio voices',
    ['voices:read'],
    'read',
    { endpoint: modelAudioVoicesList },
  ),
  row(
    'POST',
    '/v3/models/audio/voices',
    'ModelAudioVoicesCreate',
    'Create an instant or professional voice',
    ['voices:write'],
    'heavy',
    { ...apiCreditCreate, endpoint: modelAudioVoicesCreate },
  ),
  row(
    'GET',
    '/v3/models/audio/voices/{voice_id}',
    'ModelAudioVoicesGet',
    'Get an audio voice',
    ['voices:read'],
    'status',
    { endpoint: modelAudioVoicesGet },
  ),
  row(
    'DELETE',
    '/v3/models/audio/voices/{voice_id}',
    'ModelAudioVoicesDelete',
    'Delete an audio voice',
    ['voices:write'],
    'write',
    { endpoint: modelAudioVoicesDelete },
  ),
  row('POST', '/v3/models/audio/tts', 'ModelAudioTtsCreate', 'Text to speech', ['voices:write'], 'write', {
    endpoint: modelAudioTtsCreate,
    billing: 'api_credits_only',
  }),
  row(
    'POST',
    '/v3/models/audio/tts/stream',
    'ModelAudioTtsStreamCreate',
    'Text to speech, streamed',
    ['voices:write'],
    'write',
    { endpoint: modelAudioTtsStreamCreate, billing: 'api_credits_only', responseStreaming: true },
  ),
  row('POST', '/v3/models/images', 'ModelImagesCreate', 'Generate images', ['images:write'], 'heavy', {
    ...apiCreditCreate,
    endpoint: modelImagesCreate,
  }),
  row(
    'GET',
    '/v3/models/images/{generation_id}',
    'ModelImagesGet',
    'Get an image generation',
    ['images:read'],
    'status',
    { endpoint: modelImagesGet },
  ),
  row(
    'POST',
    '/v3/models/videos',
    'ModelVideosCreate',
    'Generate a short video by model',
    ['videos:write'],
    'heavy',
    { ...apiCreditCreate, endpoint: modelVideosCreate },
  ),
  row(
    'GET',
    '/v3/models/videos/{video_id}',
    'ModelVideosGet',
    'Get a model video',
    ['videos:read'],
    'status',
    { endpoint: modelVideosGet },
  ),
]);
