/** The state the video render workflow passes between its steps, checked at each step. */
import { z } from 'zod';

export const videoRef = { workspace_id: z.string().min(1), video_id: z.string().min(1) };

export const preparedScenes = z.array(
  z.object({
    scene_id: z.string(),
    portrait_key: z.string().nullable(),
    voice_id: z.string().nullable(),
    engine_voice_id: z.string().nullable(),
    voice_speed: z.number().optional(),
    voice_pitch: z.number().optional(),
  }),
);

export const speechResult = z.object({
  scenes: z.array(
    z.object({
      scene_id: z.string(),
      audio_key: z.string().nullable(),
      timings_key: z.string().nullable(),
      duration_ms: z.number().nullable(),
    }),
  ),
});

export const composeResult = z
  .object({
    outputs: z.object({
      video_key: z.string(),
      captioned_video_key: z.string().nullable(),
      subtitle_key: z.string().nullable(),
      thumbnail_key: z.string(),
      gif_key: z.string(),
    }),
    duration: z.number(),
  })
  .nullable();
