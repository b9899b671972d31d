/**
 * Your own avatars and voices: create a photo avatar, clone a voice (both from a direct upload),
 * each with its status and, for avatars, the consent status and the page to record consent.
 */
import { useState } from 'preact/hooks';
import { getData, listAll, postData } from '../api.ts';
import { ErrorMessage, Loading } from '../components/feedback.tsx';
import { FileDrop, UploadProgress, type UploadState } from '../components/file-drop.tsx';
import { FailureReason, isRunning, JobProgress, StatusBadge } from '../components/status.tsx';
import { useResource } from '../components/use-resource.ts';
import { uploadFile } from '../uploads.ts';

interface AvatarGroup {
  id: string;
  name: string;
  looks_count: number;
  preview_image_url?: string;
  consent_status?: string;
  status: string;
  error?: { code: string; message: string };
}

interface OwnVoice {
  voice_id: string;
  name: string;
  language: string;
  status?: string;
  failure_code?: string;
  failure_message?: string;
}

/** Upload a file, then create something from its asset id; the upload's progress shows meanwhile. */
function useUploadThen(create: (assetId: string) => Promise<void>) {
  const [upload, setUpload] = useState<UploadState | null>(null);
  const [error, setError] = useState<unknown>(null);
  async function run(file: File) {
    setError(null);
    setUpload({ name: file.name, fraction: 0 });
    try {
      await create(await uploadFile(file, (fraction) => setUpload({ name: file.name, fraction })));
    } catch (caught) {
      setError(caught);
    } finally {
      setUpload(null);
    }
  }
  return { upload, error, run };
}

function ConsentCell({
  group,
  onRequested,
}: {
  group: AvatarGroup;
  onRequested: (url: string | null) => void;
}) {
  const [error, setError] = useState<unknown>(null);
  if (!group.consent_status) return <span class="muted">not required</span>;
  return (
    <>
      <StatusBadge status={group.consent_status} />
      {group.status === 'pending_consent' && (
        <button
          type="button"
          onClick={() =>
            postData<{ url?: string }>(`/v3/avatars/${encodeURIComponent(group.id)}/consent`, {}).then(
              (answer) => onRequested(answer.url ?? null),
              setError,
            )
          }
        >
          Get the consent page for {group.name}
        </button>
      )}
      <ErrorMessage error={error} />
    </>
  );
}

function Avatars() {
  const groups = useResource(
    () => listAll<AvatarGroup>('/v3/avatars?ownership=private&limit=50', 100),
    [],
    (list) => list.some((group) => isRunning(group.status)),
  );
  const [name, setName] = useState('');
  const [consentUrl, setConsentUrl] = useState<string | null>(null);
  const photo = useUploadThen(async (assetId) => {
    await postData('/v3/avatars', {
      type: 'photo',
      name: name.trim() || 'Photo avatar',
      file: { type: 'asset_id', asset_id: assetId },
    });
    await groups.reload();
  });
  return (
    <section aria-labelledby="avatars-title" class="panel">
      <h2 id="avatars-title">Your avatars</h2>
      <div class="stack">
        <label for="avatar-name">New photo avatar’s name</label>
        <input id="avatar-name" value={name} onInput={(event) => setName(event.currentTarget.value)} />
        <FileDrop
          id="avatar-photo"
          label="Photo of one person facing the camera (PNG or JPEG)"
          accept="image/png,image/jpeg"
          onFile={(file) => void photo.run(file)}
        />
        <UploadProgress upload={photo.upload} />
        <ErrorMessage error={photo.error} />
      </div>
      {consentUrl && (
        <p class="notice" role="status">
          Consent page: <a href={consentUrl}>{consentUrl}</a>
        </p>
      )}
      <ErrorMessage error={groups.error} />
      {!groups.data ? (
        <Loading what="avatars" />
      ) : groups.data.length === 0 ? (
        <p class="muted">No avatars of your own yet.</p>
      ) : (
        <table aria-label="Your avatars">
          <thead>
            <tr>
              <th scope="col">Avatar</th>
              <th scope="col">Status</th>
              <th scope="col">Consent</th>
            </tr>
          </thead>
          <tbody>
            {groups.data.map((group) => (
              <tr key={group.id}>
                <td class="row">
                  {group.preview_image_url && (
                    <img class="avatar-preview" src={group.preview_image_url} alt="" width={48} height={48} />
                  )}
                  {group.name} <span class="muted">({group.looks_count} looks)</span>
                </td>
                <td>
                  <StatusBadge status={group.status} />
                  <JobProgress job={group} label={group.name} />
                  {group.error && <p class="failure">{`${group.error.code}: ${group.error.message}`}</p>}
                </td>
                <td>
                  <ConsentCell group={group} onRequested={setConsentUrl} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Voices() {
  const voices = useResource(
    async () => {
      const own = await listAll<OwnVoice>('/v3/voices?type=private&limit=100', 100);
      // The list leaves out a clone's progress: each own voice's own page has its status.
      return Promise.all(
        own.map((voice) => getData<OwnVoice>(`/v3/voices/${encodeURIComponent(voice.voice_id)}`)),
      );
    },
    [],
    (list) => list.some((voice) => voice.status !== undefined && isRunning(voice.status)),
  );
  const [name, setName] = useState('');
  const [language, setLanguage] = useState('en-US');
  const clone = useUploadThen(async (assetId) => {
    await postData('/v3/voices/clone', {
      audio: { type: 'asset_id', asset_id: assetId },
      voice_name: name.trim() || 'Cloned voice',
      language,
    });
    await voices.reload();
  });
  return (
    <section aria-labelledby="voices-title" class="panel">
      <h2 id="voices-title">Your voices</h2>
      <div class="stack">
        <label for="voice-name">New voice’s name</label>
        <input id="voice-name" value={name} onInput={(event) => setName(event.currentTarget.value)} />
        <label for="voice-language">Speaker’s language (BCP-47, e.g. en-US)</label>
        <input
          id="voice-language"
          value={language}
          onInput={(event) => setLanguage(event.currentTarget.value)}
        />
        <FileDrop
          id="voice-recording"
          label="Recording to clone (audio or video)"
          accept="audio/*,video/*"
          onFile={(file) => void clone.run(file)}
        />
        <UploadProgress upload={clone.upload} />
        <ErrorMessage error={clone.error} />
      </div>
      <ErrorMessage error={voices.error} />
      {!voices.data ? (
        <Loading what="voices" />
      ) : voices.data.length === 0 ? (
        <p class="muted">No voices of your own yet.</p>
      ) : (
        <table aria-label="Your voices">
          <thead>
            <tr>
              <th scope="col">Voice</th>
              <th scope="col">Language</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {voices.data.map((voice) => (
              <tr key={voice.voice_id}>
                <td>{voice.name}</td>
                <td>{voice.language}</td>
                <td>
                  <StatusBadge status={voice.status ?? 'complete'} />
                  <FailureReason job={{ ...voice, status: voice.status ?? 'complete' }} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function AvatarsVoicesPage() {
  return (
    <section aria-labelledby="avatars-voices-title">
      <h1 id="avatars-voices-title">Avatars &amp; voices</h1>
      <Avatars />
      <Voices />
    </section>
  );
}
