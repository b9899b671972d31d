/** Brand glossaries: their rows of the brand area (routes.ts), with the endpoints that serve them. */
import { create, row } from '../route-rows.js';

export const GLOSSARY_ROWS = [
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
];
