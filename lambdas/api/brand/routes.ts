/** Brand: this area's rows of the route table (lambdas/api/routes.ts). */
import { areaRoutes, create, row } from '../route-rows.js';

export const AREA_ROUTES = areaRoutes('brand', [
  row('GET', '/v3/brand-glossaries', 'BrandGlossariesList', 'List brand glossaries', ['brand:read'], 'read'),
  row(
    'POST',
    '/v3/brand-glossaries',
    'BrandGlossariesCreate',
    'Create a brand glossary',
    ['brand:write'],
    'write',
    create,
  ),
  row(
    'GET',
    '/v3/brand-glossaries/{brand_glossary_id}',
    'BrandGet',
    'Get a brand glossary',
    ['brand:read'],
    'read',
  ),
  row(
    'PATCH',
    '/v3/brand-glossaries/{brand_glossary_id}',
    'BrandGlossariesUpdate',
    'Update a brand glossary',
    ['brand:write'],
    'write',
  ),
  row(
    'DELETE',
    '/v3/brand-glossaries/{brand_glossary_id}',
    'BrandGlossariesDelete',
    'Delete a brand glossary',
    ['brand:write'],
    'write',
  ),
  row('GET', '/v3/brand-kits', 'BrandKitsList', 'List brand kits', ['brand:read'], 'read'),
  row('POST', '/v3/brand-kits', 'BrandKitsCreate', 'Create a brand kit', ['brand:write'], 'write', create),
  row('GET', '/v3/brand-kits/{brand_kit_id}', 'BrandKitsGet', 'Get a brand kit', ['brand:read'], 'read'),
  row(
    'PATCH',
    '/v3/brand-kits/{brand_kit_id}',
    'BrandKitsUpdate',
    'Update a brand kit',
    ['brand:write'],
    'write',
  ),
  row(
    'DELETE',
    '/v3/brand-kits/{brand_kit_id}',
    'BrandKitsDelete',
    'Delete a brand kit',
    ['brand:write'],
    'write',
  ),
]);
