/** The upload instructions a direct upload returns: a presigned PUT and what to send with it. */
import { config } from '../core/config.js';
import type { ObjectEncryption } from '../media/encryption-policy.js';
import { presignMediaUpload } from '../media/media-store.js';
import type { AssetRecord } from './assets.js';

export async function presignDirectUpload(asset: AssetRecord, encryption: ObjectEncryption) {
  const upload = await presignMediaUpload(
    encryption,
    asset.object_key,
    asset.mime_type,
    asset.size_bytes,
    config().uploadUrlTtlSeconds,
  );
  return {
    asset_id: asset.asset_id,
    upload_url: upload.url,
    upload_headers: upload.headers,
    // What the URL was signed with: UPLOAD_URL_TTL_SECONDS, or less when the signing credentials
    // expire sooner.
    expires_in_seconds: upload.expiresInSeconds,
    // Exactly the declared size: complete refuses anything else.
    max_bytes: asset.size_bytes,
    status: asset.status,
  };
}
