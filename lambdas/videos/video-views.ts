/**
 * What clients read about videos: the Video resource (with presigned media URLs, minted per read)
 * and the scenes document of `GET /v3/videos/{video_id}/scenes`, exactly the shape the spec gives
 * (no additional properties).
 */
import { ConflictError } from '../core/errors.js';
import { presignMediaDownload } from '../media/media-store.js';
import type { RenderScene, SceneBackground } from './render-spec.js';
import { isTerminal, VIDEO_CONTENT_TYPES, VIDEO_STATUS, type VideoRecord } from './videos.js';

export async function videoView(video: VideoRecord): Promise<Record<string, unknown>> {
  const outputs = video.outputs;
  const name = (suffix: string) => `${video.video_id}${suffix}`;
  const contentType = VIDEO_CONTENT_TYPES[video.output_format];
  const url = (key: string | null | undefined, fileName: string, type: string) =>
    key ? presignMediaDownload(key, { fileName, contentType: type }) : Promise.resolve(null);
  const [videoUrl, captionedUrl, subtitleUrl, thumbnailUrl, gifUrl] = await Promise.all([
    url(outputs?.video_key, name(`.${video.output_format}`), contentType),
    url(outputs?.captioned_video_key, name(`-captioned.${video.output_format}`), contentType),
    url(outputs?.subtitle_key, name('.srt'), 'application/x-subrip'),
    url(outputs?.thumbnail_key, name('.jpg'), 'image/jpeg'),
    url(outputs?.gif_key, name('.gif'), 'image/gif'),
  ]);
  return {
    id: video.video_id,
    status: video.status,
    title: video.title,
    created_at: video.created_at,
    completed_at: video.completed_at,
    duration: video.duration,
    folder_id: video.folder_id,
    video_url: videoUrl,
    captioned_video_url: captionedUrl,
    subtitle_url: subtitleUrl,
    thumbnail_url: thumbnailUrl,
    gif_url: gifUrl,
    video_page_url: null,
    failure_code: video.failure_code,
    failure_message: video.failure_message,
    // Not in the reference shape: how far a render is, so pollers can show it.
    ...(video.status === VIDEO_STATUS.processing ? { progress: video.progress } : {}),
  };
}

function backgroundView(background: SceneBackground): Record<string, unknown> {
  return background.type === 'color' ? { type: 'color', color: background.color } : { type: background.type };
}

function elementsOf(scene: RenderScene): Record<string, unknown>[] {
  const presenter = scene.presenter;
  if (!presenter) return [];
  if (presenter.kind === 'image') return [{ id: `${scene.id}_image`, type: 'image' }];
  return [
    {
      id: `${scene.id}_avatar`,
      type: 'avatar',
      avatar_id: presenter.avatar_id,
      engine: presenter.engine,
      ...(presenter.expressiveness !== null ? { expressiveness: presenter.expressiveness } : {}),
      ...(presenter.motion_prompt !== null ? { motion_prompt: presenter.motion_prompt } : {}),
    },
  ];
}

function scriptOf(scene: RenderScene): Record<string, unknown>[] {
  const speech = scene.speech;
  if (!speech) return [];
  if (speech.kind === 'audio') return [{ id: `${scene.id}_audio`, type: 'audio' }];
  const { speed, pitch, volume, locale, engine_settings } = speech.settings;
  return [
    {
      id: `${scene.id}_script`,
      type: 'text',
      text: speech.text,
      ...(speech.voice_id !== null ? { voice_id: speech.voice_id } : {}),
      trim_to_speech: true,
      voice_settings: {
        speed,
        pitch,
        volume,
        ...(locale !== undefined ? { locale } : {}),
        ...(engine_settings !== undefined ? { engine_settings } : {}),
      },
    },
  ];
}

/**
 * The scenes document; 409 `resource_not_ready` until the render has resolved the video's avatars and
 * voices (the document names the voice each script is spoken with, defaults included).
 */
export function scenesDocument(video: VideoRecord): Record<string, unknown> {
  if (!video.scenes_ready && !isTerminal(video)) {
    throw new ConflictError(
      'The scenes of this video are still being prepared; retry in a few seconds.',
      'resource_not_ready',
      { param: 'video_id' },
    );
  }
  return {
    video_id: video.video_id,
    edit_version: '1',
    video: {
      title: video.title,
      aspect_ratio: video.aspect_ratio,
      resolution: video.resolution,
      caption: video.render.captions_requested ? { enabled: true } : null,
      brand_glossary_id: video.render.brand_glossary_id,
    },
    scenes: video.render.scenes.map((scene) => ({
      id: scene.id,
      background: backgroundView(scene.background),
      elements: elementsOf(scene),
      script: scriptOf(scene),
    })),
  };
}
