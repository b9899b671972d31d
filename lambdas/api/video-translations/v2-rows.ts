/**
 * The hosted API's `/v2` video-translate routes, for older clients: rows of the video-translations area,
 * served by the `/v3` implementation (docs/reference-notes/v2-video-translate.md). A `/v2` request is
 * mapped onto its `/v3` one, and errors are mapped back so that `param` names the field the client
 * sent (`video_url`, not `video.url`). Answers are `{error: null, data}`; errors keep the service's
 * envelope.
 */
import type { z } from 'zod';
import type { MediaInput } from '../../assets/media-inputs.js';
import {
  ConflictError,
  InvalidParameterError,
  JobFailure,
  NotFoundError,
  ServiceError,
} from '../../core/errors.js';
import { createTranslations, type TranslationRequest } from '../../translations/create-translation.js';
import { targetLanguages } from '../../translations/translation-languages.js';
import {
  getTranslation,
  TRANSLATION_STATUS,
  type VideoTranslationRecord,
} from '../../translations/translation-records.js';
import { presignedOutputs } from '../../translations/translation-views.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { paidCreate, row } from '../route-rows.js';
import {
  type V2_MODES,
  v2CaptionBody,
  v2CaptionQuery,
  v2CreateBody,
  v2CreatedBody,
  v2LanguagesBody,
  v2TranslateIdPath,
  v2TranslationBody,
} from './v2-schemas.js';

type V2CreateBody = z.output<typeof v2CreateBody>;

const V3_MODE: Record<(typeof V2_MODES)[number], NonNullable<TranslationRequest['mode']>> = {
  fast: 'speed',
  speed: 'speed',
  quality: 'precision',
  precision: 'precision',
};

/** The `/v2` field each `/v3` field of the mapped request came from. */
interface FieldNames {
  video: string;
  single: boolean;
}

const urlInput = (url: string): MediaInput => ({ type: 'url', url });

/**
 * The `/v3` request of a `/v2` body. `video_url` is the source; without it `audio_url` is (an audio
 * file is translated as `/v3` translates one); with both, `audio_url` is the dubbing audio.
 */
function v3RequestOf(body: V2CreateBody): { request: TranslationRequest; names: FieldNames } {
  const {
    video_url,
    audio_url,
    srt_url,
    output_language,
    output_languages,
    mode,
    use_disguised_voice: _disguised,
    check_credits_sync: _sync,
    validate_only: _validate,
    create_collection: _collection,
    ...same
  } = body;
  const source = video_url ?? audio_url;
  if (source === undefined)
    throw new InvalidParameterError('`video_url` is required (or `audio_url`).', 'video_url');
  if (output_language !== undefined && output_languages !== undefined) {
    throw new InvalidParameterError(
      'Give either `output_language` or `output_languages`, not both.',
      'output_languages',
    );
  }
  const languages = output_language !== undefined ? [output_language] : output_languages;
  if (languages === undefined) {
    throw new InvalidParameterError(
      '`output_language` (or `output_languages`) is required: GET /v2/video_translate/target_languages lists the names.',
      'output_language',
    );
  }
  return {
    request: {
      ...same,
      video: urlInput(source),
      output_languages: languages,
      ...(video_url !== undefined && audio_url !== undefined ? { audio: urlInput(audio_url) } : {}),
      ...(srt_url !== undefined ? { srt: urlInput(srt_url) } : {}),
      ...(mode !== undefined ? { mode: V3_MODE[mode] } : {}),
    },
    names: {
      video: video_url !== undefined ? 'video_url' : 'audio_url',
      single: output_language !== undefined,
    },
  };
}

/** The `/v2` name of a `/v3` field path (`video.url` → `video_url`, `output_languages[0]` → `output_language`). */
function v2Param(param: string, names: FieldNames): string {
  switch (param.split(/[.[]/)[0]) {
    case 'video':
      return names.video;
    case 'audio':
      return 'audio_url';
    case 'srt':
      return 'srt_url';
    case 'output_languages':
      return names.single ? 'output_language' : param;
    default:
      return param;
  }
}

/** A refusal of the `/v3` request, reworded for the `/v2` body it was mapped from. */
function v2Error(error: unknown, names: FieldNames): unknown {
  if (!(error instanceof ServiceError) || error instanceof JobFailure || error.param === null) return error;
  const param = v2Param(error.param, names);
  const message = error.message
    .replaceAll(`\`${error.param}\``, `\`${param}\``)
    .replace(/\bsrt_role needs srt\./, 'srt_role needs srt_url.')
    .replaceAll('GET /v3/video-translations/languages', 'GET /v2/video_translate/target_languages');
  if (param === error.param && message === error.message) return error;
  return new ServiceError(error.status, error.code, message, {
    param,
    headers: error.headers,
    cause: error,
    ...(error.errors ? { errors: error.errors } : {}),
  });
}

const v2Create = endpoint(
  { body: v2CreateBody },
  async ({ body, principal }) => {
    const { request, names } = v3RequestOf(body);
    let records: VideoTranslationRecord[];
    try {
      records = await createTranslations({ workspaceId: principal.workspaceId }, request);
    } catch (error) {
      throw v2Error(error, names);
    }
    const ids = records.map((record) => record.video_translation_id);
    return respond.okWithNullError(
      names.single
        ? { video_translate_id: ids[0] ?? null, video_translate_ids: null }
        : { video_translate_id: null, video_translate_ids: ids },
    );
  },
  { response: v2CreatedBody },
);

/** The translation of a `/v2` id: 404 naming `video_translate_id` when the workspace has none. */
async function requireV2Translation(workspaceId: string, translationId: string) {
  const record = await getTranslation(workspaceId, translationId);
  if (!record)
    throw new NotFoundError(
      `Video translation ${translationId} not found.`,
      'not_found',
      'video_translate_id',
    );
  return record;
}

const v2Status = (status: VideoTranslationRecord['status']) =>
  status === TRANSLATION_STATUS.completed ? 'success' : status;

const v2Get = endpoint(
  { path: v2TranslateIdPath },
  async ({ path, principal }) => {
    const record = await requireV2Translation(principal.workspaceId, path.video_translate_id);
    const { video_url } = await presignedOutputs(record);
    return respond.okWithNullError({
      video_translate_id: record.video_translation_id,
      title: record.title,
      status: v2Status(record.status),
      url: record.status === TRANSLATION_STATUS.completed ? video_url : null,
      message: record.status === TRANSLATION_STATUS.failed ? (record.failure_message ?? 'Failed.') : null,
      output_language: record.output_language,
      callback_id: record.callback_id,
      duration: record.duration,
    });
  },
  { response: v2TranslationBody },
);

const v2Languages = endpoint(
  {},
  async () => respond.okWithNullError({ languages: targetLanguages().map((language) => language.name) }),
  { response: v2LanguagesBody },
);

const v2Caption = endpoint(
  { query: v2CaptionQuery },
  async ({ query, principal }) => {
    const record = await requireV2Translation(principal.workspaceId, query.video_translate_id);
    if (record.status === TRANSLATION_STATUS.failed) {
      throw new NotFoundError(
        `Video translation ${record.video_translation_id} failed; it has no captions.`,
        'resource_not_found',
        'video_translate_id',
      );
    }
    if (record.status !== TRANSLATION_STATUS.completed) {
      throw new ConflictError(
        `Video translation ${record.video_translation_id} is ${record.status}; its captions are ready when its status is success.`,
        'resource_not_ready',
        { param: 'video_translate_id' },
      );
    }
    const outputs = await presignedOutputs(record);
    const caption_url = query.caption_type === 'srt' ? outputs.srt_caption_url : outputs.vtt_caption_url;
    if (caption_url === null) {
      throw new NotFoundError(
        `Video translation ${record.video_translation_id} has no ${query.caption_type} captions.`,
        'resource_not_found',
        'caption_type',
      );
    }
    return respond.okWithNullError({ caption_url });
  },
  { response: v2CaptionBody },
);

export const V2_ROWS: ReturnType<typeof row>[] = [
  row(
    'POST',
    '/v2/video_translate',
    'VideoTranslateV2Create',
    'Translate a video (legacy /v2)',
    ['translations:write'],
    'heavy',
    { ...paidCreate, endpoint: v2Create, deprecated: { replacement: 'POST /v3/video-translations' } },
  ),
  row(
    'GET',
    '/v2/video_translate/target_languages',
    'VideoTranslateV2LanguagesList',
    'List translation languages (legacy /v2)',
    ['translations:read'],
    'read',
    { endpoint: v2Languages, deprecated: { replacement: 'GET /v3/video-translations/languages' } },
  ),
  row(
    'GET',
    '/v2/video_translate/caption',
    'VideoTranslateV2CaptionGet',
    'Get the captions of a video translation (legacy /v2)',
    ['translations:read'],
    'read',
    {
      endpoint: v2Caption,
      deprecated: {
        replacement:
          'GET /v3/video-translations/{video_translation_id} (`srt_caption_url`, `vtt_caption_url`)',
      },
    },
  ),
  row(
    'GET',
    '/v2/video_translate/{video_translate_id}',
    'VideoTranslateV2Get',
    'Get a video translation (legacy /v2)',
    ['translations:read'],
    'status',
    { endpoint: v2Get, deprecated: { replacement: 'GET /v3/video-translations/{video_translation_id}' } },
  ),
];
