/** Video agent sessions, resources and styles as the API answers them (the reference's fields). */
import { presignMediaDownload } from '../media/media-store.js';
import { getVideo } from '../videos/videos.js';
import { type AgentResource, type AgentSession, currentVideoId, shownMessages } from './agent-sessions.js';
import type { AgentStyle } from './agent-styles.js';

/** How many of the newest messages a session read shows. */
export const MESSAGES_SHOWN = 50;

export function sessionView(session: AgentSession) {
  const videoId = currentVideoId(session);
  return {
    session_id: session.session_id,
    status: session.status,
    progress: session.progress,
    title: session.title ?? undefined,
    ...(videoId ? { video_id: videoId } : {}),
    mode: session.mode,
    messages: shownMessages(session)
      .slice(-MESSAGES_SHOWN)
      .map((message) => ({
        role: message.role,
        type: message.type,
        content: message.content,
        resource_ids: message.resource_ids,
        created_at: message.created_at,
      })),
    failure_code: session.failure_code,
    failure_message: session.failure_message,
    engines: session.engines,
    created_at: session.created_at,
    completed_at: session.completed_at,
  };
}

/** What a create answers (and replays). */
export function sessionCreatedView(session: AgentSession) {
  const videoId = currentVideoId(session);
  return {
    session_id: session.session_id,
    status: session.status,
    created_at: session.created_at,
    ...(videoId ? { video_id: videoId } : {}),
  };
}

export function sessionListItem(session: AgentSession) {
  return {
    session_id: session.session_id,
    title: session.title ?? undefined,
    status: session.status,
    created_at: session.created_at,
  };
}

export async function resourceView(session: AgentSession, resource: AgentResource) {
  let url: string | null = resource.key ? await presignMediaDownload(resource.key) : null;
  let thumbnail: string | null = null;
  let preview: string | null = null;
  if (resource.video_id) {
    const video = await getVideo(session.workspace_id, resource.video_id);
    if (video?.outputs) {
      url = await presignMediaDownload(video.outputs.video_key);
      thumbnail = await presignMediaDownload(video.outputs.thumbnail_key);
      preview = await presignMediaDownload(video.outputs.gif_key);
    }
  }
  return {
    resource_id: resource.resource_id,
    resource_type: resource.resource_type,
    source_type: resource.source_type,
    created_at: resource.created_at,
    url,
    thumbnail_url: thumbnail,
    preview_url: preview,
    metadata: { ...resource.metadata, ...(resource.video_id ? { video_id: resource.video_id } : {}) },
  };
}

export function styleView(
  style: AgentStyle,
  media: { thumbnailUrl: string; previewVideoUrl: string },
  aspectRatio: string,
) {
  return {
    style_id: style.style_id,
    name: style.name,
    description: style.description,
    tags: [...style.tags],
    aspect_ratio: aspectRatio,
    thumbnail_url: media.thumbnailUrl,
    preview_video_url: media.previewVideoUrl,
    palette: style.palette,
    typography: style.typography,
    caption_style: style.burn_captions ? 'burned_in' : 'sidecar',
    transition: style.transition,
    music_mood: style.music_mood,
  };
}

/** `video_agent.success` / `.fail`: the session, its draft and, once made, the video's link. */
export async function agentEventData(session: AgentSession): Promise<Record<string, unknown>> {
  const videoId = currentVideoId(session);
  const video = videoId ? await getVideo(session.workspace_id, videoId) : undefined;
  return {
    session_id: session.session_id,
    run_id: session.run_id,
    status: session.status,
    title: session.title,
    video_id: videoId,
    url: video?.outputs ? await presignMediaDownload(video.outputs.video_key) : null,
    callback_id: session.callback_id,
    failure_code: session.failure_code,
    failure_message: session.failure_message,
  };
}
