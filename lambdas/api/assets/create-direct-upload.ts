import { createPendingAsset } from '../../assets/assets.js';
import { presignDirectUpload } from '../../assets/direct-uploads.js';
import { encryptionForMediaWrite } from '../../media/encryption-policy.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { directUploadFile } from './schemas.js';

/** `POST /v3/assets/direct-uploads`: an asset awaiting its bytes, and where to PUT them. */
export const handler = apiHandler(
  'AssetDirectUploadsCreate',
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
  { successStatus: 201 },
);
