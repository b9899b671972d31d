/** Video translation and proofreads: this area's rows of the route table (lambdas/api/routes.ts). */
import { checkStatusIdCount } from '../../batches/bulk-status.js';
import { presignMediaDownload } from '../../media/media-store.js';
import { createTranslations } from '../../translations/create-translation.js';
import {
  generateFromProofread,
  proofreadSubtitles,
  proofreadView,
  replaceProofreadSubtitles,
} from '../../translations/proofreads.js';
import { createTranslationBatch, translationBatchView } from '../../translations/translation-batches.js';
import { targetLanguages } from '../../translations/translation-languages.js';
import {
  deleteTranslation,
  listTranslations,
  renameTranslation,
  requireProofread,
  requireTranslation,
  translationStatuses,
} from '../../translations/translation-records.js';
import { translationView } from '../../translations/translation-views.js';
import { batchIdPath, batchItemsQuery } from '../assets/batch-schemas.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { apiCreditCreate, areaRoutes, paidCreate, row } from '../route-rows.js';
import {
  createdProofreadsBody,
  createdTranslationsBody,
  createProofreadBody,
  createTranslationBatchBody,
  createTranslationBody,
  generatedTranslationBody,
  generateProofreadBody,
  listTranslationsQuery,
  proofreadBody,
  proofreadIdPath,
  proofreadSrtBody,
  replaceProofreadSrtBody,
  translationBatchBody,
  translationBatchCreatedBody,
  translationBody,
  translationDeletedBody,
  translationIdPath,
  translationLanguagesBody,
  translationListBody,
  translationStatusesQuery,
  translationStatusListBody,
  updateTranslationBody,
} from './schemas.js';
import { V2_ROWS } from './v2-rows.js';

const proofreadCreate = endpoint(
  { body: createProofreadBody },
  async ({ body, principal }) => {
    const { enable_video_stretching, ...rest } = body;
    const records = await createTranslations(
      { workspaceId: principal.workspaceId, proofread: true },
      {
        ...rest,
        ...(enable_video_stretching !== undefined
          ? { enable_dynamic_duration: enable_video_stretching }
          : {}),
      },
    );
    return respond.ok({
      proofread_ids: records.map((record) => record.video_translation_id),
      status: 'processing',
    });
  },
  { response: createdProofreadsBody },
);

const proofreadGet = endpoint(
  { path: proofreadIdPath },
  async ({ path, principal }) =>
    respond.ok(proofreadView(await requireProofread(principal.workspaceId, path.proofread_id))),
  { response: proofreadBody },
);

const proofreadSrtGet = endpoint(
  { path: proofreadIdPath },
  async ({ path, principal }) => {
    const outputs = await proofreadSubtitles(principal.workspaceId, path.proofread_id);
    return respond.ok({
      srt_url: await presignMediaDownload(outputs.srt_key),
      original_srt_url: await presignMediaDownload(outputs.original_srt_key),
    });
  },
  { response: proofreadSrtBody },
);

const proofreadSrtUpdate = endpoint(
  { path: proofreadIdPath, body: replaceProofreadSrtBody },
  async ({ path, body, principal }) =>
    respond.ok(
      proofreadView(await replaceProofreadSubtitles(principal.workspaceId, path.proofread_id, body.srt)),
    ),
  { response: proofreadBody },
);

const proofreadGenerate = endpoint(
  { path: proofreadIdPath, body: generateProofreadBody },
  async ({ path, body, principal }) => {
    const record = await generateFromProofread(principal.workspaceId, path.proofread_id, body);
    return respond.ok({ video_translation_id: record.video_translation_id, status: 'processing' });
  },
  { response: generatedTranslationBody },
);

const translationBatchCreate = endpoint(
  { body: createTranslationBatchBody },
  async ({ body, principal }) => {
    const batch = await createTranslationBatch(principal.workspaceId, body);
    return respond.accepted({ batch_id: batch.batch_id });
  },
  { successStatus: 202, response: translationBatchCreatedBody },
);

const translationBatchGet = endpoint(
  { path: batchIdPath, query: batchItemsQuery },
  async ({ path, query, principal }) =>
    respond.ok(await translationBatchView(principal.workspaceId, path.batch_id, query.limit, query.token)),
  { response: translationBatchBody },
);

const translationList = endpoint(
  { query: listTranslationsQuery },
  async ({ query, principal }) => {
    const page = await listTranslations(principal.workspaceId, query);
    return respond.list(await Promise.all(page.items.map(translationView)), page.nextToken);
  },
  { response: translationListBody },
);

const translationCreate = endpoint(
  { body: createTranslationBody },
  async ({ body, principal }) => {
    const records = await createTranslations({ workspaceId: principal.workspaceId }, body);
    return respond.ok({ video_translation_ids: records.map((record) => record.video_translation_id) });
  },
  { response: createdTranslationsBody },
);

const translationLanguages = endpoint(
  {},
  async () => respond.ok({ languages: targetLanguages().map((language) => language.name) }),
  { response: translationLanguagesBody },
);

const translationStatusesList = endpoint(
  { query: translationStatusesQuery },
  async ({ query, principal }) => {
    checkStatusIdCount(query.video_translation_ids, query.batch_ids, 'video_translation_ids');
    return respond.list(
      await translationStatuses(principal.workspaceId, query.video_translation_ids, query.batch_ids),
      null,
    );
  },
  { response: translationStatusListBody },
);

const translationGet = endpoint(
  { path: translationIdPath },
  async ({ path, principal }) =>
    respond.ok(
      await translationView(await requireTranslation(principal.workspaceId, path.video_translation_id)),
    ),
  { response: translationBody },
);

const translationUpdate = endpoint(
  { path: translationIdPath, body: updateTranslationBody },
  async ({ path, body, principal }) =>
    respond.ok(
      await translationView(
        await renameTranslation(principal.workspaceId, path.video_translation_id, body.title),
      ),
    ),
  { response: translationBody },
);

const translationDelete = endpoint(
  { path: translationIdPath },
  async ({ path, principal }) => {
    await deleteTranslation(principal.workspaceId, path.video_translation_id);
    return respond.ok({ id: path.video_translation_id });
  },
  { response: translationDeletedBody },
);

export const AREA_ROUTES = areaRoutes('video-translations', [
  row(
    'GET',
    '/v3/video-translations',
    'VideoTranslateList',
    'List video translations',
    ['translations:read'],
    'read',
    { endpoint: translationList },
  ),
  row(
    'POST',
    '/v3/video-translations',
    'VideoTranslateCreate',
    'Translate a video',
    ['translations:write'],
    'heavy',
    { ...paidCreate, endpoint: translationCreate },
  ),
  row(
    'POST',
    '/v3/video-translations/batches',
    'VideoTranslateBatchesCreate',
    'Translate videos in a batch',
    ['translations:write'],
    'heavy',
    { ...apiCreditCreate, endpoint: translationBatchCreate },
  ),
  row(
    'GET',
    '/v3/video-translations/batches/{batch_id}',
    'VideoTranslateBatchesGet',
    'Get a translation batch',
    ['translations:read'],
    'status',
    { endpoint: translationBatchGet },
  ),
  row(
    'GET',
    '/v3/video-translations/languages',
    'VideoTranslateLanguagesList',
    'List translation languages',
    ['translations:read'],
    'read',
    { endpoint: translationLanguages },
  ),
  row(
    'POST',
    '/v3/video-translations/proofreads',
    'VideoTranslateProofreadsCreate',
    'Start a proofread session',
    ['translations:write'],
    'heavy',
    { ...paidCreate, endpoint: proofreadCreate },
  ),
  row(
    'GET',
    '/v3/video-translations/proofreads/{proofread_id}',
    'VideoTranslateProofreadsGet',
    'Get a proofread session',
    ['translations:read'],
    'status',
    { endpoint: proofreadGet },
  ),
  row(
    'POST',
    '/v3/video-translations/proofreads/{proofread_id}/generate',
    'VideoTranslateProofreadsGenerate',
    'Generate the video of a proofread',
    ['translations:write'],
    'heavy',
    { billing: 'credits', endpoint: proofreadGenerate },
  ),
  row(
    'GET',
    '/v3/video-translations/proofreads/{proofread_id}/srt',
    'VideoTranslateProofreadsSrtGet',
    'Download the proofread SRT',
    ['translations:read'],
    'read',
    { endpoint: proofreadSrtGet },
  ),
  row(
    'PUT',
    '/v3/video-translations/proofreads/{proofread_id}/srt',
    'VideoTranslateProofreadsSrtUpdate',
    'Replace the proofread SRT',
    ['translations:write'],
    'write',
    { endpoint: proofreadSrtUpdate },
  ),
  row(
    'GET',
    '/v3/video-translations/statuses',
    'VideoTranslateStatusesList',
    'Bulk translation statuses',
    ['translations:read'],
    'status',
    { endpoint: translationStatusesList },
  ),
  row(
    'GET',
    '/v3/video-translations/{video_translation_id}',
    'VideoTranslateGet',
    'Get a video translation',
    ['translations:read'],
    'status',
    { endpoint: translationGet },
  ),
  row(
    'PATCH',
    '/v3/video-translations/{video_translation_id}',
    'VideoTranslateUpdate',
    'Update a video translation',
    ['translations:write'],
    'write',
    { endpoint: translationUpdate },
  ),
  row(
    'DELETE',
    '/v3/video-translations/{video_translation_id}',
    'VideoTranslateDelete',
    'Delete a video translation',
    ['translations:write'],
    'write',
    { endpoint: translationDelete },
  ),
  ...V2_ROWS,
]);
