/**
 * Direct uploads: the API presigns a PUT to the media bucket, the browser sends the file straight
 * there (XMLHttpRequest, since fetch reports no upload progress), then the API completes the asset.
 * The same path serves the assets page, photo avatars and voice clones.
 */
import { postData } from './api.ts';

interface DirectUpload {
  asset_id: string;
  upload_url: string;
  upload_headers: Record<string, string>;
}

/** Headers the browser sets itself and refuses from scripts. */
const BROWSER_HEADERS = new Set(['content-length', 'host']);

function put(upload: DirectUpload, file: File, onProgress: (fraction: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('PUT', upload.upload_url);
    for (const [name, value] of Object.entries(upload.upload_headers)) {
      if (!BROWSER_HEADERS.has(name.toLowerCase())) request.setRequestHeader(name, value);
    }
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    });
    request.addEventListener('load', () =>
      request.status >= 200 && request.status < 300
        ? resolve()
        : reject(new Error(`The media store refused the upload (${request.status}).`)),
    );
    request.addEventListener('error', () => reject(new Error('The upload was interrupted.')));
    request.send(file);
  });
}

export async function uploadFile(file: File, onProgress: (fraction: number) => void): Promise<string> {
  const upload = await postData<DirectUpload>('/v3/assets/direct-uploads', {
    filename: file.name,
    content_type: file.type || 'application/octet-stream',
    size_bytes: file.size,
  });
  await put(upload, file, onProgress);
  await postData(`/v3/assets/${encodeURIComponent(upload.asset_id)}/complete`);
  onProgress(1);
  return upload.asset_id;
}
