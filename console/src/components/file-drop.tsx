/**
 * Choose a file by dropping it on the zone or through the labelled file input inside it (the
 * keyboard and screen-reader path), then watch its upload's progress.
 */
import { useState } from 'preact/hooks';

export function FileDrop({
  id,
  label,
  accept,
  onFile,
}: {
  id: string;
  label: string;
  accept?: string;
  onFile: (file: File) => void;
}) {
  const [dragging, setDragging] = useState(false);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: dropping is a pointer shortcut; the labelled file input inside is the keyboard path
    <div
      class={`drop-zone ${dragging ? 'dragging' : ''}`}
      data-drop-zone={id}
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(event) => {
        event.preventDefault();
        setDragging(false);
        const file = event.dataTransfer?.files[0];
        if (file) onFile(file);
      }}
    >
      <label for={id}>{label}</label>
      <p class="muted">Drop a file here, or choose one:</p>
      <input
        id={id}
        type="file"
        {...(accept ? { accept } : {})}
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
          if (file) onFile(file);
          event.currentTarget.value = '';
        }}
      />
    </div>
  );
}

export interface UploadState {
  name: string;
  fraction: number;
}

export function UploadProgress({ upload }: { upload: UploadState | null }) {
  if (!upload) return null;
  const percent = Math.round(upload.fraction * 100);
  return (
    <div class="stack" aria-live="polite">
      <span>
        Uploading {upload.name}: {percent}%
      </span>
      <progress class="upload-progress" max={100} value={percent} aria-label={`Upload of ${upload.name}`} />
    </div>
  );
}
