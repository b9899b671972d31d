/**
 * Assets: files a workspace uploaded, by multipart POST or by direct upload (presigned PUT, then
 * complete). A direct upload goes straight to the asset's key, tagged pending; completing verifies
 * the object's size, SHA-256 and real type and removes the tag, so the bytes never move. A mismatch
 * fails the asset with a message that says what differed, and the uploaded object is deleted.
 */
import { createHash } from 'node:crypto';
import { batchItemSortKey, batchItemsPartition, recordBatchItemOutcome } from '../batches/batches.js';
import { ConflictError, InvalidParameterError, NotFoundError } from '../core/errors.js';
import { ID_PATTERN, newId, nowSeconds } from '../core/ids.js';
import {
  deleteExistingItem,
  getItem,
  putNewItem,
  queryPage,
  queryWorkspaceResources,
  updateExistingItem,
} from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import { mediaKeys } from '../media/media-keys.js';
import {
  copyMediaObject,
  deleteMediaObject,
  headMediaObject,
  presignMediaDownload,
  putMediaObject,
  readMediaHead,
  readMediaStream,
} from '../media/media-store.js';
import {
  ACCEPTED_MEDIA_TYPES,
  type AcceptedMimeType,
  type DetectedMedia,
  detectMediaType,
  type MediaKind,
  SNIFF_BYTES,
} from '../media/media-types.js';

export const ASSET_STATUS = { pendingUpload: 'pending_upload', ready: 'ready', failed: 'failed' } as const;
export type AssetStatus = (typeof ASSET_STATUS)[keyof typeof ASSET_STATUS];

export interface AssetRecord {
  asset_id: string;
  name: string;
  kind: MediaKind;
  mime_type: AcceptedMimeType;
  size_bytes: number;
  status: AssetStatus;
  owner: string;
  workspace_id: string;
  folder_id: string | null;
  object_key: string;
  checksum_sha256: string | null;
  failure_message: string | null;
  batch_id: string | null;
  item_index: number | null;
  created_at: number;
  uploaded_at: number | null;
}

export type AssetItem = AssetRecord & { pk: string; sk: string; gsi1pk?: string; gsi1sk?: string };

const assetKey = (workspaceId: string, assetId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.asset, assetId);

export function toAssetRecord(item: AssetItem): AssetRecord {
  // Batch members also carry GSI1 keys (their place in the batch); none of the keys are the asset's.
  const { pk: _pk, sk: _sk, gsi1pk: _gsi1pk, gsi1sk: _gsi1sk, ...asset } = item;
  return asset;
}

export const assetNotFound = (assetId: string, param = 'asset_id') =>
  new NotFoundError(`Asset ${assetId} not found.`, 'asset_not_found', param);

export async function getAsset(workspaceId: string, assetId: string): Promise<AssetRecord | undefined> {
  if (!ID_PATTERN.test(assetId)) return undefined;
  const item = await getItem<AssetItem>(assetKey(workspaceId, assetId), true);
  return item ? toAssetRecord(item) : undefined;
}

/** The asset as the API shows it (the reference's fields, plus status and size). */
export async function assetView(asset: AssetRecord) {
  return {
    id: asset.asset_id,
    name: asset.name,
    type: asset.kind,
    mime_type: asset.mime_type,
    size_bytes: asset.size_bytes,
    status: asset.status,
    owner: asset.owner,
    space_id: asset.workspace_id,
    folder_id: asset.folder_id,
    // Until an upload is complete, when its record was made.
    uploaded_at: asset.uploaded_at ?? asset.created_at,
    url:
      asset.status === ASSET_STATUS.ready
        ? await presignMediaDownload(asset.object_key, { fileName: asset.name, contentType: asset.mime_type })
        : null,
    ...(asset.failure_message ? { failure_message: asset.failure_message } : {}),
  };
}

/** What a finished upload returns: `asset_id`, `url`, `mime_type`, `size_bytes` (and `status`). */
export async function uploadResult(asset: AssetRecord) {
  return {
    asset_id: asset.asset_id,
    url: await presignMediaDownload(asset.object_key, { fileName: asset.name, contentType: asset.mime_type }),
    mime_type: asset.mime_type,
    size_bytes: asset.size_bytes,
    status: asset.status,
  };
}

/** Whether the bytes are what the client said they are (declared types are normalised first, so `image/jpg` is `image/jpeg`). */
export function sameType(declared: AcceptedMimeType, detected: DetectedMedia): boolean {
  return declared === detected.mimeType;
}

export interface StoreUploadInput {
  workspaceId: string;
  owner: string;
  name: string;
  bytes: Uint8Array;
  detected: DetectedMedia;
  /** A folder already checked to be the workspace's and to hold assets. */
  folderId?: string | undefined;
}

/** Stores a file received whole (multipart) and records it as ready. */
export async function storeUploadedAsset(input: StoreUploadInput): Promise<AssetRecord> {
  const assetId = newId();
  const objectKey = mediaKeys.asset(input.workspaceId, assetId);
  await putMediaObject(input.workspaceId, objectKey, input.bytes, input.detected.mimeType);
  const now = nowSeconds();
  const asset: AssetRecord = {
    asset_id: assetId,
    name: input.name,
    kind: input.detected.kind,
    mime_type: input.detected.mimeType,
    size_bytes: input.bytes.length,
    status: ASSET_STATUS.ready,
    owner: input.owner,
    workspace_id: input.workspaceId,
    folder_id: input.folderId ?? null,
    object_key: objectKey,
    checksum_sha256: createHash('sha256').update(input.bytes).digest('hex'),
    failure_message: null,
    batch_id: null,
    item_index: null,
    created_at: now,
    uploaded_at: now,
  };
  if (!(await putNewItem({ ...assetKey(input.workspaceId, assetId), ...asset }))) {
    throw new Error(`Asset id collision: ${assetId}`);
  }
  return asset;
}

export interface DirectUploadRequest {
  filename: string;
  mimeType: AcceptedMimeType;
  sizeBytes: number;
  checksumSha256?: string | undefined;
  batchId?: string | undefined;
  itemIndex?: number | undefined;
}

/** Records a direct upload awaiting its bytes. */
export async function createPendingAsset(
  workspaceId: string,
  owner: string,
  request: DirectUploadRequest,
): Promise<AssetRecord> {
  const assetId = newId();
  const asset: AssetRecord = {
    asset_id: assetId,
    name: request.filename,
    // The declared kind until completion checks the bytes.
    kind: ACCEPTED_MEDIA_TYPES[request.mimeType].kind,
    mime_type: request.mimeType,
    size_bytes: request.sizeBytes,
    status: ASSET_STATUS.pendingUpload,
    owner,
    workspace_id: workspaceId,
    folder_id: null,
    object_key: mediaKeys.pendingUpload(workspaceId, assetId),
    checksum_sha256: request.checksumSha256?.toLowerCase() ?? null,
    failure_message: null,
    batch_id: request.batchId ?? null,
    item_index: request.itemIndex ?? null,
    created_at: nowSeconds(),
    uploaded_at: null,
  };
  // A batch member is also listed under its batch, in item order.
  const batchListing =
    request.batchId !== undefined && request.itemIndex !== undefined
      ? {
          gsi1pk: batchItemsPartition(workspaceId, request.batchId),
          gsi1sk: batchItemSortKey(request.itemIndex),
        }
      : {};
  if (!(await putNewItem({ ...assetKey(workspaceId, assetId), ...batchListing, ...asset }))) {
    throw new Error(`Asset id collision: ${assetId}`);
  }
  return asset;
}

async function sha256Of(objectKey: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of await readMediaStream(objectKey)) hash.update(chunk);
  return hash.digest('hex');
}

/** Counts a batch member's terminal outcome; safe to repeat (the batch counts each item once). */
async function countInBatch(asset: AssetRecord, outcome: 'succeeded' | 'failed'): Promise<void> {
  if (asset.batch_id)
    await recordBatchItemOutcome(asset.workspace_id, asset.batch_id, asset.asset_id, outcome);
}

/**
 * Marks a pending direct upload failed, then deletes what was uploaded. The status changes first
 * (conditionally): a concurrent completion sees the upload fail, never a vanished object.
 */
export async function markUploadFailed(asset: AssetRecord, message: string): Promise<void> {
  const failed = await updateExistingItem<AssetItem>(
    assetKey(asset.workspace_id, asset.asset_id),
    { status: ASSET_STATUS.failed, failure_message: message },
    [],
    { status: ASSET_STATUS.pendingUpload },
  );
  if (!failed) return;
  await deleteMediaObject(asset.object_key);
  await countInBatch(asset, 'failed');
}

/** Fails the upload and answers 400 naming the field that did not match. */
async function failUpload(asset: AssetRecord, message: string, param: string): Promise<never> {
  await markUploadFailed(asset, message);
  throw new InvalidParameterError(message, param);
}

/** The answer for an upload that is no longer pending (finished by another request). */
async function settled(asset: AssetRecord): Promise<AssetRecord> {
  if (asset.status === ASSET_STATUS.failed) {
    throw new InvalidParameterError(
      `The upload of asset ${asset.asset_id} failed: ${asset.failure_message}`,
      'asset_id',
    );
  }
  return asset;
}

/**
 * Completes a direct upload: the uploaded object must exist and match the declared size, SHA-256
 * and type; it is then copied to the asset's key with the workspace's current encryption. Idempotent:
 * a ready asset is returned as it is. Called before the upload is visible, it answers 409
 * `resource_not_ready` and the client retries.
 */
export async function completeDirectUpload(
  workspaceId: string,
  assetId: string,
  checksumSha256?: string,
): Promise<AssetRecord> {
  const asset = await getAsset(workspaceId, assetId);
  if (!asset) throw assetNotFound(assetId);
  if (asset.status !== ASSET_STATUS.pendingUpload) {
    // A repeat after a crash between the transition and the batch count must still count it.
    await countInBatch(asset, asset.status === ASSET_STATUS.ready ? 'succeeded' : 'failed');
    return settled(asset);
  }

  const uploaded = await headMediaObject(asset.object_key);
  if (!uploaded) {
    const current = await getAsset(workspaceId, assetId);
    if (current && current.status !== ASSET_STATUS.pendingUpload) return settled(current);
    throw new ConflictError(
      `Nothing has been uploaded for asset ${assetId} yet. PUT the file to its upload_url, then complete again.`,
      'resource_not_ready',
      { param: 'asset_id' },
    );
  }
  if (uploaded.size !== asset.size_bytes) {
    return failUpload(
      asset,
      `The upload has ${uploaded.size} bytes; ${asset.size_bytes} were declared.`,
      'size_bytes',
    );
  }
  let actualChecksum: string;
  let detected: DetectedMedia | undefined;
  try {
    actualChecksum = await sha256Of(asset.object_key);
    detected = await detectMediaType(await readMediaHead(asset.object_key, SNIFF_BYTES));
  } catch (error) {
    // The object went away while being read: another completion failed it meanwhile.
    const current = await getAsset(workspaceId, assetId);
    if (current && current.status !== ASSET_STATUS.pendingUpload) return settled(current);
    throw error;
  }
  const expectedChecksum = checksumSha256?.toLowerCase() ?? asset.checksum_sha256;
  if (expectedChecksum && expectedChecksum !== actualChecksum) {
    return failUpload(
      asset,
      `The upload's SHA-256 is ${actualChecksum}; ${expectedChecksum} was declared.`,
      'checksum_sha256',
    );
  }
  if (!detected) return failUpload(asset, 'The uploaded file is not of a supported type.', 'content_type');
  if (!sameType(asset.mime_type, detected)) {
    return failUpload(
      asset,
      `The uploaded file is ${detected.mimeType}, not the declared ${asset.mime_type}.`,
      'content_type',
    );
  }

  // The copy applies the workspace's encryption as it is now (409 while a key setup is pending).
  const assetObjectKey = mediaKeys.asset(workspaceId, assetId);
  try {
    await copyMediaObject(workspaceId, asset.object_key, assetObjectKey, detected.mimeType);
  } catch (error) {
    const current = await getAsset(workspaceId, assetId);
    if (current && current.status !== ASSET_STATUS.pendingUpload) return settled(current);
    throw error;
  }
  const completed = await updateExistingItem<AssetItem>(
    assetKey(workspaceId, assetId),
    {
      status: ASSET_STATUS.ready,
      kind: detected.kind,
      object_key: assetObjectKey,
      checksum_sha256: actualChecksum,
      uploaded_at: nowSeconds(),
    },
    [],
    { status: ASSET_STATUS.pendingUpload },
  );
  if (!completed) {
    const current = await getAsset(workspaceId, assetId);
    if (!current) throw assetNotFound(assetId);
    return settled(current);
  }
  await deleteMediaObject(asset.object_key);
  await countInBatch(asset, 'succeeded');
  return toAssetRecord(completed);
}

export interface AssetListFilter {
  /** Only this member's assets (`owner`). */
  owner?: string | undefined;
  /** Only assets in this folder; `''` for those at the root. */
  folderId?: string | undefined;
}

export async function listAssets(
  workspaceId: string,
  filter: AssetListFilter,
  limit: number,
  token?: string,
) {
  const { owner, folderId } = filter;
  const page =
    owner === undefined && folderId === undefined
      ? await queryWorkspaceResources<AssetItem>(workspaceId, RESOURCE_TYPES.asset, 'AssetList', limit, token)
      : await queryPage<AssetItem>({
          partition: keys.workspacePartition(workspaceId),
          sortKeyPrefix: `${RESOURCE_TYPES.asset}#`,
          limit,
          token,
          binding: `${workspaceId}:AssetList:${JSON.stringify([owner ?? null, folderId ?? null])}`,
          keep: (item) =>
            (owner === undefined || item.owner === owner) &&
            (folderId === undefined || (item.folder_id ?? '') === folderId),
        });
  return { items: page.items.map(toAssetRecord), nextToken: page.nextToken };
}

/**
 * Deletes an asset and its media. The record goes first: a crash leaves an unreferenced object at
 * worst, never an asset whose media is gone. A pending batch member counts as failed, so its batch
 * still finishes.
 */
export async function deleteAsset(workspaceId: string, assetId: string): Promise<boolean> {
  const asset = await getAsset(workspaceId, assetId);
  if (!asset) return false;
  if (asset.status === ASSET_STATUS.pendingUpload)
    await markUploadFailed(asset, 'The asset was deleted before its upload was completed.');
  if (!(await deleteExistingItem(assetKey(workspaceId, assetId)))) return false;
  await deleteMediaObject(asset.object_key);
  return true;
}
