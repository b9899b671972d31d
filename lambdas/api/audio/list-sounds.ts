import { listSounds, listSoundsQuery } from '../../audio/sounds.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';

/** `GET /v3/audio/sounds`: music (default) or sound effects, ranked against `query`, each with a download URL. */
export const handler = apiHandler(
  'AudioSoundsList',
  { query: listSoundsQuery },
  async ({ query, principal }) => {
    const page = await listSounds(principal.workspaceId, {
      type: query.type,
      query: query.query,
      limit: query.limit,
      token: query.token,
    });
    return respond.list(page.items, page.nextToken);
  },
);
