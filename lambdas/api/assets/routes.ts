/** Assets: this area's rows of the route table (lambdas/api/routes.ts), with the endpoints that serve them. */
import {
  assetBatchView,
  assetStatuses,
  completeBatch,
  createDirectUploadBatch,
} from '../../assets/asset-batches.js';
import {
  assetNotFound,
  assetView,
  completeDirectUpload,
  createPendingAsset,
  deleteAsset,
  getAsset,
  listAssets,
  uploadResult,
} from '../../assets/assets.js';
import { presignDirectUpload } from '../../assets/direct-uploads.js';
import { checkStatusIdCount } from '../../batches/bulk-status.js';
import { assetSearchQuery, searchAssets } from '../../catalog/asset-search.js';
import { encryptionForMediaWrite } from '../../media/encryption-policy.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { areaRoutes, create, row } from '../route-rows.js';
import {
  assetBatchBody,
  assetStatusesBody,
  batchIdPath,
  batchItemsQuery,
  completeBatchBody,
  completeBatchResponseBody,
  directUploadBatchBody,
  directUploadBatchResponseBody,
  statusesQuery,
} from './batch-schemas.js';
import { assetCreate } from './create-asset.js';
import {
  assetBody,
  assetDeletedBody,
  assetIdPath,
  assetListBody,
  assetSearchBody,
  completeAssetBody,
  directUploadBody,
  directUploadFile,
  listAssetsQuery,
  uploadResultBody,
} from './schemas.js';

/** `GET /v3/assets/search`: public or personal images or icons, ranked against `query` (asset-search.ts). */
const assetSearch = endpoint(
  { query: assetSearchQuery },
  async ({ query, principal }) => {
    const page = await searchAssets(principal.workspaceId, {
      query: query.query,
      type: query.type,
      scope: query.scope,
      limit: query.limit,
      token: query.token,
    });
    return respond.list(page.items, page.nextToken);
  },
  { response: assetSearchBody },
);

const assetList = endpoint(
  { query: listAssetsQuery },
  async ({ query, principal }) => {
    const page = await listAssets(
      principal.workspaceId,
      { owner: query.username, folderId: query.folder_id },
      query.limit,
      query.token,
    );
    return respond.list(await Promise.all(page.items.map(assetView)), page.nextToken);
  },
  { response: assetListBody },
);

/** `GET /v3/assets/statuses?asset_ids=…&batch_ids=…`: one entry per asset, batches expanded. */
const assetStatusesList = endpoint(
  { query: statusesQuery },
  async ({ query, principal }) => {
    checkStatusIdCount(query.asset_ids, query.batch_ids, 'asset_ids');
    return respond.list(await assetStatuses(principal.workspaceId, query.asset_ids, query.batch_ids), null);
  },
  { response: assetStatusesBody },
);

/** `POST /v3/assets/direct-uploads`: an asset awaiting its bytes, and where to PUT them. */
const assetDirectUploadsCreate = endpoint(
  { body: directUploadFile },
  async ({ body, principal }) => {
    // Refuse before recording anything when the workspace's encryption forbids media writes.
    const encryption = await encryptionForMediaWrite(principal.workspaceId);
    const asset = await createPendingAsset(principal.workspaceId, principal.username, {
      filename: body.filename,
      mimeType: body.content_type,
      sizeBytes: body.size_bytes,
      checksumSha256: body.checksum_sha256,
    });
    return respond.created(await presignDirectUpload(asset, encryption));
  },
  { successStatus: 201, response: directUploadBody },
);

/** `POST /v3/assets/direct-uploads/batches`: up to 100 direct uploads, as one batch. */
const assetDirectUploadsBatchesCreate = endpoint(
  { body: directUploadBatchBody },
  async ({ body, principal }) =>
    respond.created(
      await createDirectUploadBatch(
        principal.workspaceId,
        principal.username,
        body.files.map((file) => ({
          filename: file.filename,
          mimeType: file.content_type,
          sizeBytes: file.size_bytes,
          checksumSha256: file.checksum_sha256,
        })),
        { title: body.title, callbackUrl: body.callback_url },
      ),
    ),
  { successStatus: 201, response: directUploadBatchResponseBody },
);

/** `POST /v3/assets/complete/batches`: completes every pending item of a batch, asynchronously. */
const assetCompleteBatchesCreate = endpoint(
  { body: completeBatchBody },
  async ({ body, principal }) => {
    const batch = await completeBatch(principal.workspaceId, body.batch_id);
    return respond.accepted({ batch_id: batch.batch_id, status: batch.status });
  },
  { successStatus: 202, response: completeBatchResponseBody },
);

const assetBatchesGet = endpoint(
  { path: batchIdPath, query: batchItemsQuery },
  async ({ path, query, principal }) =>
    respond.ok(await assetBatchView(principal.workspaceId, path.batch_id, query.limit, query.token)),
  { response: assetBatchBody },
);

const assetGet = endpoint(
  { path: assetIdPath },
  async ({ path, principal }) => {
    const asset = await getAsset(principal.workspaceId, path.asset_id);
    if (!asset) throw assetNotFound(path.asset_id);
    return respond.ok(await assetView(asset));
  },
  { response: assetBody },
);

const assetDelete = endpoint(
  { path: assetIdPath },
  async ({ path, principal }) => {
    if (!(await deleteAsset(principal.workspaceId, path.asset_id))) throw assetNotFound(path.asset_id);
    return respond.ok({ id: path.asset_id });
  },
  { response: assetDeletedBody },
);

/** `POST /v3/assets/{asset_id}/complete`: verifies the uploaded bytes and makes the asset ready. */
const assetCompleteCreate = endpoint(
  { path: assetIdPath, body: completeAssetBody },
  async ({ path, body, principal }) =>
    respond.ok(
      await uploadResult(
        await completeDirectUpload(principal.workspaceId, path.asset_id, body.checksum_sha256),
      ),
    ),
  { response: uploadResultBody },
);

export const AREA_ROUTES = areaRoutes('assets', [
  row('GET', '/v3/assets', 'AssetList', 'List assets', ['assets:read'], 'read', { endpoint: assetList }),
  row('POST', '/v3/assets', 'AssetCreate', 'Upload an asset (multipart)', ['assets:write'], 'write', {
    ...create,
    endpoint: assetCreate,
  }),
  row('GET', '/v3/assets/search', 'AssetSearch', 'Search images and icons', ['assets:read'], 'read', {
    endpoint: assetSearch,
  }),
  row('GET', '/v3/assets/statuses', 'AssetStatusesList', 'Bulk asset statuses', ['assets:read'], 'status', {
    endpoint: assetStatusesList,
  }),
  row(
    'POST',
    '/v3/assets/direct-uploads',
    'AssetDirectUploadsCreate',
    'Start a direct upload',
    ['assets:write'],
    'write',
    { ...create, endpoint: assetDirectUploadsCreate },
  ),
  row(
    'POST',
    '/v3/assets/direct-uploads/batches',
    'AssetDirectUploadsBatchesCreate',
    'Start direct uploads in a batch',
    ['assets:write'],
    'write',
    { ...create, endpoint: assetDirectUploadsBatchesCreate },
  ),
  row(
    'POST',
    '/v3/assets/complete/batches',
    'AssetCompleteBatchesCreate',
    'Complete direct uploads in a batch',
    ['assets:write'],
    'write',
    { ...create, endpoint: assetCompleteBatchesCreate },
  ),
  row(
    'GET',
    '/v3/assets/batches/{batch_id}',
    'AssetBatchesGet',
    'Get an asset batch',
    ['assets:read'],
    'status',
    { endpoint: assetBatchesGet },
  ),
  row('GET', '/v3/assets/{asset_id}', 'AssetGet', 'Get an asset', ['assets:read'], 'read', {
    endpoint: assetGet,
  }),
  row('DELETE', '/v3/assets/{asset_id}', 'AssetDelete', 'Delete an asset', ['assets:write'], 'write', {
    endpoint: assetDelete,
  }),
  row(
    'POST',
    '/v3/assets/{asset_id}/complete',
    'AssetCompleteCreate',
    'Complete a direct upload',
    ['assets:write'],
    'write',
    { endpoint: assetCompleteCreate },
  ),
]);
