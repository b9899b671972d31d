import { assetNotFound, assetView, getAsset } from '../../assets/assets.js';
import { apiHandler } from '../../core/api-handler.js';
import { respond } from '../../core/http.js';
import { assetIdPath } from './schemas.js';

export const handler = apiHandler('AssetGet', { path: assetIdPath }, async ({ path, principal }) => {
  const asset = await getAsset(principal.workspaceId, path.asset_id);
  if (!asset) throw assetNotFound(path.asset_id);
  return respond.ok(await assetView(asset));
});
