import { createDirectUploadBatch } from '../../assets/asset-batches.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { directUploadBatchBody } from './batch-schemas.js';

/** `POST /v3/assets/direct-uploads/batches`: up to 100 direct uploads, as one batch. */
export const handler = apiHandler(
  'AssetDirectUploadsBatchesCreate',
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
  { successStatus: 201 },
);
