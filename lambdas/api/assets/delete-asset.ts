import { assetNotFound, deleteAsset } from '../../assets/assets.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { assetIdPath } from './schemas.js';

export const handler = apiHandler('AssetDelete', { path: assetIdPath }, async ({ path, principal }) => {
  if (!(await deleteAsset(principal.workspaceId, path.asset_id))) throw assetNotFound(path.asset_id);
  return respond.ok({ id: path.asset_id });
});
