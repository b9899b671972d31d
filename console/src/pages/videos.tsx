/** The workspace's videos: a grid with thumbnails, status, live progress and failure reasons. */
import { getData, listAll } from '../api.ts';
import { ErrorMessage, Loading } from '../components/feedback.tsx';
import { FailureReason, isRunning, JobProgress, StatusBadge } from '../components/status.tsx';
import { useResource } from '../components/use-resource.ts';
import { href } from '../router.ts';

export interface Video {
  id: string;
  status: string;
  title: string | null;
  created_at: number;
  duration: number | null;
  progress?: number;
  video_url: string | null;
  subtitle_url: string | null;
  thumbnail_url: string | null;
  failure_code: string | null;
  failure_message: string | null;
}

export const videoTitle = (video: Video) => video.title || `Video ${video.id.slice(-6)}`;

function VideoCard({ video }: { video: Video }) {
  const title = videoTitle(video);
  return (
    <li class="card" data-video-id={video.id} data-status={video.status}>
      <a href={href(`videos/${video.id}`)} class="card-link">
        {video.thumbnail_url ? (
          <img class="thumbnail" src={video.thumbnail_url} alt={`Thumbnail of ${title}`} loading="lazy" />
        ) : (
          <div class="thumbnail placeholder" aria-hidden="true" />
        )}
        <span class="card-title">{title}</span>
      </a>
      <div class="row">
        <StatusBadge status={video.status} />
        {video.duration !== null && <span class="muted">{video.duration.toFixed(1)} s</span>}
      </div>
      <JobProgress job={video} label={title} />
      <FailureReason job={video} />
    </li>
  );
}

export function VideosPage() {
  const videos = useResource(
    () => listAll<Video>('/v3/videos?limit=50', 100),
    [],
    (list) => list.some((video) => isRunning(video.status)),
  );
  return (
    <section aria-labelledby="videos-title">
      <header class="row page-header">
        <h1 id="videos-title">Videos</h1>
        <a class="button primary" href={href('videos/new')}>
          Create a video
        </a>
      </header>
      <ErrorMessage error={videos.error} />
      {!videos.data ? (
        <Loading what="videos" />
      ) : videos.data.length === 0 ? (
        <p class="muted">No videos yet.</p>
      ) : (
        <ul class="grid" aria-label="Videos">
          {videos.data.map((video) => (
            <VideoCard key={video.id} video={video} />
          ))}
        </ul>
      )}
    </section>
  );
}

export const loadVideo = (videoId: string) => getData<Video>(`/v3/videos/${encodeURIComponent(videoId)}`);
