/** Assets (drag-and-drop direct uploads with progress) and folders. */
import { useState } from 'preact/hooks';
import { listAll, postData } from '../api.ts';
import { ErrorMessage, Loading } from '../components/feedback.tsx';
import { FileDrop, UploadProgress, type UploadState } from '../components/file-drop.tsx';
import { StatusBadge } from '../components/status.tsx';
import { useResource } from '../components/use-resource.ts';
import { uploadFile } from '../uploads.ts';

interface Asset {
  id: string;
  name: string;
  type: string;
  mime_type: string;
  size_bytes: number;
  status: string;
  uploaded_at: number;
  url: string | null;
  failure_message?: string;
}

interface Folder {
  folder_id: string;
  name: string;
  type: string;
  created_at: number;
}

const FOLDER_TYPES = ['mixed', 'video', 'video_translate'] as const;

const kilobytes = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const date = (seconds: number) => new Date(seconds * 1000).toLocaleString();

function AssetTable({ assets }: { assets: Asset[] }) {
  if (assets.length === 0) return <p class="muted">No assets yet.</p>;
  return (
    <div class="table-scroll">
      <table aria-label="Assets">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Size</th>
            <th scope="col">Status</th>
            <th scope="col">Uploaded</th>
          </tr>
        </thead>
        <tbody>
          {assets.map((asset) => (
            <tr key={asset.id} data-asset-id={asset.id}>
              <td>{asset.url ? <a href={asset.url}>{asset.name}</a> : asset.name}</td>
              <td>{asset.mime_type}</td>
              <td>{kilobytes(asset.size_bytes)}</td>
              <td>
                <StatusBadge status={asset.status} />
                {asset.failure_message && <p class="failure">{asset.failure_message}</p>}
              </td>
              <td>{date(asset.uploaded_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Folders() {
  const folders = useResource(() => listAll<Folder>('/v3/folders?limit=100'), []);
  const [name, setName] = useState('');
  const [type, setType] = useState<(typeof FOLDER_TYPES)[number]>('mixed');
  const [error, setError] = useState<unknown>(null);

  async function create(event: Event) {
    event.preventDefault();
    setError(null);
    try {
      await postData('/v3/folders', { name, type });
      setName('');
      await folders.reload();
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <section aria-labelledby="folders-title" class="panel">
      <h2 id="folders-title">Folders</h2>
      <form class="row" onSubmit={create}>
        <label for="folder-name">Folder name</label>
        <input
          id="folder-name"
          required
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
        />
        <label for="folder-type">Holds</label>
        <select
          id="folder-type"
          value={type}
          onChange={(event) => setType(event.currentTarget.value as (typeof FOLDER_TYPES)[number])}
        >
          {FOLDER_TYPES.map((option) => (
            <option key={option} value={option}>
              {option.replace('_', ' ')}
            </option>
          ))}
        </select>
        <button type="submit">Create folder</button>
      </form>
      <ErrorMessage error={error ?? folders.error} />
      {folders.data && (
        <ul aria-label="Folders">
          {folders.data.length === 0 && <li class="muted">No folders yet.</li>}
          {folders.data.map((folder) => (
            <li key={folder.folder_id}>
              {folder.name} <span class="muted">({folder.type.replace('_', ' ')})</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function AssetsPage() {
  const assets = useResource(() => listAll<Asset>('/v3/assets?limit=100'), []);
  const [upload, setUpload] = useState<UploadState | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);

  async function send(file: File) {
    setError(null);
    setDone(null);
    setUpload({ name: file.name, fraction: 0 });
    try {
      await uploadFile(file, (fraction) => setUpload({ name: file.name, fraction }));
      setDone(`${file.name} is uploaded.`);
      await assets.reload();
    } catch (caught) {
      setError(caught);
    } finally {
      setUpload(null);
    }
  }

  return (
    <section aria-labelledby="assets-title">
      <h1 id="assets-title">Assets</h1>
      <div class="panel">
        <FileDrop
          id="asset-file"
          label="Upload an asset (image, video or audio)"
          onFile={(file) => void send(file)}
        />
        <UploadProgress upload={upload} />
        {done && (
          <p class="notice" role="status">
            {done}
          </p>
        )}
        <ErrorMessage error={error} />
      </div>
      <ErrorMessage error={assets.error} />
      {assets.data ? <AssetTable assets={assets.data} /> : <Loading what="assets" />}
      <Folders />
    </section>
  );
}
