/** `multipart/form-data` bodies (uploads), parsed with busboy under a size cap. */
import busboy from 'busboy';
import { InvalidParameterError, type ServiceError } from '../../core/errors.js';
import { stripControlCharacters } from '../../core/text.js';

export interface UploadedFile {
  /**
   * The client's file name, without any path or control characters: UTF-8 (RFC 7578), or the
   * `filename*` parameter (RFC 5987) when the part has one.
   */
  name: string;
  /** The part's declared Content-Type. */
  declaredType: string;
  bytes: Buffer;
}

export interface MultipartUpload {
  file: UploadedFile;
  fields: Record<string, string>;
}

/**
 * Parses a body holding exactly one file in `fileField`; answers 400 naming that field otherwise, and
 * `fileTooLarge()` (the caller's words: it knows why its cap is what it is) for a file over
 * `maxFileBytes`.
 */
export function parseSingleFileUpload(
  body: Buffer,
  contentType: string | undefined,
  fileField: string,
  maxFileBytes: number,
  fileTooLarge: () => ServiceError,
): Promise<MultipartUpload> {
  if (!contentType || !/^multipart\/form-data\b/i.test(contentType)) {
    return Promise.reject(
      new InvalidParameterError(
        `Send the file as multipart/form-data in the field \`${fileField}\`.`,
        fileField,
      ),
    );
  }
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        // busboy reports the limit once a file *reaches* `fileSize`, so a file of exactly
        // `maxFileBytes` needs one byte more of room.
        limits: { files: 1, fileSize: maxFileBytes + 1, fields: 20 },
        // RFC 7578 §4.2: a plain `filename` is UTF-8 (browsers send it so); busboy's default is
        // Latin-1, which stores `résumé.png` as `rÃ©sumÃ©.png`. `filename*` names its own charset.
        defParamCharset: 'utf8',
      });
    } catch {
      reject(new InvalidParameterError('The multipart body is malformed (no boundary).', fileField));
      return;
    }
    const fields: Record<string, string> = {};
    let file: UploadedFile | undefined;
    let failure: ServiceError | undefined;
    parser.on('file', (name, stream, info) => {
      // A truncated body ends the part with an error; the parser reports it as a whole below.
      stream.on('error', () => {
        failure ??= new InvalidParameterError('The multipart body is malformed.', fileField);
      });
      if (name !== fileField || file) {
        failure ??= new InvalidParameterError(
          `Send exactly one file, in the field \`${fileField}\`.`,
          name === fileField ? fileField : name,
        );
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        failure ??= fileTooLarge();
      });
      stream.on('close', () => {
        file = {
          name: uploadedFileName(info.filename),
          declaredType: info.mimeType,
          bytes: Buffer.concat(chunks),
        };
      });
    });
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('filesLimit', () => {
      failure ??= new InvalidParameterError(
        `Send exactly one file, in the field \`${fileField}\`.`,
        fileField,
      );
    });
    parser.on('error', () =>
      reject(failure ?? new InvalidParameterError('The multipart body is malformed.', fileField)),
    );
    parser.on('close', () => {
      if (failure) return reject(failure);
      if (!file) return reject(new InvalidParameterError(`\`${fileField}\` is required.`, fileField));
      if (file.bytes.length === 0) return reject(new InvalidParameterError('The file is empty.', fileField));
      resolve({ file, fields });
    });
    parser.end(body);
  });
}

/** The stored name of an uploaded file: its last path segment, without control characters. */
function uploadedFileName(sent: string | undefined): string {
  const name = stripControlCharacters((sent ?? '').split(/[\\/]/).pop() ?? '').trim();
  return name || 'upload';
}
