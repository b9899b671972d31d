/** Create a video: an avatar look (with previews), a voice (with its preview audio), the script, captions, resolution. */
import { useState } from 'preact/hooks';
import { listAll, postData } from '../api.ts';
import { ErrorMessage, Loading } from '../components/feedback.tsx';
import { useResource } from '../components/use-resource.ts';
import { href, navigate } from '../router.ts';

export interface Look {
  id: string;
  name: string;
  default_voice_id: string | null;
  preview_image_url: string | null;
  status?: string;
}

export interface Voice {
  voice_id: string;
  name: string;
  language: string;
  gender: string | null;
  type?: string;
  preview_audio_url: string | null;
}

const RESOLUTIONS = ['720p', '1080p', '4k'] as const;

export const loadLooks = () => listAll<Look>('/v3/avatars/looks?limit=50', 100);
export const loadVoices = () => listAll<Voice>('/v3/voices?limit=100', 300);

function LookPicker({
  looks,
  value,
  onChange,
}: {
  looks: Look[];
  value: string;
  onChange: (look: Look) => void;
}) {
  return (
    <fieldset class="look-picker">
      <legend>Avatar look</legend>
      <div class="looks">
        {looks.map((look) => (
          <label key={look.id} class={`look ${look.id === value ? 'selected' : ''}`}>
            <input
              type="radio"
              name="look"
              value={look.id}
              checked={look.id === value}
              onChange={() => onChange(look)}
            />
            {look.preview_image_url && <img src={look.preview_image_url} alt="" loading="lazy" />}
            <span>{look.name}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function VoicePicker({
  voices,
  value,
  onChange,
}: {
  voices: Voice[];
  value: string;
  onChange: (id: string) => void;
}) {
  const selected = voices.find((voice) => voice.voice_id === value);
  return (
    <div class="stack">
      <label for="voice">Voice</label>
      <select id="voice" value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        {voices.map((voice) => (
          <option key={voice.voice_id} value={voice.voice_id}>
            {voice.name} — {voice.language}
            {voice.gender ? `, ${voice.gender}` : ''}
          </option>
        ))}
      </select>
      {selected?.preview_audio_url && (
        <button type="button" onClick={() => void new Audio(selected.preview_audio_url ?? '').play()}>
          Play a sample of {selected.name}
        </button>
      )}
    </div>
  );
}

export function CreateVideoPage() {
  const catalog = useResource(async () => ({ looks: await loadLooks(), voices: await loadVoices() }), []);
  const [lookId, setLookId] = useState('');
  const [voiceId, setVoiceId] = useState('');
  const [title, setTitle] = useState('');
  const [script, setScript] = useState('');
  const [captions, setCaptions] = useState(true);
  const [resolution, setResolution] = useState<(typeof RESOLUTIONS)[number]>('720p');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  if (!catalog.data)
    return catalog.error ? <ErrorMessage error={catalog.error} /> : <Loading what="avatars and voices" />;
  const looks = catalog.data.looks.filter((look) => !look.status || look.status === 'completed');
  const voices = catalog.data.voices;
  const chosenLook = lookId || looks[0]?.id || '';
  const chosenVoice =
    voiceId || looks.find((look) => look.id === chosenLook)?.default_voice_id || voices[0]?.voice_id || '';

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await postData<{ video_id: string }>('/v3/videos', {
        type: 'avatar',
        avatar_id: chosenLook,
        voice_id: chosenVoice,
        script,
        resolution,
        ...(title.trim() ? { title: title.trim() } : {}),
        ...(captions ? { caption: { file_format: 'srt' } } : {}),
      });
      navigate('videos');
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="create-title">
      <p>
        <a href={href('videos')}>Back to all videos</a>
      </p>
      <h1 id="create-title">Create a video</h1>
      <form class="stack" onSubmit={submit}>
        <LookPicker
          looks={looks}
          value={chosenLook}
          onChange={(look) => {
            setLookId(look.id);
            if (look.default_voice_id && !voiceId) setVoiceId(look.default_voice_id);
          }}
        />
        <VoicePicker voices={voices} value={chosenVoice} onChange={setVoiceId} />
        <label for="title">Title (optional)</label>
        <input
          id="title"
          value={title}
          maxLength={255}
          onInput={(event) => setTitle(event.currentTarget.value)}
        />
        <label for="script">Script</label>
        <textarea
          id="script"
          required
          rows={6}
          value={script}
          onInput={(event) => setScript(event.currentTarget.value)}
        />
        <div class="row">
          <input
            id="captions"
            type="checkbox"
            checked={captions}
            onChange={(event) => setCaptions(event.currentTarget.checked)}
          />
          <label for="captions">Captions (SRT sidecar and a captioned copy)</label>
        </div>
        <label for="resolution">Resolution</label>
        <select
          id="resolution"
          value={resolution}
          onChange={(event) => setResolution(event.currentTarget.value as (typeof RESOLUTIONS)[number])}
        >
          {RESOLUTIONS.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
        <ErrorMessage error={error} />
        <button type="submit" class="primary" disabled={busy || !chosenLook}>
          {busy ? 'Creating…' : 'Create video'}
        </button>
      </form>
    </section>
  );
}
