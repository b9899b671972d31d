/** Removed routes: this area's rows of the route table (lambdas/api/routes.ts). They run no code. */
import { areaRoutes, row } from '../route-rows.js';

export const AREA_ROUTES = areaRoutes('legacy', [
  // Removed on 2026-10-31: the /v1 brand-voice routes. They answer 410 naming the replacement.
  row('GET', '/v1/brand_voice/list', 'LegacyBrandVoiceList', 'Removed: list brand voices', [], 'read', {
    removed: { replacement: 'GET /v3/brand-glossaries' },
  }),
  row(
    'POST',
    '/v1/brand_voice/{brand_voice_id}',
    'LegacyBrandVoiceUpdate',
    'Removed: update a brand voice',
    [],
    'write',
    {
      removed: {
        replacement:
          'PATCH /v3/brand-glossaries/{brand_glossary_id} (vocabulary → terms, blacklist → do_not_translate_terms, whitelist → forced_translations)',
      },
    },
  ),
]);
