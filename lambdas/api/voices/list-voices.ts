import { listVoices } from '../../voices/voices.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { listVoicesQuery } from './schemas.js';

export const handler = apiHandler('VoiceList', { query: listVoicesQuery }, async ({ query, principal }) => {
  const page = await listVoices(principal.workspaceId, {
    type: query.type,
    language: query.language,
    gender: query.gender,
    engine: query.engine,
    limit: query.limit,
    token: query.token,
  });
  return respond.list(page.items, page.nextToken);
});
