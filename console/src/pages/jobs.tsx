/**
 * Every job type besides videos, one tab each (translations, lipsyncs, clips, renders, agent
 * sessions, background and filler-word removals), refreshed while any is in flight; and the form
 * to translate a video.
 */
import { useState } from 'preact/hooks';
import { getData, listAll, postData } from '../api.ts';
import { ErrorMessage, Loading } from '../components/feedback.tsx';
import { type JobRow, JobTable } from '../components/job-table.tsx';
import { isRunning } from '../components/status.tsx';
import { useResource } from '../components/use-resource.ts';
import { href, navigate } from '../router.ts';
import type { Video } from './videos.tsx';

const JOB_TYPES = [
  { section: 'translations', title: 'Translations', path: '/v3/video-translations?limit=50' },
  { section: 'lipsyncs', title: 'Lipsyncs', path: '/v3/lipsyncs?limit=50' },
  { section: 'clips', title: 'Clips', path: '/v3/ai-clipping?limit=50' },
  { section: 'renders', title: 'Renders', path: '/v3/hyperframes/renders?limit=50' },
  { section: 'agents', title: 'Agent sessions', path: '/v3/video-agents?limit=50' },
  { section: 'background-removals', title: 'Background removals', path: '/v3/background-removals?limit=50' },
] as const;

function JobList({ title, path }: { title: string; path: string }) {
  const jobs = useResource(
    () => listAll<JobRow>(path, 100),
    [path],
    (list) => list.some((job) => isRunning(job.status)),
  );
  return (
    <>
      <ErrorMessage error={jobs.error} />
      {jobs.data ? <JobTable jobs={jobs.data} caption={title} /> : <Loading what={title.toLowerCase()} />}
    </>
  );
}

function TranslateForm({ videoId }: { videoId?: string }) {
  const sources = useResource(async () => {
    const [videos, languages] = await Promise.all([
      listAll<Video>('/v3/videos?limit=50', 100),
      getData<{ languages: string[] }>('/v3/video-translations/languages'),
    ]);
    return { videos: videos.filter((video) => video.status === 'completed'), languages: languages.languages };
  }, []);
  const [chosenVideo, setChosenVideo] = useState(videoId ?? '');
  const [language, setLanguage] = useState('');
  const [error, setError] = useState<unknown>(null);
  if (!sources.data)
    return sources.error ? <ErrorMessage error={sources.error} /> : <Loading what="videos" />;
  const video = sources.data.videos.find(
    (candidate) => candidate.id === (chosenVideo || sources.data?.videos[0]?.id),
  );
  const outputLanguage = language || sources.data.languages[0] || '';

  async function submit(event: Event) {
    event.preventDefault();
    setError(null);
    try {
      if (!video?.video_url) throw new Error('Choose a completed video.');
      await postData('/v3/video-translations', {
        video: { type: 'url', url: video.video_url },
        output_languages: [outputLanguage],
        title: `${video.title ?? video.id} (${outputLanguage})`,
      });
      navigate('jobs/translations');
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <form class="stack panel" onSubmit={submit}>
      <h2>Translate a video</h2>
      <label for="translate-video">Video</label>
      <select
        id="translate-video"
        value={video?.id ?? ''}
        onChange={(event) => setChosenVideo(event.currentTarget.value)}
      >
        {sources.data.videos.map((candidate) => (
          <option key={candidate.id} value={candidate.id}>
            {candidate.title ?? candidate.id}
          </option>
        ))}
      </select>
      <label for="translate-language">Into</label>
      <select
        id="translate-language"
        value={outputLanguage}
        onChange={(event) => setLanguage(event.currentTarget.value)}
      >
        {sources.data.languages.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
      <ErrorMessage error={error} />
      <button type="submit" class="primary" disabled={!video}>
        Translate
      </button>
    </form>
  );
}

export function JobsPage({ section, videoId }: { section?: string; videoId?: string }) {
  const current =
    JOB_TYPES.find((type) => type.section === section) ??
    (section === 'translate' ? undefined : JOB_TYPES[0]);
  return (
    <section aria-labelledby="jobs-title">
      <h1 id="jobs-title">Jobs</h1>
      <nav aria-label="Job types" class="tabs">
        {JOB_TYPES.map((type) => (
          <a
            key={type.section}
            href={href(`jobs/${type.section}`)}
            aria-current={type === current ? 'page' : undefined}
          >
            {type.title}
          </a>
        ))}
        <a href={href('jobs/translate')} aria-current={section === 'translate' ? 'page' : undefined}>
          Translate a video
        </a>
      </nav>
      {current ? (
        <JobList key={current.section} title={current.title} path={current.path} />
      ) : (
        <TranslateForm {...(videoId ? { videoId } : {})} />
      )}
    </section>
  );
}
