import { completeDirectUpload, uploadResult } from '../../assets/assets.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { assetIdPath, completeAssetBody } from './schemas.js';

/** `POST /v3/assets/{asset_id}/complete`: verifies the uploaded bytes and makes the asset ready. */
export const handler = apiHandler(
  'AssetCompleteCreate',
  { path: assetIdPath, body: completeAssetBody },
  async ({ path, body, principal }) =>
    respond.ok(
      await uploadResult(
        await completeDirectUpload(principal.workspaceId, path.asset_id, body.checksum_sha256),
      ),
    ),
);
