/**
 * Every event type of the contract. `GET /v3/webhooks/event-types` serves this list, endpoint
 * subscriptions are validated against it, and producers may only emit names from it. The payloads of
 * the types emitted today (`avatar_video.*`, `batch.completed`, `voice_clone.*`, `audio_voice.*`,
 * the avatar look events `photo_avatar_train.*`, `photo_avatar_generation.*`, `photo_avatar_look.*`,
 * `instant_avatar.*`, `filler_word_removal.*`, `hyperframes_video.*`) are
 * documented in docs/webhooks.md; the others come with their routes.
 */
export const EVENT_TYPES = {
  'avatar_video.success':
    'A video finished rendering. `event_data`: `video_id`, `url` (pre-signed download URL; it expires, so re-fetch the video with GET /v3/videos/{video_id}), `gif_download_url`, `video_page_url`, `video_share_page_url`, `folder_id`, `callback_id`.',
  'avatar_video.fail':
    'A video failed and its credits were returned. `event_data`: `video_id`, `failure_code`, `failure_message` (what went wrong), `msg` (the same), `folder_id`, `callback_id`.',
  'video_agent.success':
    'A run of a video agent session (POST /v3/video-agents, or a follow-up) finished its draft. `event_data`: `session_id`, `run_id`, `status` (`completed`), `title`, `video_id` (the draft), `url` (the draft, pre-signed), `callback_id`.',
  'video_agent.fail':
    'A run of a video agent session failed; nothing was charged for a draft it did not make. `event_data`: `session_id`, `run_id`, `status` (`failed`), `title`, `video_id`, `callback_id`, and always `failure_code` and `failure_message`.',
  'video_translate.success':
    'A video translation (one output language) completed. `event_data`: `video_translation_id` (also `video_translate_id`), `title`, `input_language`, `output_language`, `callback_id`, `folder_id`, `url` and `video_url`, `audio_url`, `srt_caption_url`, `vtt_caption_url` (pre-signed; re-fetch the translation for fresh links).',
  'video_translate.fail':
    'A video translation failed and its credits were returned. `event_data`: `video_translation_id` (also `video_translate_id`), `title`, `input_language`, `output_language`, `callback_id`, `folder_id`, `failure_code`, `failure_message`, `message`.',
  'proofread_creation.success':
    'A proofread session (one output language) has its words translated, ready for review. `event_data`: `proofread_id`, `title`, `input_language`, `output_language`, `status`, `callback_id`, `srt_url` (pre-signed).',
  'proofread_creation.fail':
    'A proofread session failed. `event_data`: `proofread_id`, `title`, `input_language`, `output_language`, `status`, `callback_id`, `failure_code`, `failure_message`.',
  'ai_clipping.success':
    'An AI clipping job produced its clips. `event_data`: the job as GET /v3/ai-clipping/{job_id} answers it: `id`, `title`, `status`, `input_language`, `output_settings`, `callback_id`, `progress`, `source_duration`, `clips` (each `id`, `title`, `duration_seconds`, `virality_score`, `aspect_ratio`, pre-signed `video_url` and `thumbnail_url`), `created_at`, `completed_at`.',
  'ai_clipping.fail':
    'An AI clipping job failed and its credits were returned. `event_data`: the job as GET /v3/ai-clipping/{job_id} answers it, with `failure_code` and `failure_message`.',
  'lipsync.success':
    'A lipsync completed (created through /v3/lipsyncs). `event_data`: `lipsync_id`, `title`, `status`, `callback_id`, `folder_id`, `url` and `video_url` (pre-signed; re-fetch the lipsync for fresh links), `caption_url` (null without captions), `duration`.',
  'lipsync.fail':
    'A lipsync failed and its credits were returned. `event_data`: `lipsync_id`, `title`, `status`, `callback_id`, `folder_id`, `failure_code`, `failure_message`.',
  'overdub.success':
    'An overdub completed (a lipsync created through the deprecated /v3/overdubs). `event_data`: `overdub_id`, `title`, `status`, `callback_id`, `folder_id`, `url` and `video_url` (pre-signed), `duration`.',
  'overdub.fail':
    'An overdub failed and its credits were returned. `event_data`: `overdub_id`, `title`, `status`, `callback_id`, `folder_id`, `failure_code`, `failure_message`.',
  'hyperframes_video.success':
    'A HyperFrames render completed. `event_data`: the render as GET /v3/hyperframes/renders/{render_id} answers it (`render_id`, `status`, `title`, `format`, `fps`, `quality`, `resolution`, `aspect_ratio`, `composition`, `duration`, `video_url` and `thumbnail_url` pre-signed, `callback_id`).',
  'hyperframes_video.fail':
    'A HyperFrames render failed and its credits were returned. `event_data`: the render as GET answers it, with `failure_code` (e.g. `composition_network_blocked`, `composition_render_failed`, `engine_unavailable`), `failure_message` and `failure_reason` (the same text).',
  'filler_word_removal.success':
    'A filler-word removal completed. `event_data`: the job as GET /v3/filler-word-removals/{id} answers it (`id`, also `filler_word_removal_id`, `title`, `status`, `num_cuts`, `original_duration`, `output_duration`, `reduction_pct`, `video_url` and `thumbnail_url` pre-signed, `engines`, `callback_id`).',
  'filler_word_removal.fail':
    'A filler-word removal failed and its credits were returned. `event_data`: the job as GET answers it (`id`, also `filler_word_removal_id`, `title`, `status`, `failure_code`, `failure_message`, `callback_id`).',
  'background_removal.success':
    'A background removal completed. `event_data`: `id`, `title`, `status`, `layers` (layer name to a presigned URL), `duration` (seconds), `request_id`.',
  'background_removal.fail':
    'A background removal failed; its credits were returned. `event_data`: `id`, `title`, `status`, `request_id`, `failure_code`, `failure_message`, `error` (the message).',
  'instant_avatar.success':
    'A digital twin finished training (its videos still need approved consent). `event_data`: `avatar_id` (the look), `avatar_group_id`, `avatar_type`, `name`, `status`, and on failure `error` {`code`, `message`}.',
  'instant_avatar.fail':
    'A digital twin failed to train; its credits were returned. `event_data`: `avatar_id` (the look), `avatar_group_id`, `avatar_type`, `name`, `status`, and on failure `error` {`code`, `message`}.',
  'photo_avatar_train.success':
    'A photo avatar look is ready for videos. `event_data`: `avatar_id` (the look), `avatar_group_id`, `avatar_type`, `name`, `status`, and on failure `error` {`code`, `message`}.',
  'photo_avatar_train.fail':
    'A photo avatar look failed (no usable face, an unreadable picture); its credits were returned. `event_data`: `avatar_id` (the look), `avatar_group_id`, `avatar_type`, `name`, `status`, and on failure `error` {`code`, `message`}.',
  'photo_avatar_generation.success':
    'A prompt avatar was generated and is ready for videos. `event_data`: `avatar_id` (the look), `avatar_group_id`, `avatar_type`, `name`, `status`, and on failure `error` {`code`, `message`}.',
  'photo_avatar_generation.fail':
    'A prompt avatar failed to generate; its credits were returned. `event_data`: `avatar_id` (the look), `avatar_group_id`, `avatar_type`, `name`, `status`, and on failure `error` {`code`, `message`}.',
  'photo_avatar_look.success':
    'A generated look (look pack) is completed and usable in videos; one event per look. `event_data`: `avatar_id` (the look), `avatar_group_id`, `avatar_type`, `name`, `status`, and on failure `error` {`code`, `message`}.',
  'photo_avatar_look.fail':
    'A generated look failed; its credits were returned. `event_data`: `avatar_id` (the look), `avatar_group_id`, `avatar_type`, `name`, `status`, and on failure `error` {`code`, `message`}.',
  'voice_clone.success':
    'A voice clone is complete. `event_data`: `voice_clone_id`, `voice_id`, `name`, `language`, `gender`.',
  'voice_clone.fail':
    'A voice clone failed. `event_data`: `voice_clone_id`, `voice_id`, `failure_code`, `failure_message`.',
  'audio_voice.success':
    'An audio voice became ACTIVE (after training or retraining). `event_data`: the voice (`voice_id`, `mode`, `name`, `language`, `status`, `created_at`).',
  'audio_voice.fail':
    'An audio voice failed training. `event_data`: the voice with `status` FAILED, `failure_reason` and `failure_message`.',
  'model_video.success':
    'A model video (POST /v3/models/videos) completed. `event_data`: the video as GET /v3/models/videos/{video_id} answers it (`video_id`, `status`, `model`, `mode`, `duration`, `resolution`, `aspect_ratio`, `width`, `height`, `seed`, `video_url` pre-signed, `callback_id`, ...).',
  'model_video.fail':
    'A model video failed and its credits were returned. `event_data`: the video as GET answers it, with `failure_code` (`engine_unavailable`, `invalid_input`, `media_generation_failed`, ...) and `failure_message`.',
  'model_image.success':
    'An image generation (POST /v3/models/images) completed. `event_data`: the generation as GET /v3/models/images/{generation_id} answers it (`generation_id`, `status`, `model`, `mode`, `num_images`, `aspect_ratio`, `images` with pre-signed `image_url`, `width`, `height`, `seed`).',
  'model_image.fail':
    'An image generation failed and its credits were returned. `event_data`: the generation as GET answers it, with `failure_code` (`engine_unavailable`, `invalid_input`, ...) and `failure_message`.',
  'batch.completed':
    'Every item of a batch reached a terminal state; sent once per batch. `event_data`: `batch_id`, `kind` (`videos` or `asset_uploads`), `status` (`completed` when any item succeeded, else `failed`), `total_items`, `succeeded`, `failed`.',
} as const;

export type EventType = keyof typeof EVENT_TYPES;

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_TYPES, value);
}

export function listEventTypes(): { event_type: EventType; description: string }[] {
  return (Object.entries(EVENT_TYPES) as [EventType, string][]).map(([eventType, description]) => ({
    event_type: eventType,
    description,
  }));
}
