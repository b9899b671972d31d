import { listModelVoices, listModelVoicesQuery } from '../../model-audio/model-voices.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';

/** `GET /v3/models/audio/voices`: the workspace's audio voices, instant and professional, newest first. */
export const handler = apiHandler(
  'ModelAudioVoicesList',
  { query: listModelVoicesQuery },
  async ({ query, principal }) => {
    const page = await listModelVoices(principal.workspaceId, query.limit, query.token);
    return respond.list(page.items, page.nextToken);
  },
);
