/**
 * Drop-in compatibility of query strings: every query parameter that real clients of the hosted API
 * send (test/fixtures/reference-query-parameters.json, a copy of the reference's
 * `query_parameters.json`) is accepted with a valid value and refused, 400 `invalid_parameter` naming
 * it, with an invalid one, on every route of the file that is built; parameters a route does not know
 * are ignored. Then what the filters do: voices by engine, language and gender; sounds ranked by score.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../lambdas/api/routes.js';
import { STOCK_VOICES } from '../../lambdas/catalog/stock-voices.js';
import reference from '../fixtures/reference-query-parameters.json' with { type: 'json' };
import { mp4Header, wav } from '../support/sample-media.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

interface ReferenceParameter {
  name: string;
  type: string;
  required: boolean;
  default?: string;
  enum?: string[];
  min?: number;
  max?: number;
}
interface List<T = Record<string, unknown>> {
  data: T[];
  has_more: boolean;
  next_token: string | null;
}
/** A list, or a batch whose `data` pages its `items`. */
type Listing = List | { data: { items: unknown[]; next_token: string | null } };

const itemsOf = (listing: Listing): unknown[] =>
  Array.isArray(listing.data) ? listing.data : listing.data.items;
const nextTokenOf = (listing: Listing): string | null =>
  'next_token' in listing
    ? listing.next_token
    : (listing as { data: { next_token: string | null } }).data.next_token;

const OPERATIONS = Object.entries(reference as Record<string, { parameters: ReferenceParameter[] }>).map(
  ([key, { parameters }]) => {
    const [method = '', path = ''] = key.split(' ');
    return {
      key,
      method,
      path,
      parameters,
      route: ROUTES.find((r) => r.method === method && r.path === path),
    };
  },
);
/** The operations of the file this deployment serves; the others answer 501 until they are built. */
const BUILT = OPERATIONS.filter((operation) => operation.route?.endpoint !== undefined);

/**
 * Valid values of free-text parameters, by name: what the reference's descriptions give as examples
 * (`engine=starfish`, `language=English`), or a plain id that matches nothing, which is still valid.
 */
const VALID_TEXT: Record<string, string> = {
  engine: 'starfish',
  language: 'English',
  gender: 'female',
  query: 'whoosh',
  username: 'someone',
  folder_id: 'folder-1',
  title: 'launch',
  entity_id: 'video-1',
  group_id: 'group-1',
  asset_ids: 'asset-1,asset-2',
  video_ids: 'video-1',
  batch_ids: 'batch-1',
};

/** 101 ids: one more than a status look-up takes. */
const TOO_MANY_IDS = Array.from({ length: 101 }, (_, index) => `id-${index}`).join(',');

function validValues(parameter: ReferenceParameter): string[] {
  if (parameter.enum) return parameter.enum;
  switch (parameter.type) {
    case 'int':
    case 'float64':
      return [
        ...new Set(
          [parameter.default, parameter.min, parameter.max]
            .filter((value) => value !== undefined)
            .map(String),
        ),
      ];
    default:
      return [VALID_TEXT[parameter.name] ?? 'x'];
  }
}

function invalidValues(parameter: ReferenceParameter): string[] {
  if (parameter.enum) return ['not-one-of-them'];
  switch (parameter.type) {
    case 'int':
      return [
        'ten',
        '2.5',
        ...(parameter.min !== undefined ? [String(parameter.min - 1)] : []),
        ...(parameter.max !== undefined ? [String(parameter.max + 1)] : []),
      ];
    case 'float64':
      return [
        'high',
        ...(parameter.min !== undefined ? [String(parameter.min - 0.1)] : []),
        ...(parameter.max !== undefined ? [String(parameter.max + 0.1)] : []),
      ];
    default:
      if (parameter.name === 'token') return ['not-a-token'];
      if (parameter.name.endsWith('_ids')) return [TOO_MANY_IDS];
      // Longer than any free-text parameter takes.
      return ['x'.repeat(1001)];
  }
}

let api: TestStack;
/** Real path values (batches with two items) and next-page tokens, per operation key. */
const pathValues: Record<string, string> = {};
const tokens: Record<string, string> = {};
/** What a list's token was made for besides the required parameters: a token is bound to its search. */
const tokenContext = (operation: (typeof OPERATIONS)[number]): Record<string, string> => {
  if (operation.path === '/v3/audio/sounds') return { min_score: '0' };
  // Hundreds of public icons have arrows; the default search (images of `whoosh`) has one page.
  if (operation.path === '/v3/assets/search') return { type: 'icon', query: 'arrow' };
  return {};
};

function pathOf(operation: (typeof OPERATIONS)[number]): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const value = pathValues[`${operation.key}:${name}`];
    if (!value) throw new Error(`no value for ${name} of ${operation.key}`);
    return encodeURIComponent(value);
  });
}

/** The query with the operation's other required parameters given valid values. */
function search(operation: (typeof OPERATIONS)[number], values: Record<string, string>): string {
  const query = new URLSearchParams();
  for (const parameter of operation.parameters) {
    if (parameter.required && !(parameter.name in values) && parameter.name !== 'username')
      query.set(parameter.name, validValues(parameter)[0] ?? 'x');
  }
  for (const [name, value] of Object.entries(values)) query.set(name, value);
  const text = query.toString();
  return text ? `?${text}` : '';
}

const call = <T = Listing>(operation: (typeof OPERATIONS)[number], values: Record<string, string>) =>
  api.call<T>(operation.method, `${pathOf(operation)}${search(operation, values)}`);

async function waitFor<T>(what: string, attempt: () => Promise<T | undefined>, seconds = 120): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

beforeAll(async () => {
  api = await startTestStack();
  // Two of everything listed, so that each list has a second page and a real token.
  for (const index of [1, 2]) {
    const hook = await api.call('POST', '/v3/webhooks/endpoints', {
      body: { url: `https://hooks.example.com/compat-${index}` },
    });
    expect(hook.status).toBe(201);
    const glossary = await api.call('POST', '/v3/brand-glossaries', { body: { name: `Glossary ${index}` } });
    expect(glossary.status).toBe(201);
    // A translation of a file that is not a real video: listed at once, failed by its job soon after.
    const translation = await api.call('POST', '/v3/video-translations', {
      body: {
        video: { type: 'base64', media_type: 'video/mp4', data: mp4Header().toString('base64') },
        output_languages: ['Spanish (Spain)'],
      },
    });
    expect(translation.status, JSON.stringify(translation.body)).toBe(200);
    // The same for a background removal: listed at once, failed (invalid_media) by its job soon after.
    const removal = await api.call('POST', '/v3/background-removals', {
      body: { video: { type: 'base64', media_type: 'video/mp4', data: mp4Header().toString('base64') } },
    });
    expect(removal.status, JSON.stringify(removal.body)).toBe(200);
    // Likewise a lipsync.
    const lipsync = await api.call('POST', '/v3/lipsyncs', {
      body: {
        video: { type: 'base64', media_type: 'video/mp4', data: mp4Header().toString('base64') },
        audio: { type: 'base64', media_type: 'audio/wav', data: wav(0.5).toString('base64') },
      },
    });
    expect(lipsync.status, JSON.stringify(lipsync.body)).toBe(200);
    // An AI clipping job of a file that is not a real video: listed at once, failed by its job soon after.
    const clipping = await api.call('POST', '/v3/ai-clipping', {
      body: { video: { type: 'base64', media_type: 'video/mp4', data: mp4Header().toString('base64') } },
    });
    expect(clipping.status, JSON.stringify(clipping.body)).toBe(200);
    // A video agent session in chat mode: planned, then waiting for input (nothing rendered).
    const session = await api.call('POST', '/v3/video-agents', {
      body: { prompt: `a 10-second explainer about kites, take ${index}`, mode: 'chat' },
    });
    expect(session.status, JSON.stringify(session.body)).toBe(200);
  }
  for (const index of [1, 2]) {
    const kit = await api.call('POST', '/v3/brand-kits', { body: { name: `Brand kit ${index}` } });
    expect(kit.status).toBe(201);
  }
  const assetBatch = await api.call<{ data: { batch_id: string } }>(
    'POST',
    '/v3/assets/direct-uploads/batches',
    {
      body: {
        files: [1, 2].map((index) => ({
          filename: `logo-${index}.png`,
          content_type: 'image/png',
          size_bytes: 100,
        })),
      },
    },
  );
  expect(assetBatch.status).toBe(201);
  pathValues['GET /v3/assets/batches/{batch_id}:batch_id'] = assetBatch.body.data.batch_id;
  const looks = await api.call<List<{ id: string }>>('GET', '/v3/avatars/looks?limit=1');
  const lookId = looks.body.data[0]?.id;
  const videoBatch = await api.call<{ data: { batch_id: string } }>('POST', '/v3/videos/batches', {
    body: {
      videos: [1, 2].map((index) => ({
        type: 'avatar',
        avatar_id: lookId,
        title: `Launch video ${index}`,
        script: `Launch video ${index}.`,
      })),
    },
  });
  expect(videoBatch.status, JSON.stringify(videoBatch.body)).toBe(202);
  pathValues['GET /v3/videos/batches/{batch_id}:batch_id'] = videoBatch.body.data.batch_id;
  const translationBatch = await api.call<{ data: { batch_id: string } }>(
    'POST',
    '/v3/video-translations/batches',
    {
      body: {
        video_translations: [
          {
            video: { type: 'base64', media_type: 'video/mp4', data: mp4Header().toString('base64') },
            output_languages: ['Spanish (Spain)', 'Spanish (Mexico)'],
          },
        ],
      },
    },
  );
  expect(translationBatch.status, JSON.stringify(translationBatch.body)).toBe(202);
  pathValues['GET /v3/video-translations/batches/{batch_id}:batch_id'] = translationBatch.body.data.batch_id;
  const lipsyncBatch = await api.call<{ data: { batch_id: string } }>('POST', '/v3/lipsyncs/batches', {
    body: {
      lipsyncs: [1, 2].map(() => ({
        video: { type: 'base64', media_type: 'video/mp4', data: mp4Header().toString('base64') },
        audio: { type: 'base64', media_type: 'audio/wav', data: wav(0.5).toString('base64') },
      })),
    },
  });
  expect(lipsyncBatch.status, JSON.stringify(lipsyncBatch.body)).toBe(202);
  pathValues['GET /v3/lipsyncs/batches/{batch_id}:batch_id'] = lipsyncBatch.body.data.batch_id;
  // Two templates, of a batch video whose scenes are ready.
  const firstVideo = (videoBatch.body.data as unknown as { items: { video_id: string }[] }).items[0]
    ?.video_id;
  for (const index of [1, 2]) {
    await waitFor(`template ${index}`, async () => {
      const template = await api.call('POST', '/v3/templates', {
        body: { video_id: firstVideo, name: `Template ${index}` },
      });
      return template.status === 201 ? true : undefined;
    });
  }

  // A real next-page token of each list: the events come when the videos finish.
  for (const operation of BUILT) {
    if (!operation.parameters.some((parameter) => parameter.name === 'token')) continue;
    tokens[operation.key] = await waitFor(`a second page of ${operation.key}`, async () => {
      const page = await call(operation, { limit: '1', ...tokenContext(operation) });
      expect(page.status, `${operation.key} ${JSON.stringify(page.body)}`).toBe(200);
      return nextTokenOf(page.body) ?? undefined;
    });
  }
}, 240_000);
afterAll(() => api?.stop());

describe('the reference query parameters of every built route', () => {
  it('covers the built routes of the file, each of whose query schemas knows every parameter', () => {
    expect(BUILT.map((operation) => operation.key).sort()).toEqual([
      'GET /v3/ai-clipping',
      'GET /v3/assets',
      'GET /v3/assets/batches/{batch_id}',
      'GET /v3/assets/search',
      'GET /v3/assets/statuses',
      'GET /v3/audio/sounds',
      'GET /v3/avatars',
      'GET /v3/avatars/looks',
      'GET /v3/background-removals',
      'GET /v3/brand-glossaries',
      'GET /v3/brand-kits',
      'GET /v3/lipsyncs',
      'GET /v3/lipsyncs/batches/{batch_id}',
      'GET /v3/lipsyncs/statuses',
      'GET /v3/templates',
      'GET /v3/video-agents',
      'GET /v3/video-agents/styles',
      'GET /v3/video-translations',
      'GET /v3/video-translations/batches/{batch_id}',
      'GET /v3/video-translations/statuses',
      'GET /v3/videos',
      'GET /v3/videos/batches/{batch_id}',
      'GET /v3/videos/statuses',
      'GET /v3/voices',
      'GET /v3/webhooks/endpoints',
      'GET /v3/webhooks/events',
    ]);
    for (const operation of OPERATIONS.filter((candidate) => !BUILT.includes(candidate))) {
      expect(operation.route, `${operation.key} is a row of the table`).toBeDefined();
    }
  });

  const cases = BUILT.flatMap((operation) =>
    operation.parameters.map((parameter) => [operation.key, parameter.name, operation, parameter] as const),
  );

  it.each(cases)('%s accepts valid values of %s', async (_key, name, operation, parameter) => {
    const values = name === 'token' ? [tokens[operation.key] ?? ''] : validValues(parameter);
    const context = name === 'token' ? tokenContext(operation) : {};
    for (const value of values) {
      const result = await call(operation, { ...context, [name]: value });
      expect(result.status, `${name}=${value.slice(0, 40)}: ${JSON.stringify(result.body)}`).toBe(200);
    }
  });

  it.each(cases)('%s refuses invalid values of %s, naming it', async (_key, name, operation, parameter) => {
    for (const value of invalidValues(parameter)) {
      const result = await call(operation, { [name]: value });
      expect(result.status, `${name}=${value.slice(0, 40)}`).toBe(400);
      expect(errorOf(result), `${name}=${value.slice(0, 40)}`).toMatchObject({
        code: 'invalid_parameter',
        param: name,
      });
    }
  });

  const required = BUILT.flatMap((operation) =>
    operation.parameters
      // `username` is required by the reference only "while in beta": an optional filter here.
      .filter((parameter) => parameter.required && parameter.name !== 'username')
      .map((parameter) => [operation.key, parameter.name, operation] as const),
  );

  it.each(required)('%s refuses a request without %s, naming it', async (_key, name, operation) => {
    // The other required parameters are given: a route that requires two (the asset search's `query`
    // and `type`) must name the one missing.
    const others = new URLSearchParams(
      operation.parameters
        .filter((parameter) => parameter.required && parameter.name !== name && parameter.name !== 'username')
        .map((parameter): [string, string] => [parameter.name, validValues(parameter)[0] ?? 'x']),
    ).toString();
    const result = await api.call(operation.method, `${pathOf(operation)}${others ? `?${others}` : ''}`);
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param: name });
  });

  it.each(BUILT.map((operation) => [operation.key, operation] as const))(
    '%s ignores parameters it does not know, answering as without them',
    async (_key, operation) => {
      // The required parameters, and an id for a status look-up (which needs one).
      const known = Object.fromEntries(
        operation.parameters
          .filter(
            (parameter) =>
              (parameter.required && parameter.name !== 'username') ||
              parameter.name === operation.parameters.find((first) => first.name.endsWith('_ids'))?.name,
          )
          .map((parameter) => [parameter.name, validValues(parameter)[0] ?? 'x']),
      );
      const plain = await call(operation, known);
      const extra = await call(operation, { ...known, utm_source: 'newsletter', include_deleted: 'true' });
      expect(extra.status).toBe(200);
      expect(itemsOf(extra.body).length).toBe(itemsOf(plain.body).length);
    },
  );
});

describe('what the parameters do', () => {
  interface Voice {
    voice_id: string;
    language: string;
    gender: string;
    type: string;
  }
  const voices = async (query: string) => {
    const result = await api.call<List<Voice>>('GET', `/v3/voices?limit=100&${query}`);
    expect(result.status, query).toBe(200);
    return result.body.data;
  };

  it('lists public voices by default and filters by engine, language and gender', async () => {
    const all = await voices('');
    expect(all.length).toBe(STOCK_VOICES.length);
    expect(all.every((voice) => voice.type === 'public')).toBe(true);
    expect(await voices('type=private')).toEqual([]);
    // The hosted provider's engine names mean this deployment's engine: every voice it speaks.
    for (const engine of ['starfish', 'elevenlabs', 'fish', 'espeak'])
      expect((await voices(`engine=${engine}`)).length, engine).toBe(all.length);
    const polly = await voices('engine=polly');
    expect(polly.length).toBeLessThan(all.length);
    expect(polly.map((voice) => voice.voice_id)).toEqual(
      STOCK_VOICES.filter((voice) => voice.engineVoices.polly !== undefined).map((voice) => voice.voiceId),
    );
    const english = await voices('language=English');
    expect(english.length).toBeGreaterThan(0);
    expect(english.length).toBeLessThan(all.length);
    expect(english.every((voice) => voice.language.startsWith('en-'))).toBe(true);
    expect(await voices('language=english')).toEqual(english);
    const usEnglish = await voices('language=EN-us');
    expect(usEnglish.length).toBeGreaterThan(0);
    expect(usEnglish.every((voice) => voice.language === 'en-US')).toBe(true);
    const female = await voices('gender=female&language=English&engine=starfish&type=public');
    expect(female.length).toBeGreaterThan(0);
    expect(female.every((voice) => voice.gender === 'female' && voice.language.startsWith('en-'))).toBe(true);
  });

  it('pages voices by limit and token', async () => {
    const first = await api.call<List<Voice>>('GET', '/v3/voices');
    expect(first.body.data).toHaveLength(20);
    const page = await api.call<List<Voice>>('GET', '/v3/voices?engine=starfish&limit=3');
    expect(page.body.data).toHaveLength(3);
    const next = await api.call<List<Voice>>(
      'GET',
      `/v3/voices?engine=starfish&limit=3&token=${encodeURIComponent(page.body.next_token ?? '')}`,
    );
    expect(next.status).toBe(200);
    expect(next.body.data.map((voice) => voice.voice_id)).toEqual(
      STOCK_VOICES.slice(3, 6).map((voice) => voice.voiceId),
    );
  });

  interface Sound {
    id: string;
    name: string;
    description: string;
    audio_url: string;
    duration: number;
    score: number;
    type: string;
  }
  const sounds = async (query: string) => {
    const result = await api.call<List<Sound>>('GET', `/v3/audio/sounds?${query}`);
    expect(result.status, query).toBe(200);
    return result.body;
  };

  it('ranks sounds by score, all at or above min_score, with the reference fields', async () => {
    const { data } = await sounds('query=tense%20cinematic%20riser&type=sound_effects&min_score=0.2&limit=5');
    expect(data.length).toBeGreaterThan(1);
    expect(data[0]?.id).toBe('sfx-tension-riser');
    const scores = data.map((sound) => sound.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    for (const sound of data) {
      expect(sound.score).toBeGreaterThanOrEqual(0.2);
      expect(sound.score).toBeLessThanOrEqual(1);
      expect(sound).toMatchObject({
        type: 'sound_effects',
        audio_url: expect.stringMatching(/^http/),
        name: expect.any(String),
        description: expect.any(String),
        duration: expect.any(Number),
      });
    }
    // The default min_score (0.7) keeps only the close matches.
    const close = await sounds('query=tense%20cinematic%20riser&type=sound_effects');
    expect(close.data.map((sound) => sound.id)).toEqual(['sfx-tension-riser']);
  });

  it('scores a query naming a sound high, and finds nothing for an unrelated one', async () => {
    const { data } = await sounds('query=Night%20Drive');
    expect(data[0]?.id).toBe('music-night-drive');
    expect(data[0]?.score).toBeGreaterThanOrEqual(0.7);
    expect(await sounds('query=helicopter%20landing%20on%20a%20ship')).toEqual({
      data: [],
      has_more: false,
      next_token: null,
    });
  });

  it('honours limit and pages sounds with tokens bound to the search', async () => {
    const seen: string[] = [];
    let token: string | null = null;
    do {
      const page: List<Sound> = await sounds(
        `query=calm&min_score=0&limit=4${token ? `&token=${encodeURIComponent(token)}` : ''}`,
      );
      expect(page.data.length).toBeLessThanOrEqual(4);
      seen.push(...page.data.map((sound) => sound.id));
      token = page.next_token;
    } while (token);
    const whole = await sounds('query=calm&min_score=0&limit=50');
    expect(seen).toEqual(whole.data.map((sound) => sound.id));
    expect(new Set(seen).size).toBe(seen.length);
    const first = await sounds('query=calm&min_score=0&limit=4');
    const other = await api.call(
      'GET',
      `/v3/audio/sounds?query=rain&min_score=0&limit=4&token=${encodeURIComponent(first.next_token ?? '')}`,
    );
    expect(errorOf(other)).toMatchObject({ code: 'invalid_parameter', param: 'token' });
  });

  it('filters assets by owner and folder', async () => {
    const all = await api.call<List<{ owner: string; folder_id: string | null }>>(
      'GET',
      '/v3/assets?limit=100',
    );
    expect(all.body.data.length).toBeGreaterThanOrEqual(2);
    const owner = all.body.data[0]?.owner ?? '';
    const mine = await api.call<List>('GET', `/v3/assets?limit=100&username=${encodeURIComponent(owner)}`);
    expect(mine.body.data.length).toBe(all.body.data.length);
    expect((await api.call<List>('GET', '/v3/assets?username=someone-else')).body.data).toEqual([]);
    // An empty folder_id is the root, where assets uploaded over the API are.
    expect((await api.call<List>('GET', '/v3/assets?limit=100&folder_id=')).body.data.length).toBe(
      all.body.data.length,
    );
    expect((await api.call<List>('GET', '/v3/assets?folder_id=folder-1')).body.data).toEqual([]);
  });

  it('filters avatar looks by type, group and ownership', async () => {
    const all = await api.call<List<{ avatar_type: string; group_id: string | null }>>(
      'GET',
      '/v3/avatars/looks?limit=50',
    );
    const [first] = all.body.data;
    const byType = await api.call<List<{ avatar_type: string }>>(
      'GET',
      `/v3/avatars/looks?limit=50&avatar_type=${first?.avatar_type}`,
    );
    expect(byType.body.data.length).toBeGreaterThan(0);
    expect(byType.body.data.every((look) => look.avatar_type === first?.avatar_type)).toBe(true);
    const byGroup = await api.call<List<{ group_id: string | null }>>(
      'GET',
      `/v3/avatars/looks?limit=50&group_id=${encodeURIComponent(first?.group_id ?? '')}`,
    );
    expect(byGroup.body.data.length).toBeGreaterThan(0);
    expect(byGroup.body.data.every((look) => look.group_id === first?.group_id)).toBe(true);
    expect((await api.call<List>('GET', '/v3/avatars/looks?ownership=private')).body.data).toEqual([]);
  });

  it('filters videos by title and folder', async () => {
    const titled = await api.call<List<{ title: string | null }>>(
      'GET',
      '/v3/videos?title=launch%20VIDEO%201',
    );
    expect(titled.body.data.map((video) => video.title)).toEqual(['Launch video 1']);
    expect((await api.call<List>('GET', '/v3/videos?folder_id=folder-1')).body.data).toEqual([]);
  });
});
