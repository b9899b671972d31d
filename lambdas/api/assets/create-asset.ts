import { sameType, storeUploadedAsset, uploadResult } from '../../assets/assets.js';
import { describeBytes, maxMultipartBodyBytes } from '../../assets/upload-limits.js';
import { config } from '../../core/config.js';
import { InvalidParameterError, PayloadTooLargeError } from '../../core/errors.js';
import { requireUsableFolder } from '../../folders/folders.js';
import { detectMediaType, normaliseMimeType } from '../../media/media-types.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { parseSingleFileUpload } from '../pipeline/multipart.js';
import { uploadResultBody } from './schemas.js';

/** 413 naming the cap (`MAX_MULTIPART_UPLOAD_BYTES`) and the way to send larger files. */
function fileTooLarge(maxFileBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError(
    `The file exceeds this deployment's limit of ${describeBytes(maxFileBytes)} (${maxFileBytes} bytes) for POST /v3/assets. Upload larger files with a direct upload: POST /v3/assets/direct-uploads.`,
    'file',
  );
}

/**
 * `POST /v3/assets`: one file in the multipart field `file`; its type is read from its bytes. An
 * optional form field `folder_id` files it in a folder.
 */
export const assetCreate = endpoint(
  {},
  async ({ rawBody, headers, principal }) => {
    const maxFileBytes = config().maxMultipartUploadBytes;
    // A body longer than the cap plus multipart framing cannot hold a file within the cap: refuse it
    // before parsing. The body's own length is used, not `Content-Length`: the whole body is already
    // here (Lambda receives it in the event), so its length is exact and a missing or wrong header
    // changes nothing. Bodies within the allowance are parsed, and the parser's count of the file's
    // bytes decides.
    if (rawBody.length > maxMultipartBodyBytes(maxFileBytes)) throw fileTooLarge(maxFileBytes);
    const { file, fields } = await parseSingleFileUpload(
      rawBody,
      headers['content-type'],
      'file',
      maxFileBytes,
      () => fileTooLarge(maxFileBytes),
    );
    // The form's `folder_id` is checked as every create's is: the workspace's folder, able to hold assets.
    const folderId = fields.folder_id;
    if (folderId !== undefined) {
      if (folderId === '') throw new InvalidParameterError('`folder_id`: must not be empty', 'folder_id');
      await requireUsableFolder(principal.workspaceId, folderId, 'folder_id', 'asset');
    }
    const detected = await detectMediaType(file.bytes);
    if (!detected) {
      throw new InvalidParameterError(
        'The file is not of a supported type (png, jpeg, webp, mp4, mov, webm, mp3, wav, m4a, pdf, srt, vtt, zip, ttf, otf).',
        'file',
      );
    }
    // A part that names a type must name the right one: a mislabelled file is refused, not guessed.
    const declared = normaliseMimeType(file.declaredType);
    const generic =
      /^(application\/octet-stream|binary\/octet-stream)$/i.test(file.declaredType) ||
      file.declaredType === '';
    if (!generic && (!declared || !sameType(declared, detected))) {
      throw new InvalidParameterError(
        `The file is ${detected.mimeType} but was sent as ${file.declaredType}.`,
        'file',
      );
    }
    const asset = await storeUploadedAsset({
      workspaceId: principal.workspaceId,
      owner: principal.username,
      name: file.name,
      folderId,
      bytes: file.bytes,
      detected,
    });
    return respond.created(await uploadResult(asset));
  },
  { successStatus: 201, response: uploadResultBody },
);
