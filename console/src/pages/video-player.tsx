/** One video: the player with its captions track, its state, and what can be done with it next. */
import { useEffect, useState } from 'preact/hooks';
import { captionTrackUrl } from '../captions.ts';
import { ErrorMessage, Loading } from '../components/feedback.tsx';
import { FailureReason, isRunning, JobProgress, StatusBadge } from '../components/status.tsx';
import { useResource } from '../components/use-resource.ts';
import { href } from '../router.ts';
import { loadVideo, type Video, videoTitle } from './videos.tsx';

function Player({ video }: { video: Video & { video_url: string } }) {
  const [captions, setCaptions] = useState<string | null>(null);
  const [captionError, setCaptionError] = useState<unknown>(null);
  useEffect(() => {
    if (!video.subtitle_url) return;
    let trackUrl: string | null = null;
    captionTrackUrl(video.subtitle_url).then((url) => {
      trackUrl = url;
      setCaptions(url);
    }, setCaptionError);
    return () => {
      if (trackUrl) URL.revokeObjectURL(trackUrl);
    };
  }, [video.subtitle_url]);
  return (
    <figure class="player">
      {/* crossorigin: the video comes from the media bucket, whose CORS rule lets the page read it. */}
      {/* biome-ignore lint/a11y/useMediaCaption: the track is added once its WebVTT is built from the API's SRT */}
      <video controls crossOrigin="anonymous" src={video.video_url} poster={video.thumbnail_url ?? undefined}>
        {captions && <track kind="captions" srclang="en" label="Captions" src={captions} default />}
      </video>
      <figcaption class="muted">
        {video.subtitle_url
          ? captions
            ? 'Captions: on (CC in the player).'
            : 'Loading captions…'
          : 'No captions.'}
      </figcaption>
      <ErrorMessage error={captionError} />
    </figure>
  );
}

export function VideoPage({ videoId }: { videoId: string }) {
  const video = useResource(
    () => loadVideo(videoId),
    [videoId],
    (current) => isRunning(current.status),
  );
  if (!video.data) return video.error ? <ErrorMessage error={video.error} /> : <Loading what="the video" />;
  const current = video.data;
  return (
    <section aria-labelledby="video-title">
      <p>
        <a href={href('videos')}>Back to all videos</a>
      </p>
      <h1 id="video-title">{videoTitle(current)}</h1>
      <div class="row">
        <StatusBadge status={current.status} />
        {current.duration !== null && <span class="muted">{current.duration.toFixed(1)} s</span>}
      </div>
      <JobProgress job={current} label={videoTitle(current)} />
      <FailureReason job={current} />
      {current.video_url && <Player video={{ ...current, video_url: current.video_url }} />}
      {current.status === 'completed' && (
        <p>
          <a class="button" href={href(`jobs/translate/${current.id}`)}>
            Translate this video
          </a>
        </p>
      )}
    </section>
  );
}
