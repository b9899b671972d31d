import { assetView, listAssets } from '../../assets/assets.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { listAssetsQuery } from './schemas.js';

export const handler = apiHandler('AssetList', { query: listAssetsQuery }, async ({ query, principal }) => {
  const page = await listAssets(principal.workspaceId, query.limit, query.token);
  return respond.list(await Promise.all(page.items.map(assetView)), page.nextToken);
});
