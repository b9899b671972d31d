/**
 * The bodies and queries of the video routes, field for field from the reference schemas
 * (`POST /v3/videos` is a union discriminated by `type`: `avatar`, `image`, `studio`,
 * `cinematic_avatar`). Objects are strict, so a misspelt field is a 400 naming it; fields the
 * reference marks nullable accept null as "not given".
 *
 * Rules that need more than one field (script or audio, background by type, ...) are checked here
 * too, with the error on the field a user would fix.
 */
import { z } from 'zod';
import { mediaInputSchema } from '../assets/media-inputs.js';
import { RESOLUTIONS } from '../billing/plans.js';
import { idListParam, limitParam, outboundUrlParam, tokenParam, userText } from '../core/validation.js';

export const VIDEO_TYPES = ['avatar', 'image', 'studio', 'cinematic_avatar'] as const;
export type VideoType = (typeof VIDEO_TYPES)[number];

export const ASPECT_RATIOS = ['16:9', '9:16', '4:5', '5:4', '1:1', 'auto'] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];

/** Longest script of one video (or one studio scene), in characters. */
export const MAX_SCRIPT_LENGTH = 5000;
export const MAX_STUDIO_SCENES = 50;
/** All scripts of a studio video together, in UTF-8 bytes. */
export const MAX_STUDIO_SCRIPT_BYTES = 100_000;
export const MAX_BATCH_VIDEOS = 100;
/** Longest silent image scene, in seconds (reference: `> 0 and <= 300`). */
export const MAX_SILENT_SCENE_SECONDS = 300;
export const CINEMATIC_DURATION = { min: 4, max: 15, default: 10 } as const;

const nullable = <T extends z.ZodType>(schema: T) =>
  schema.nullish().transform((value) => value ?? undefined);

const id = z
  .string()
  .min(1, { error: 'must not be empty' })
  .max(128, { error: 'must be at most 128 characters' });
const title = nullable(userText(z.string().max(500, { error: 'must be at most 500 characters' })));
const script = z
  .string()
  .max(MAX_SCRIPT_LENGTH, { error: `must be at most ${MAX_SCRIPT_LENGTH} characters` })
  .refine((text) => text.trim().length > 0, { error: 'must contain words to speak' });
const hexColor = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, { error: "must be a 6-digit hex colour such as '#1a2b3c'" });
const unit = (name: string) =>
  z
    .number({ error: `${name} must be a number from 0 to 1` })
    .min(0, { error: 'must be from 0 to 1' })
    .max(1, { error: 'must be from 0 to 1' });

const engineSettings = z.discriminatedUnion('engine_type', [
  z.strictObject({
    engine_type: z.literal('elevenlabs'),
    model: z
      .enum(['eleven_multilingual_v2', 'eleven_turbo_v2_5', 'eleven_flash_v2_5', 'eleven_v3'])
      .optional(),
    similarity_boost: unit('similarity_boost').optional(),
    stability: unit('stability').optional(),
    style: unit('style').optional(),
    use_speaker_boost: z.boolean().optional(),
  }),
  z.strictObject({
    engine_type: z.literal('fish'),
    model: z.enum(['s1', 's2-pro']).optional(),
    similarity: unit('similarity').optional(),
    stability: unit('stability').optional(),
  }),
  z.strictObject({ engine_type: z.literal('starfish') }),
]);

export const voiceSettings = z.strictObject({
  speed: z
    .number()
    .min(0.5, { error: 'must be from 0.5 to 1.5' })
    .max(1.5, { error: 'must be from 0.5 to 1.5' })
    .default(1),
  pitch: z
    .number()
    .min(-50, { error: 'must be from -50 to 50' })
    .max(50, { error: 'must be from -50 to 50' })
    .default(0),
  volume: z
    .number()
    .min(0, { error: 'must be from 0 to 1' })
    .max(1, { error: 'must be from 0 to 1' })
    .default(1),
  locale: z.string().min(2).max(35).optional(),
  engine_settings: engineSettings.optional(),
});
export type VoiceSettings = z.output<typeof voiceSettings>;

const caption = z.strictObject({
  file_format: z.enum(['srt']).default('srt'),
  /** Burns captions into `video_url`; without it they are a sidecar (and in `captioned_video_url`). */
  style: z.enum(['default']).optional(),
});

const background = z
  .strictObject({
    type: z.enum(['color', 'image']),
    value: z.string().optional(),
    url: z.string().min(1).max(2048).optional(),
    asset_id: id.optional(),
  })
  .superRefine((value, context) => {
    if (value.type === 'color') {
      if (value.value === undefined)
        context.addIssue({ code: 'custom', path: ['value'], message: 'is required when type is color' });
      else if (!/^#[0-9a-fA-F]{6}$/.test(value.value))
        context.addIssue({
          code: 'custom',
          path: ['value'],
          message: "must be a 6-digit hex colour such as '#1a2b3c'",
        });
      for (const field of ['url', 'asset_id'] as const)
        if (value[field] !== undefined)
          context.addIssue({ code: 'custom', path: [field], message: 'is only used when type is image' });
    } else {
      if ((value.url === undefined) === (value.asset_id === undefined))
        context.addIssue({
          code: 'custom',
          path: ['url'],
          message: 'give exactly one of url and asset_id when type is image',
        });
      if (value.value !== undefined)
        context.addIssue({ code: 'custom', path: ['value'], message: 'is only used when type is color' });
    }
  });
export type BackgroundInput = z.output<typeof background>;

const engine = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('avatar_v'), reference_look_id: id.optional() }),
  z.strictObject({ type: z.literal('avatar_iv') }),
  z.strictObject({ type: z.literal('avatar_iii') }),
]);

const watermark = z.strictObject({
  image: mediaInputSchema,
  opacity: z.number().min(0).max(1).default(1),
  placement: z
    .strictObject({
      position: z.enum(['top_left', 'top_right', 'bottom_left', 'bottom_right']).default('bottom_right'),
      offset_x: z.number().min(-1).max(1).optional(),
      offset_y: z.number().min(-1).max(1).optional(),
    })
    .optional(),
  scale: z.number().gt(0).max(10).default(1),
});
export type WatermarkInput = z.output<typeof watermark>;

/** Fields every single-video create shares. */
const outputFields = {
  title,
  folder_id: nullable(z.string().max(128)).transform((value) => value || undefined),
  callback_url: nullable(outboundUrlParam),
  callback_id: nullable(z.string().max(255, { error: 'must be at most 255 characters' })),
  aspect_ratio: z.enum(ASPECT_RATIOS).default('16:9'),
  resolution: z.enum(RESOLUTIONS).optional(),
  brand_glossary_id: nullable(id),
  /** The brand kit to make the video with; omitted: the workspace's default kit, if any. */
  brand_kit_id: nullable(id),
};

/** Speech of a presenter: a script with a voice, or a recording. */
const speechFields = {
  script: script.optional(),
  voice_id: id.optional(),
  voice_settings: voiceSettings.optional(),
  audio_url: z.string().min(1).max(2048).optional(),
  audio_asset_id: id.optional(),
};

type SpeechFields = {
  script?: string | undefined;
  voice_id?: string | undefined;
  audio_url?: string | undefined;
  audio_asset_id?: string | undefined;
};

/**
 * One source of speech at most (`script`, `audio_url`, `audio_asset_id`); `required` demands one.
 * `voiceRequired`: a script needs a `voice_id` (an avatar falls back to its look's default voice).
 */
function checkSpeech(
  value: SpeechFields,
  context: z.RefinementCtx,
  required: boolean,
  voiceRequired: boolean,
) {
  const sources = (['script', 'audio_url', 'audio_asset_id'] as const).filter(
    (field) => value[field] !== undefined,
  );
  if (sources.length > 1) {
    context.addIssue({
      code: 'custom',
      path: [sources[1] as string],
      message: `cannot be combined with ${sources[0]}: give one source of speech`,
    });
  } else if (sources.length === 0 && required) {
    context.addIssue({
      code: 'custom',
      path: ['script'],
      message: 'is required: give script (with voice_id), audio_url or audio_asset_id',
    });
  }
  if (value.script !== undefined && voiceRequired && value.voice_id === undefined) {
    context.addIssue({ code: 'custom', path: ['voice_id'], message: 'is required with script' });
  }
  if (value.script === undefined && value.voice_id !== undefined && sources.length > 0) {
    context.addIssue({ code: 'custom', path: ['voice_id'], message: 'is only used with script' });
  }
}

const presenterFields = {
  ...outputFields,
  ...speechFields,
  background: background.optional(),
  caption: caption.optional(),
  output_format: z.enum(['mp4', 'webm']).default('mp4'),
  fit: z.enum(['contain', 'cover']).optional(),
  expressiveness: z.enum(['high', 'medium', 'low']).optional(),
  motion_prompt: z.string().max(1000).optional(),
  remove_background: z.boolean().optional(),
  watermark: watermark.optional(),
};

function checkPresenter(
  value: SpeechFields & { output_format: 'mp4' | 'webm'; background?: unknown },
  context: z.RefinementCtx,
  voiceRequired: boolean,
) {
  checkSpeech(value, context, true, voiceRequired);
  if (value.output_format === 'webm' && value.background !== undefined) {
    context.addIssue({
      code: 'custom',
      path: ['background'],
      message: 'cannot be set with output_format webm: a webm video has a transparent background',
    });
  }
}

export const avatarVideoBody = z
  .strictObject({
    type: z.literal('avatar'),
    avatar_id: id,
    engine: engine.optional(),
    ...presenterFields,
  })
  .superRefine((value, context) => {
    checkPresenter(value, context, false);
    if (value.engine?.type === 'avatar_v' && value.expressiveness !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['expressiveness'],
        message: 'is not supported with engine avatar_v',
      });
    }
  });

export const imageVideoBody = z
  .strictObject({ type: z.literal('image'), image: mediaInputSchema, ...presenterFields })
  .superRefine((value, context) => checkPresenter(value, context, true));

export const cinematicAvatarBody = z
  .strictObject({
    type: z.literal('cinematic_avatar'),
    prompt: z
      .string()
      .min(1, { error: 'must not be empty' })
      .max(5000, { error: 'must be at most 5000 characters' }),
    avatar_id: z
      .array(id)
      .min(1, { error: 'must hold 1 to 3 look ids' })
      .max(3, { error: 'must hold 1 to 3 look ids' }),
    duration: nullable(
      z
        .number()
        .int({
          error: `must be a whole number of seconds from ${CINEMATIC_DURATION.min} to ${CINEMATIC_DURATION.max}`,
        })
        .min(CINEMATIC_DURATION.min, {
          error: `must be from ${CINEMATIC_DURATION.min} to ${CINEMATIC_DURATION.max} seconds`,
        })
        .max(CINEMATIC_DURATION.max, {
          error: `must be from ${CINEMATIC_DURATION.min} to ${CINEMATIC_DURATION.max} seconds`,
        }),
    ),
    auto_duration: z.boolean().default(false),
    enhance_prompt: z.boolean().default(false),
    references: z.array(mediaInputSchema).max(12, { error: 'must hold at most 12 references' }).optional(),
    aspect_ratio: z
      .enum(['16:9', '9:16', '1:1'], { error: "must be one of '16:9', '9:16', '1:1'" })
      .default('16:9'),
    resolution: z.enum(['720p', '1080p'], { error: "must be '720p' or '1080p'" }).default('720p'),
    title,
    folder_id: outputFields.folder_id,
    callback_url: outputFields.callback_url,
    callback_id: outputFields.callback_id,
  })
  .superRefine((value, context) => {
    if (value.auto_duration && value.duration !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['duration'],
        message: 'must be omitted when auto_duration is true',
      });
    }
  });

const studioBackground = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('color'), color: hexColor }),
]);

const avatarScene = z.strictObject({
  type: z.literal('avatar_video'),
  input: z
    .strictObject({
      type: z.literal('avatar'),
      avatar_id: id,
      engine: engine.optional(),
      expressiveness: z.enum(['high', 'medium', 'low']).optional(),
      motion_prompt: z.string().max(1000).optional(),
      background: nullable(studioBackground),
      ...speechFields,
    })
    .superRefine((value, context) => checkSpeech(value, context, true, false)),
});

const imageScene = z
  .strictObject({
    type: z.literal('image'),
    source: mediaInputSchema,
    duration: z
      .number()
      .gt(0, { error: `must be more than 0 and at most ${MAX_SILENT_SCENE_SECONDS} seconds` })
      .max(MAX_SILENT_SCENE_SECONDS, {
        error: `must be more than 0 and at most ${MAX_SILENT_SCENE_SECONDS} seconds`,
      })
      .optional(),
    ...speechFields,
  })
  .superRefine((value, context) => {
    const narrated =
      value.script !== undefined || value.audio_url !== undefined || value.audio_asset_id !== undefined;
    if (narrated && value.duration !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['duration'],
        message: 'is for silent scenes: omit it when the scene is narrated',
      });
    } else if (!narrated && value.duration === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['duration'],
        message:
          'is required for a silent image scene (or narrate it with script, audio_url or audio_asset_id)',
      });
    }
    checkSpeech(value, context, false, true);
  });

const videoScene = z
  .strictObject({
    type: z.literal('video'),
    source: mediaInputSchema,
    playback: z
      .strictObject({
        mode: z.enum(['freeze', 'loop', 'fit_to_scene']).optional(),
        mute: z.boolean().default(false),
        volume: z
          .number()
          .min(0, { error: 'must be from 0 to 1' })
          .max(1, { error: 'must be from 0 to 1' })
          .default(1),
      })
      .optional(),
    ...speechFields,
  })
  .superRefine((value, context) => {
    checkSpeech(value, context, false, true);
    const narrated =
      value.script !== undefined || value.audio_url !== undefined || value.audio_asset_id !== undefined;
    if (value.playback?.mode !== undefined && !narrated) {
      context.addIssue({
        code: 'custom',
        path: ['playback', 'mode'],
        message: 'aligns a clip to its voiceover: it needs script, audio_url or audio_asset_id',
      });
    }
  });

export const studioScene = z.discriminatedUnion('type', [avatarScene, imageScene, videoScene], {
  error: (issue) =>
    issue.code === 'invalid_union' ? 'must be one of: avatar_video, image, video' : undefined,
});
export type StudioSceneInput = z.output<typeof studioScene>;

export const studioVideoBody = z
  .strictObject({
    type: z.literal('studio'),
    scenes: z
      .array(studioScene)
      .min(1, { error: `must hold 1 to ${MAX_STUDIO_SCENES} scenes` })
      .max(MAX_STUDIO_SCENES, { error: `must hold 1 to ${MAX_STUDIO_SCENES} scenes` }),
    caption: caption.optional(),
    watermark: watermark.optional(),
    ...outputFields,
  })
  .superRefine((value, context) => {
    // The video's record keeps every script: it must stay well inside DynamoDB's 400 KB item.
    const bytes = value.scenes.reduce((total, scene) => {
      const text = scene.type === 'avatar_video' ? scene.input.script : scene.script;
      return total + Buffer.byteLength(text ?? '', 'utf8');
    }, 0);
    if (bytes > MAX_STUDIO_SCRIPT_BYTES) {
      context.addIssue({
        code: 'custom',
        path: ['scenes'],
        message: `hold ${bytes} bytes of script in all (UTF-8); at most ${MAX_STUDIO_SCRIPT_BYTES} per video`,
      });
    }
  });

export const createVideoBody = z.discriminatedUnion(
  'type',
  [avatarVideoBody, imageVideoBody, studioVideoBody, cinematicAvatarBody],
  {
    error: (issue) =>
      issue.code === 'invalid_union' ? `must be one of: ${VIDEO_TYPES.join(', ')}` : undefined,
  },
);
export type CreateVideoRequest = z.output<typeof createVideoBody>;

export const createVideoBatchBody = z
  .strictObject({
    videos: z
      .array(z.unknown())
      .min(1, { error: `must hold 1 to ${MAX_BATCH_VIDEOS} videos` })
      .max(MAX_BATCH_VIDEOS, { error: `must hold 1 to ${MAX_BATCH_VIDEOS} videos` }),
    title,
    folder_id: outputFields.folder_id,
    callback_url: outputFields.callback_url,
  })
  .transform((value, context) => {
    const videos: CreateVideoRequest[] = [];
    for (const [index, video] of value.videos.entries()) {
      const folder =
        video && typeof video === 'object' ? (video as { folder_id?: unknown }).folder_id : undefined;
      if (folder !== undefined && folder !== null && folder !== '') {
        context.addIssue({
          code: 'custom',
          path: ['videos', index, 'folder_id'],
          message: 'set folder_id once on the batch, not on its videos',
        });
        return z.NEVER;
      }
      const parsed = createVideoBody.safeParse(video);
      if (!parsed.success) {
        for (const issue of parsed.error.issues)
          context.addIssue({ ...issue, path: ['videos', index, ...issue.path] } as never);
        return z.NEVER;
      }
      videos.push(parsed.data);
    }
    return { ...value, videos };
  });
export type CreateVideoBatchRequest = z.output<typeof createVideoBatchBody>;

export const videoIdPath = z.strictObject({ video_id: z.string().min(1).max(128) });
export const batchIdPath = z.strictObject({ batch_id: z.string().min(1).max(128) });

export const listVideosQuery = z.strictObject({
  // 10 by default, as the hosted API.
  limit: limitParam(100, 10),
  token: tokenParam,
  folder_id: z.string().min(1).max(128).optional(),
  title: userText(z.string().min(1).max(500)).optional(),
});

export const batchItemsQuery = z.strictObject({ limit: limitParam(100, 100), token: tokenParam });

export const videoStatusesQuery = z
  .strictObject({ video_ids: idListParam, batch_ids: idListParam })
  .refine((query) => query.video_ids.length + query.batch_ids.length > 0, {
    error: 'name at least one id in video_ids or batch_ids',
    path: ['video_ids'],
  });
