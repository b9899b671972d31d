import { assetNotFound, assetView, getAsset } from '../../assets/assets.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { assetIdPath } from './schemas.js';

export const handler = apiHandler('AssetGet', { path: assetIdPath }, async ({ path, principal }) => {
  const asset = await getAsset(principal.workspaceId, path.asset_id);
  if (!asset) throw assetNotFound(path.asset_id);
  return respond.ok(await assetView(asset));
});
