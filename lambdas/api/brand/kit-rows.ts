/** Brand kits: their rows of the brand area (routes.ts), with the endpoints that serve them. */
import { create, row } from '../route-rows.js';

export const KIT_ROWS = [
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
];
