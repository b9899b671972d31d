/** The upload instructions a direct upload returns: a presigned PUT and what to send with it. */
import { config } from '../core/config.js';
import type { ObjectEncryption } from '../media/encryption-policy.js';
import { presignMediaUpload } from '../media/media-store.js';
import type { AssetRecord } from './assets.js';

export async function presignDirectUpload(asset: AssetRecord, encryption: ObjectEncryption) {
  const expiresInSeconds = config().uploadUrlTtlSeconds;
  const upload = await presignMediaUpload(
    encryption,
    asset.object_key,
    asset.mime_type,
    asset.size_bytes,
    expiresInSeconds,
  );
  return {
    asset_id: asset.asset_id,
    upload_url: upload.url,
    upload_headers: upload.headers,
    expires_in_seconds: expiresInSeconds,
    // Exactly the declared size: complete refuses anything else.
    max_bytes: asset.size_bytes,
    status: asset.status,
  };
}
