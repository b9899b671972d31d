import { sameType, storeUploadedAsset, uploadResult } from '../../assets/assets.js';
import { config } from '../../core/config.js';
import { InvalidParameterError } from '../../core/errors.js';
import { detectMediaType, normaliseMimeType } from '../../media/media-types.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { parseSingleFileUpload } from '../pipeline/multipart.js';

/** `POST /v3/assets`: one file in the multipart field `file`; its type is read from its bytes. */
export const assetCreate = endpoint(
  {},
  async ({ rawBody, headers, principal }) => {
    const { file } = await parseSingleFileUpload(
      rawBody,
      headers['content-type'],
      'file',
      config().maxMultipartUploadBytes,
    );
    const detected = await detectMediaType(file.bytes);
    if (!detected) {
      throw new InvalidParameterError(
        'The file is not of a supported type (png, jpeg, webp, mp4, mov, webm, mp3, wav, m4a, pdf, srt, vtt, zip).',
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
      bytes: file.bytes,
      detected,
    });
    return respond.created(await uploadResult(asset));
  },
  { successStatus: 201 },
);
