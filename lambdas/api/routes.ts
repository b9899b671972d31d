/**
 * THE route table. Every method and path of the contract, once. The CDK stack makes one Lambda
 * function per row, the local server registers the same handlers, the request pipeline reads scopes,
 * rate class, idempotency and billing from here, and the OpenAPI document and the README's coverage
 * table are generated from it. Adding an endpoint = one row + one handler module + tests.
 */
import type { Billing, HttpMethod, RateClass, RouteArea, RouteDefinition, Scope } from './route-types.js';

interface RowOptions {
  idempotent?: boolean;
  billing?: Billing;
  auth?: 'required' | 'none';
  handler?: string;
  removed?: { replacement: string };
}

function row(
  method: HttpMethod,
  path: string,
  operationId: string,
  area: RouteArea,
  summary: string,
  scopes: readonly Scope[],
  rateClass: RateClass,
  options: RowOptions = {},
): RouteDefinition {
  return {
    operationId,
    method,
    path,
    area,
    summary,
    scopes,
    rateClass,
    idempotent: options.idempotent ?? false,
    billing: options.billing ?? 'free',
    // A removed route answers 410 to anyone: it reveals nothing and helps callers migrate.
    auth: options.removed ? 'none' : (options.auth ?? 'required'),
    ...(options.handler ? { handler: options.handler } : {}),
    ...(options.removed ? { removed: options.removed } : {}),
  };
}

/** A create that accepts `Idempotency-Key`. */
const create = { idempotent: true } as const;
/** A create that starts paid work. */
const paidCreate = { idempotent: true, billing: 'credits' } as const;
/** A create payable with API credits only. */
const apiCreditCreate = { idempotent: true, billing: 'api_credits_only' } as const;

export const ROUTES: readonly RouteDefinition[] = [
  // Meta
  row('GET', '/v3/openapi.json', 'OpenApiGet', 'meta', 'OpenAPI 3.1 description of this API', [], 'read', {
    auth: 'none',
    handler: 'meta/get-openapi',
  }),

  // Account and key inspection
  row('GET', '/v3/users/me', 'UserMeGet', 'account', 'Account info with billing and credits', ['account:read'], 'read', {
    handler: 'account/get-current-user',
  }),
  row('GET', '/v3/api_keys/self', 'ApiKeySelfGet', 'account', 'Describe the calling API key', [], 'read', {
    handler: 'account/get-api-key-self',
  }),

  // Folders
  row('GET', '/v3/folders', 'FolderList', 'folders', 'List folders', ['folders:read'], 'read', {
    handler: 'folders/list-folders',
  }),
  row('POST', '/v3/folders', 'FolderCreate', 'folders', 'Create a folder', ['folders:write'], 'write', {
    ...create,
    handler: 'folders/create-folder',
  }),
  row('GET', '/v3/folders/{folder_id}', 'FolderGet', 'folders', 'Get a folder', ['folders:read'], 'read', {
    handler: 'folders/get-folder',
  }),

  // Webhooks
  row('GET', '/v3/webhooks/endpoints', 'WebhookEndpointsList', 'webhooks', 'List webhook endpoints', ['webhooks:read'], 'read', {
    handler: 'webhooks/list-endpoints',
  }),
  row('POST', '/v3/webhooks/endpoints', 'WebhookEndpointsCreate', 'webhooks', 'Register a webhook endpoint', ['webhooks:write'], 'write', {
    ...create,
    handler: 'webhooks/create-endpoint',
  }),
  row('PATCH', '/v3/webhooks/endpoints/{endpoint_id}', 'WebhookEndpointsUpdate', 'webhooks', 'Update a webhook endpoint', ['webhooks:write'], 'write', {
    handler: 'webhooks/update-endpoint',
  }),
  row('DELETE', '/v3/webhooks/endpoints/{endpoint_id}', 'WebhookEndpointsDelete', 'webhooks', 'Delete a webhook endpoint', ['webhooks:write'], 'write', {
    handler: 'webhooks/delete-endpoint',
  }),
  row('POST', '/v3/webhooks/endpoints/{endpoint_id}/rotate-secret', 'WebhookEndpointsRotateSecret', 'webhooks', 'Rotate an endpoint secret', ['webhooks:write'], 'write', {
    handler: 'webhooks/rotate-endpoint-secret',
  }),
  row('GET', '/v3/webhooks/event-types', 'WebhookEventTypesList', 'webhooks', 'List the event types the service emits', ['webhooks:read'], 'read', {
    handler: 'webhooks/list-event-types',
  }),
  row('GET', '/v3/webhooks/events', 'WebhookEventsList', 'webhooks', 'Browse delivered events', ['webhooks:read'], 'read'),

  // Videos
  row('GET', '/v3/videos', 'VideoList', 'videos', 'List videos', ['videos:read'], 'read'),
  row('POST', '/v3/videos', 'VideoCreate', 'videos', 'Create a video', ['videos:write'], 'heavy', paidCreate),
  row('POST', '/v3/videos/batches', 'VideoBatchesCreate', 'videos', 'Create videos in a batch', ['videos:write'], 'heavy', apiCreditCreate),
  row('GET', '/v3/videos/batches/{batch_id}', 'VideoBatchesGet', 'videos', 'Get a video batch', ['videos:read'], 'status'),
  row('GET', '/v3/videos/statuses', 'VideoStatusesList', 'videos', 'Bulk video statuses', ['videos:read'], 'status'),
  row('GET', '/v3/videos/{video_id}', 'VideoGet', 'videos', 'Get a video', ['videos:read'], 'status'),
  row('DELETE', '/v3/videos/{video_id}', 'VideoDelete', 'videos', 'Delete a video', ['videos:write'], 'write'),
  row('GET', '/v3/videos/{video_id}/scenes', 'VideoScenesGet', 'videos', "Read a video's scenes document", ['videos:read'], 'read'),

  // Video agent
  row('GET', '/v3/video-agents', 'VideoAgentList', 'video-agents', 'List video agent sessions', ['video_agent:read'], 'read'),
  row('POST', '/v3/video-agents', 'VideoAgentCreate', 'video-agents', 'Create a video from a prompt', ['video_agent:write'], 'heavy', paidCreate),
  row('GET', '/v3/video-agents/styles', 'VideoAgentStylesList', 'video-agents', 'List video agent styles', ['video_agent:read'], 'read'),
  row('GET', '/v3/video-agents/{session_id}', 'VideoAgentGet', 'video-agents', 'Get a video agent session', ['video_agent:read'], 'status'),
  row('POST', '/v3/video-agents/{session_id}', 'VideoAgentSend', 'video-agents', 'Revise a session (message or edit plan)', ['video_agent:write'], 'heavy', { billing: 'credits' }),
  row('GET', '/v3/video-agents/{session_id}/resources/{resource_id}', 'VideoAgentResourcesGet', 'video-agents', 'Get a session resource', ['video_agent:read'], 'read'),
  row('POST', '/v3/video-agents/{session_id}/stop', 'VideoAgentStop', 'video-agents', 'Stop a session', ['video_agent:write'], 'write'),
  row('GET', '/v3/video-agents/{session_id}/videos', 'VideoAgentVideosList', 'video-agents', 'List videos of a session', ['video_agent:read'], 'read'),

  // Templates
  row('GET', '/v3/templates', 'TemplateList', 'templates', 'List templates', ['templates:read'], 'read'),
  row('POST', '/v3/templates', 'TemplateCreate', 'templates', 'Create a private template from a video', ['templates:write'], 'write', create),
  row('GET', '/v3/templates/{template_id}', 'TemplateGet', 'templates', 'Get a template', ['templates:read'], 'read'),
  row('POST', '/v3/templates/{template_id}', 'TemplateGenerate', 'templates', 'Generate a video from a template', ['templates:read', 'videos:write'], 'heavy', paidCreate),
  row('PATCH', '/v3/templates/{template_id}', 'TemplateUpdate', 'templates', 'Rename a template', ['templates:write'], 'write'),
  row('DELETE', '/v3/templates/{template_id}', 'TemplateDelete', 'templates', 'Delete a template', ['templates:write'], 'write'),
  row('PUT', '/v3/templates/{template_id}/variables', 'TemplateVariablesReplace', 'templates', "Replace a template's variables", ['templates:write'], 'write'),

  // Voices
  row('GET', '/v3/voices', 'VoiceList', 'voices', 'List voices', ['voices:read'], 'read'),
  row('POST', '/v3/voices', 'VoiceCreate', 'voices', 'Design a voice from a description', ['voices:write'], 'write', create),
  row('POST', '/v3/voices/clone', 'VoiceCloneCreate', 'voices', 'Clone a voice from audio', ['voices:write'], 'heavy', paidCreate),
  row('POST', '/v3/voices/speech', 'VoiceSpeechCreate', 'voices', 'Synthesize speech', ['voices:write'], 'write', { billing: 'credits' }),
  row('GET', '/v3/voices/{voice_id}', 'VoiceGet', 'voices', 'Get a voice or voice clone', ['voices:read'], 'status'),
  row('DELETE', '/v3/voices/{voice_id}', 'VoiceDelete', 'voices', 'Delete a voice clone', ['voices:write'], 'write'),

  // Audio catalog
  row('GET', '/v3/audio/sounds', 'AudioSoundsList', 'audio', 'Search music and sound effects', ['assets:read'], 'read'),

  // Video translation and proofreads
  row('GET', '/v3/video-translations', 'VideoTranslateList', 'video-translations', 'List video translations', ['translations:read'], 'read'),
  row('POST', '/v3/video-translations', 'VideoTranslateCreate', 'video-translations', 'Translate a video', ['translations:write'], 'heavy', paidCreate),
  row('POST', '/v3/video-translations/batches', 'VideoTranslateBatchesCreate', 'video-translations', 'Translate videos in a batch', ['translations:write'], 'heavy', apiCreditCreate),
  row('GET', '/v3/video-translations/batches/{batch_id}', 'VideoTranslateBatchesGet', 'video-translations', 'Get a translation batch', ['translations:read'], 'status'),
  row('GET', '/v3/video-translations/languages', 'VideoTranslateLanguagesList', 'video-translations', 'List translation languages', ['translations:read'], 'read'),
  row('POST', '/v3/video-translations/proofreads', 'VideoTranslateProofreadsCreate', 'video-translations', 'Start a proofread session', ['translations:write'], 'heavy', paidCreate),
  row('GET', '/v3/video-translations/proofreads/{proofread_id}', 'VideoTranslateProofreadsGet', 'video-translations', 'Get a proofread session', ['translations:read'], 'status'),
  row('POST', '/v3/video-translations/proofreads/{proofread_id}/generate', 'VideoTranslateProofreadsGenerate', 'video-translations', 'Generate the video of a proofread', ['translations:write'], 'heavy', { billing: 'credits' }),
  row('GET', '/v3/video-translations/proofreads/{proofread_id}/srt', 'VideoTranslateProofreadsSrtGet', 'video-translations', 'Download the proofread SRT', ['translations:read'], 'read'),
  row('PUT', '/v3/video-translations/proofreads/{proofread_id}/srt', 'VideoTranslateProofreadsSrtUpdate', 'video-translations', 'Replace the proofread SRT', ['translations:write'], 'write'),
  row('GET', '/v3/video-translations/statuses', 'VideoTranslateStatusesList', 'video-translations', 'Bulk translation statuses', ['translations:read'], 'status'),
  row('GET', '/v3/video-translations/{video_translation_id}', 'VideoTranslateGet', 'video-translations', 'Get a video translation', ['translations:read'], 'status'),
  row('PATCH', '/v3/video-translations/{video_translation_id}', 'VideoTranslateUpdate', 'video-translations', 'Update a video translation', ['translations:write'], 'write'),
  row('DELETE', '/v3/video-translations/{video_translation_id}', 'VideoTranslateDelete', 'video-translations', 'Delete a video translation', ['translations:write'], 'write'),

  // AI clipping
  row('GET', '/v3/ai-clipping', 'AiClippingList', 'ai-clipping', 'List AI clipping jobs', ['ai_clipping:read'], 'read'),
  row('POST', '/v3/ai-clipping', 'AiClippingCreate', 'ai-clipping', 'Clip a long video into shorts', ['ai_clipping:write'], 'heavy', paidCreate),
  row('GET', '/v3/ai-clipping/{job_id}', 'AiClippingGet', 'ai-clipping', 'Get an AI clipping job', ['ai_clipping:read'], 'status'),
  row('DELETE', '/v3/ai-clipping/{job_id}', 'AiClippingDelete', 'ai-clipping', 'Delete an AI clipping job', ['ai_clipping:write'], 'write'),

  // Lipsync
  row('GET', '/v3/lipsyncs', 'LipsyncList', 'lipsyncs', 'List lipsyncs', ['lipsync:read'], 'read'),
  row('POST', '/v3/lipsyncs', 'LipsyncCreate', 'lipsyncs', 'Replace audio and re-animate lips', ['lipsync:write'], 'heavy', paidCreate),
  row('POST', '/v3/lipsyncs/batches', 'LipsyncBatchesCreate', 'lipsyncs', 'Create lipsyncs in a batch', ['lipsync:write'], 'heavy', apiCreditCreate),
  row('GET', '/v3/lipsyncs/batches/{batch_id}', 'LipsyncBatchesGet', 'lipsyncs', 'Get a lipsync batch', ['lipsync:read'], 'status'),
  row('GET', '/v3/lipsyncs/statuses', 'LipsyncStatusesList', 'lipsyncs', 'Bulk lipsync statuses', ['lipsync:read'], 'status'),
  row('GET', '/v3/lipsyncs/{lipsync_id}', 'LipsyncGet', 'lipsyncs', 'Get a lipsync', ['lipsync:read'], 'status'),
  row('PATCH', '/v3/lipsyncs/{lipsync_id}', 'LipsyncUpdate', 'lipsyncs', 'Update a lipsync', ['lipsync:write'], 'write'),
  row('DELETE', '/v3/lipsyncs/{lipsync_id}', 'LipsyncDelete', 'lipsyncs', 'Delete a lipsync', ['lipsync:write'], 'write'),

  // Overdubs
  row('GET', '/v3/overdubs', 'OverdubList', 'overdubs', 'List overdubs', ['lipsync:read'], 'read'),
  row('POST', '/v3/overdubs', 'OverdubCreate', 'overdubs', 'Dub a video into another voice', ['lipsync:write'], 'heavy', paidCreate),
  row('GET', '/v3/overdubs/{overdub_id}', 'OverdubGet', 'overdubs', 'Get an overdub', ['lipsync:read'], 'status'),
  row('PATCH', '/v3/overdubs/{overdub_id}', 'OverdubUpdate', 'overdubs', 'Update an overdub', ['lipsync:write'], 'write'),
  row('DELETE', '/v3/overdubs/{overdub_id}', 'OverdubDelete', 'overdubs', 'Delete an overdub', ['lipsync:write'], 'write'),

  // Assets
  row('GET', '/v3/assets', 'AssetList', 'assets', 'List assets', ['assets:read'], 'read'),
  row('POST', '/v3/assets', 'AssetCreate', 'assets', 'Upload an asset (multipart)', ['assets:write'], 'write', create),
  row('GET', '/v3/assets/search', 'AssetSearch', 'assets', 'Search assets', ['assets:read'], 'read'),
  row('GET', '/v3/assets/statuses', 'AssetStatusesList', 'assets', 'Bulk asset statuses', ['assets:read'], 'status'),
  row('POST', '/v3/assets/direct-uploads', 'AssetDirectUploadsCreate', 'assets', 'Start a direct upload', ['assets:write'], 'write', create),
  row('POST', '/v3/assets/direct-uploads/batches', 'AssetDirectUploadsBatchesCreate', 'assets', 'Start direct uploads in a batch', ['assets:write'], 'write', create),
  row('POST', '/v3/assets/complete/batches', 'AssetCompleteBatchesCreate', 'assets', 'Complete direct uploads in a batch', ['assets:write'], 'write', create),
  row('GET', '/v3/assets/batches/{batch_id}', 'AssetBatchesGet', 'assets', 'Get an asset batch', ['assets:read'], 'status'),
  row('GET', '/v3/assets/{asset_id}', 'AssetGet', 'assets', 'Get an asset', ['assets:read'], 'read'),
  row('DELETE', '/v3/assets/{asset_id}', 'AssetDelete', 'assets', 'Delete an asset', ['assets:write'], 'write'),
  row('POST', '/v3/assets/{asset_id}/complete', 'AssetCompleteCreate', 'assets', 'Complete a direct upload', ['assets:write'], 'write'),

  // Avatars
  row('GET', '/v3/avatars', 'AvatarList', 'avatars', 'List avatar groups', ['avatars:read'], 'read'),
  row('POST', '/v3/avatars', 'AvatarCreate', 'avatars', 'Create an avatar', ['avatars:write'], 'heavy', paidCreate),
  row('GET', '/v3/avatars/looks', 'AvatarLooksList', 'avatars', 'List avatar looks', ['avatars:read'], 'read'),
  row('POST', '/v3/avatars/looks', 'AvatarLooksCreate', 'avatars', 'Generate looks', ['avatars:write'], 'heavy', paidCreate),
  row('GET', '/v3/avatars/looks/{look_id}', 'AvatarLooksGet', 'avatars', 'Get a look', ['avatars:read'], 'status'),
  row('PATCH', '/v3/avatars/looks/{look_id}', 'AvatarLooksUpdate', 'avatars', 'Update a look', ['avatars:write'], 'write'),
  row('DELETE', '/v3/avatars/looks/{look_id}', 'AvatarLooksDelete', 'avatars', 'Delete a look', ['avatars:write'], 'write'),
  row('GET', '/v3/avatars/{group_id}', 'AvatarGet', 'avatars', 'Get an avatar group', ['avatars:read'], 'status'),
  row('PATCH', '/v3/avatars/{group_id}', 'AvatarUpdate', 'avatars', 'Update an avatar group', ['avatars:write'], 'write'),
  row('DELETE', '/v3/avatars/{group_id}', 'AvatarDelete', 'avatars', 'Delete an avatar group', ['avatars:write'], 'write'),
  row('POST', '/v3/avatars/{group_id}/consent', 'AvatarConsentCreate', 'avatars', 'Submit avatar consent', ['avatars:write'], 'write'),

  // Avatar realtime
  row('POST', '/v3/avatar-realtime', 'AvatarRealtimeCreate', 'realtime', 'Start a realtime avatar stream', ['realtime:write'], 'heavy', paidCreate),
  row('GET', '/v3/avatar-realtime/{stream_id}', 'AvatarRealtimeGet', 'realtime', 'Get a realtime session', ['realtime:read'], 'status'),
  row('DELETE', '/v3/avatar-realtime/{stream_id}', 'AvatarRealtimeDelete', 'realtime', 'End a realtime session', ['realtime:write'], 'write'),
  row('POST', '/v3/avatar-realtime/{stream_id}/text', 'AvatarRealtimeTextCreate', 'realtime', 'Send text for the avatar to speak', ['realtime:write'], 'write'),
  row('GET', '/v3/avatar-realtime/{stream_id}/words', 'AvatarRealtimeWordsList', 'realtime', 'Word timings of a stream', ['realtime:read'], 'read'),

  // Brand
  row('GET', '/v3/brand-glossaries', 'BrandGlossariesList', 'brand', 'List brand glossaries', ['brand:read'], 'read'),
  row('POST', '/v3/brand-glossaries', 'BrandGlossariesCreate', 'brand', 'Create a brand glossary', ['brand:write'], 'write', create),
  row('GET', '/v3/brand-glossaries/{brand_glossary_id}', 'BrandGet', 'brand', 'Get a brand glossary', ['brand:read'], 'read'),
  row('PATCH', '/v3/brand-glossaries/{brand_glossary_id}', 'BrandGlossariesUpdate', 'brand', 'Update a brand glossary', ['brand:write'], 'write'),
  row('DELETE', '/v3/brand-glossaries/{brand_glossary_id}', 'BrandGlossariesDelete', 'brand', 'Delete a brand glossary', ['brand:write'], 'write'),
  row('GET', '/v3/brand-kits', 'BrandKitsList', 'brand', 'List brand kits', ['brand:read'], 'read'),
  row('POST', '/v3/brand-kits', 'BrandKitsCreate', 'brand', 'Create a brand kit', ['brand:write'], 'write', create),
  row('GET', '/v3/brand-kits/{brand_kit_id}', 'BrandKitsGet', 'brand', 'Get a brand kit', ['brand:read'], 'read'),
  row('PATCH', '/v3/brand-kits/{brand_kit_id}', 'BrandKitsUpdate', 'brand', 'Update a brand kit', ['brand:write'], 'write'),
  row('DELETE', '/v3/brand-kits/{brand_kit_id}', 'BrandKitsDelete', 'brand', 'Delete a brand kit', ['brand:write'], 'write'),

  // HyperFrames
  row('GET', '/v3/hyperframes/renders', 'HyperframesRenderList', 'hyperframes', 'List renders', ['hyperframes:read'], 'read'),
  row('POST', '/v3/hyperframes/renders', 'HyperframesRenderCreate', 'hyperframes', 'Render a composition bundle', ['hyperframes:write'], 'heavy', paidCreate),
  row('GET', '/v3/hyperframes/renders/{render_id}', 'HyperframesRenderGet', 'hyperframes', 'Get a render', ['hyperframes:read'], 'status'),
  row('DELETE', '/v3/hyperframes/renders/{render_id}', 'HyperframesRenderDelete', 'hyperframes', 'Delete a render', ['hyperframes:write'], 'write'),

  // Filler word removal
  row('POST', '/v3/filler-word-removals', 'FillerWordRemovalCreate', 'filler-word-removals', 'Remove filler words from media', ['filler_removal:write'], 'heavy', paidCreate),
  row('GET', '/v3/filler-word-removals/{filler_word_removal_id}', 'FillerWordRemovalGet', 'filler-word-removals', 'Get a filler word removal', ['filler_removal:read'], 'status'),

  // Background removal
  row('GET', '/v3/background-removals', 'BackgroundRemovalList', 'background-removals', 'List background removals', ['background_removal:read'], 'read'),
  row('POST', '/v3/background-removals', 'BackgroundRemovalCreate', 'background-removals', 'Remove the background of a video or image', ['background_removal:write'], 'heavy', paidCreate),
  row('GET', '/v3/background-removals/{job_id}', 'BackgroundRemovalGet', 'background-removals', 'Get a background removal', ['background_removal:read'], 'status'),
  row('DELETE', '/v3/background-removals/{job_id}', 'BackgroundRemovalDelete', 'background-removals', 'Delete a background removal', ['background_removal:write'], 'write'),

  // Models
  row('GET', '/v3/models/audio/voices', 'ModelAudioVoicesList', 'models', 'List audio voices', ['voices:read'], 'read'),
  row('POST', '/v3/models/audio/voices', 'ModelAudioVoicesCreate', 'models', 'Create an instant or professional voice', ['voices:write'], 'heavy', apiCreditCreate),
  row('GET', '/v3/models/audio/voices/{voice_id}', 'ModelAudioVoicesGet', 'models', 'Get an audio voice', ['voices:read'], 'status'),
  row('DELETE', '/v3/models/audio/voices/{voice_id}', 'ModelAudioVoicesDelete', 'models', 'Delete an audio voice', ['voices:write'], 'write'),
  row('POST', '/v3/models/audio/tts', 'ModelAudioTtsCreate', 'models', 'Text to speech', ['voices:write'], 'write', { billing: 'api_credits_only' }),
  row('POST', '/v3/models/audio/tts/stream', 'ModelAudioTtsStreamCreate', 'models', 'Text to speech, streamed', ['voices:write'], 'write', { billing: 'api_credits_only' }),
  row('POST', '/v3/models/images', 'ModelImagesCreate', 'models', 'Generate images', ['images:write'], 'heavy', apiCreditCreate),
  row('GET', '/v3/models/images/{generation_id}', 'ModelImagesGet', 'models', 'Get an image generation', ['images:read'], 'status'),
  row('POST', '/v3/models/videos', 'ModelVideosCreate', 'models', 'Generate a short video by model', ['videos:write'], 'heavy', apiCreditCreate),
  row('GET', '/v3/models/videos/{video_id}', 'ModelVideosGet', 'models', 'Get a model video', ['videos:read'], 'status'),

  // Removed on 2026-10-31: the /v1 brand-voice routes. They answer 410 naming the replacement.
  row('GET', '/v1/brand_voice/list', 'LegacyBrandVoiceList', 'legacy', 'Removed: list brand voices', [], 'read', {
    removed: { replacement: 'GET /v3/brand-glossaries' },
  }),
  row('POST', '/v1/brand_voice/{brand_voice_id}', 'LegacyBrandVoiceUpdate', 'legacy', 'Removed: update a brand voice', [], 'write', {
    removed: { replacement: 'PATCH /v3/brand-glossaries/{brand_glossary_id} (vocabulary → terms, blacklist → do_not_translate_terms, whitelist → forced_translations)' },
  }),
];

export function findRoute(operationId: string): RouteDefinition {
  const route = ROUTES.find((candidate) => candidate.operationId === operationId);
  if (!route) throw new Error(`Unknown operation ${operationId}: add it to lambdas/api/routes.ts`);
  return route;
}
