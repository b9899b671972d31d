/**
 * The bodies, queries and responses of the video agent routes, field for field from the reference
 * (`VideoAgent*` of cli_specs.json, query_parameters.json), strict so a misspelt field is a 400
 * naming it. Fields this service adds to responses are described as its extensions.
 */
import { z } from 'zod';
import { mediaInputSchema } from '../../assets/media-inputs.js';
import { limitParam, outboundUrlParam, tokenParam, userText } from '../../core/validation.js';
import { TRANSITION_KINDS } from '../../engines/composition/composition-engine.js';
import { MAX_EDIT_PLAN_ITEMS } from '../../video-agents/agent-edits.js';
import { AGENT_MODES, SESSION_STATUS } from '../../video-agents/agent-sessions.js';
import { MAX_AGENT_FILES } from '../../video-agents/video-agent-requests.js';
import { dataEnvelope, listEnvelope, unixSeconds } from '../pipeline/response-envelopes.js';

/** Longest prompt or message, in characters. */
export const MAX_PROMPT_LENGTH = 10_000;

const id = z
  .string()
  .min(1, { error: 'must not be empty' })
  .max(128, { error: 'must be at most 128 characters' });
const text = (max: number) =>
  userText(
    z
      .string()
      .max(max, { error: `must be at most ${max} characters` })
      .refine((value) => value.trim().length > 0, { error: 'must not be empty' }),
  );

const files = z
  .array(mediaInputSchema, { error: 'must be an array of files' })
  .max(MAX_AGENT_FILES, { error: `must hold at most ${MAX_AGENT_FILES} files` })
  .meta({
    description:
      'Images and clips become scene material (shown full frame); text (base64 with media_type text/plain or text/markdown) is source content the script is written from; PDFs are kept, but reading them needs a document text engine this deployment lacks (the run fails with engine_unavailable).',
  });

export const sessionIdPath = z.strictObject({ session_id: id });
export const resourcePath = z.strictObject({ session_id: id, resource_id: id });

export const createSessionBody = z.strictObject({
  prompt: text(MAX_PROMPT_LENGTH).meta({
    description:
      'What the video should be, e.g. "a 45-second explainer about how solar panels work, friendly tone". Length, tone and kind are read from it.',
  }),
  mode: z
    .enum(Object.values(AGENT_MODES), { error: "must be 'generate' or 'chat'" })
    .default(AGENT_MODES.generate)
    .meta({
      description:
        '`generate`: plan and render without stopping. `chat`: plan, then wait (status waiting_for_input) for the go-ahead or changes.',
    }),
  style_id: id
    .optional()
    .meta({ description: 'A style of GET /v3/video-agents/styles; clean-explainer when omitted.' }),
  orientation: z.enum(['landscape', 'portrait'], { error: "must be 'landscape' or 'portrait'" }).optional(),
  avatar_id: id
    .optional()
    .meta({ description: "The presenter's look; the style's stock presenter when omitted." }),
  voice_id: id
    .optional()
    .meta({ description: "The narrator's voice; the presenter's default voice when omitted." }),
  brand_kit_id: id.optional(),
  files: files.optional(),
  incognito_mode: z
    .boolean({ error: 'must be a boolean' })
    .default(false)
    .meta({ description: 'Leave the session out of GET /v3/video-agents (it stays readable by id).' }),
  callback_url: outboundUrlParam.optional(),
  callback_id: z.string().max(255, { error: 'must be at most 255 characters' }).optional(),
});

export const editPlanItem = z.strictObject({
  scene_id: id,
  text: text(5000).meta({ description: "The scene's new narration." }),
  scene_snapshot_video_id: id.meta({
    description: 'The draft whose scenes were read (GET /v3/videos/{id}/scenes).',
  }),
  edit_version: z.string().min(1, { error: 'must not be empty' }).max(64),
});

export const followUpBody = z
  .strictObject({
    message: text(MAX_PROMPT_LENGTH).optional().meta({
      description:
        'An answer or a change. In chat mode, "go" (or yes, ok, render it) renders the waiting plan; anything else plans again.',
    }),
    edit_plan: z
      .array(editPlanItem, { error: 'must be an array of edits' })
      .min(1, { error: `must hold 1 to ${MAX_EDIT_PLAN_ITEMS} items` })
      .max(MAX_EDIT_PLAN_ITEMS, { error: `must hold 1 to ${MAX_EDIT_PLAN_ITEMS} items` })
      .optional(),
    files: files.optional(),
    avatar_id: id.optional(),
    voice_id: id.optional(),
    brand_kit_id: id.optional(),
  })
  .refine((body) => body.message !== undefined || body.edit_plan !== undefined, {
    error: 'is required unless edit_plan is sent',
    path: ['message'],
  });

export const listSessionsQuery = z.strictObject({ limit: limitParam(100, 20), token: tokenParam });
export const listDraftsQuery = z.strictObject({ limit: limitParam(100, 20), token: tokenParam });
export const listStylesQuery = z.strictObject({
  tag: z.string().min(1).max(64).optional(),
  limit: limitParam(100, 20),
  token: tokenParam,
});

const status = z.enum(Object.values(SESSION_STATUS));

export const sessionCreatedBody = dataEnvelope(
  z.object({
    session_id: z.string(),
    status: z
      .enum([
        SESSION_STATUS.thinking,
        SESSION_STATUS.generating,
        SESSION_STATUS.completed,
        SESSION_STATUS.failed,
      ])
      .meta({
        description:
          'A new session is `thinking`; a replay (same Idempotency-Key) answers as the first time.',
      }),
    created_at: unixSeconds,
    video_id: z.string().optional(),
  }),
);

export const sessionBody = dataEnvelope(
  z.object({
    session_id: z.string(),
    status,
    progress: z.number().int().min(0).max(100),
    title: z.string().optional(),
    video_id: z.string().optional().meta({ description: 'The latest draft, once one exists.' }),
    mode: z.enum(Object.values(AGENT_MODES)).meta({ description: 'This service’s extension.' }),
    messages: z.array(
      z.object({
        role: z.enum(['user', 'agent']),
        type: z.enum(['text', 'resource', 'error']),
        content: z.string(),
        resource_ids: z.array(z.string()),
        created_at: unixSeconds,
      }),
    ),
    failure_code: z.string().nullable(),
    failure_message: z.string().nullable(),
    engines: z
      .record(z.string(), z.string())
      .meta({ description: 'Who planned: `local` or the text engine.' }),
    created_at: unixSeconds,
    completed_at: unixSeconds.nullable(),
  }),
);

export const sessionListBody = listEnvelope(
  z.object({ session_id: z.string(), title: z.string().optional(), status, created_at: unixSeconds }),
);

export const followUpResultBody = dataEnvelope(
  z.object({
    run_id: z.string().meta({
      description:
        "The follow-up's run: started, or, while the session works, queued to start when the runs before it end.",
    }),
    session_id: z.string(),
    title: z.string().optional(),
    video_id: z
      .string()
      .optional()
      .meta({ description: 'The new draft an edit plan made (none while the follow-up is queued).' }),
    status,
  }),
);

export const stoppedBody = dataEnvelope(z.object({ session_id: z.string(), status }));

export const resourceBody = dataEnvelope(
  z.object({
    resource_id: z.string(),
    resource_type: z.enum(['plan', 'script', 'file', 'draft']),
    source_type: z.enum(['user', 'agent']),
    created_at: unixSeconds,
    url: z.string().nullable(),
    thumbnail_url: z.string().nullable(),
    preview_url: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
  }),
);

export const styleListBody = listEnvelope(
  z.object({
    style_id: z.string(),
    name: z.string(),
    description: z.string(),
    tags: z.array(z.string()),
    aspect_ratio: z.string(),
    thumbnail_url: z.string().nullable(),
    preview_video_url: z.string(),
    palette: z.object({ from: z.string(), to: z.string(), text: z.string(), accent: z.string() }),
    typography: z.object({ family: z.string(), bold: z.boolean(), uppercase: z.boolean() }),
    caption_style: z.enum(['burned_in', 'sidecar']),
    transition: z.object({
      kind: z.enum(Object.values(TRANSITION_KINDS)),
      duration_ms: z.number().int(),
    }),
    music_mood: z.string(),
  }),
);

export const resourceNotFoundMessage = (resourceId: string) =>
  `Resource ${resourceId} is not a resource of this session; its messages name its resource_ids.`;
