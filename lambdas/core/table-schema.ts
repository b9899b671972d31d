/**
 * The single-table design, shared by the CDK stack, the local stack and the data-access code.
 *
 * Every workspace-owned item lives under `pk = WS#<workspace_id>`, so tenant isolation is a property
 * of the key: a handler can only read what its principal's workspace partition holds, and a resource
 * of another workspace is simply not found.
 */
export const TABLE_SCHEMA = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Items whose `expires_at` (Unix seconds) has passed are deleted by DynamoDB TTL. */
  timeToLiveAttribute: 'expires_at',
  /** Cross-partition look-ups: workspaces list, API keys of a workspace. */
  gsi1: { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
} as const;

export const keys = {
  workspace: (workspaceId: string) => ({ pk: `WS#${workspaceId}`, sk: 'WORKSPACE' }),
  /** API keys are found by the SHA-256 of the key, never by the key itself. */
  apiKeyByHash: (keyHash: string) => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' }),
  /** Any workspace-owned resource: `WS#<ws>` / `<TYPE>#<id>`. */
  resource: (workspaceId: string, type: string, id: string) => ({
    pk: `WS#${workspaceId}`,
    sk: `${type}#${id}`,
  }),
  workspacePartition: (workspaceId: string) => `WS#${workspaceId}`,
} as const;

/** Sort-key prefixes of workspace-owned resource types. */
export const RESOURCE_TYPES = {
  /** An AI clipping job: one long video cut into short clips (clipping/clipping-records.ts). */
  aiClipping: 'AI_CLIPPING',
  asset: 'ASSET',
  /** An avatar group (character) of the workspace: photo avatars, prompt avatars, a digital twin. */
  avatarGroup: 'AVATAR_GROUP',
  /** A look of one of the workspace's avatar groups: its id is a video's `avatar_id`. */
  avatarLook: 'AVATAR_LOOK',
  /** A background removal job (background-removals/background-removal-records.ts). */
  backgroundRemoval: 'BACKGROUND_REMOVAL',
  /** Which background removal a workspace's `request_id` made (its dedup key): `<sha256 of the request_id>`. */
  backgroundRemovalRequest: 'BACKGROUND_REMOVAL_REQUEST',
  batch: 'BATCH',
  /** A brand glossary: pronunciations and translation rules (brand/brand-glossaries.ts). */
  brandGlossary: 'BRAND_GLOSSARY',
  /**
   * Paid jobs the workspace started on one UTC day (`<YYYY-MM-DD>`), counted against its daily job
   * quota by the reservation that starts each (billing/credits.ts); expires after the day.
   */
  dailyJobs: 'DAILY_JOBS',
  /** The slots of one job type the workspace's running jobs hold (jobs/job-admission.ts): `<job>`. */
  jobSlots: 'JOB_SLOTS',
  /** A job waiting for a slot of its type: `<job>#<execution name>` (creation order). */
  jobQueue: 'JOB_QUEUE',
  /** The slot one job holds: `<job>#<execution name>`. */
  jobSlot: 'JOB_SLOT',
  /** A deleted brand glossary: requests that still name it keep working, without its rules. */
  brandGlossaryTombstone: 'BRAND_GLOSSARY_DELETED',
  /** A brand kit of the workspace (`/v3/brand-kits`): colours, caption fonts, logos. */
  brandKit: 'BRAND_KIT',
  /** A filler-word removal job (filler-removals/filler-removal-records.ts). */
  fillerWordRemoval: 'FILLER_WORD_REMOVAL',
  folder: 'FOLDER',
  /** A HyperFrames render (`/v3/hyperframes/renders`): hyperframes/hyperframes-records.ts. */
  hyperframesRender: 'HYPERFRAMES_RENDER',
  /** A lipsync (`/v3/lipsyncs`, and the deprecated `/v3/overdubs` over the same records): lipsyncs/lipsync-records.ts. */
  lipsync: 'LIPSYNC',
  /** An audio voice of the Models API (`/v3/models/audio/voices`), instant or professional. */
  modelVoice: 'MODEL_VOICE',
  /** A deleted audio voice, kept a while so that repeating its delete still succeeds. */
  modelVoiceTombstone: 'MODEL_VOICE_DELETED',
  /** A generated video of the Models API (`/v3/models/videos`): model-videos/model-video-records.ts. */
  modelVideo: 'MODEL_VIDEO',
  /** An image generation of the Models API (`/v3/models/images`): model-images/model-image-records.ts. */
  modelImageGeneration: 'MODEL_IMAGE_GENERATION',
  /** A realtime avatar stream of the streaming service (lambdas/realtime/stream-records.ts). */
  realtimeStream: 'REALTIME_STREAM',
  /** The words of one published block of a realtime stream: `<stream_id>#<block, 6 digits>`. */
  realtimeStreamWords: 'REALTIME_STREAM_WORDS',
  /** The workspace's live realtime streams (a single item, a string set): its concurrency limit. */
  realtimeStreamSlots: 'REALTIME_STREAM_SLOTS',
  video: 'VIDEO',
  /** A video agent session: its conversation, plan, resources and drafts (video-agents/agent-sessions.ts). */
  videoAgentSession: 'VIDEO_AGENT_SESSION',
  /** A video translation: one output language of a translate request (translations/translation-records.ts). */
  videoTranslation: 'VIDEO_TRANSLATION',
  /** A workspace's own voice: designed (`POST /v3/voices`) or cloned (`POST /v3/voices/clone`). */
  voice: 'VOICE',
  /** The workspace's count of voice clone slots in use (a single item). */
  voiceCloneSlots: 'VOICE_CLONE_SLOTS',
  /** A template made from a video (`POST /v3/templates`). */
  template: 'TEMPLATE',
  /**
   * The workspace's credits charged on one UTC day for one job type (billing/usage-ledger.ts):
   * `<YYYY-MM-DD>#<job type>`, written with the settlement it counts.
   */
  usage: 'USAGE',
  /** A template's use of a voice, `<voice_id>#<template_id>`: a voice in use cannot be deleted. */
  templateVoiceReference: 'TEMPLATE_VOICE',
  webhookEndpoint: 'WEBHOOK_ENDPOINT',
  /** A dispatched event, keyed by a time-ordered sequence id (lists newest first). */
  webhookEvent: 'WEBHOOK_EVENT',
  /** An event's id → its sequence id; its conditional write is the per-workspace dedupe. */
  webhookEventId: 'WEBHOOK_EVENT_ID',
  /** One delivery of an event to one target, with its attempts: `<event seq>#<delivery id>`. */
  webhookDelivery: 'WEBHOOK_DELIVERY',
  /** The workspace's secret for signing one-off callbacks (a single item). */
  webhookCallbackSecret: 'WEBHOOK_CALLBACK_SECRET',
} as const;
export type ResourceType = (typeof RESOURCE_TYPES)[keyof typeof RESOURCE_TYPES];
