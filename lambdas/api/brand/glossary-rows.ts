/** Brand glossaries: their rows of the brand area (routes.ts), with the endpoints that serve them. */
import {
  type BrandGlossary,
  createGlossary,
  deleteGlossary,
  getGlossary,
  listGlossaries,
  updateGlossary,
} from '../../brand/brand-glossaries.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { create, row } from '../route-rows.js';
import {
  createGlossaryBody,
  glossaryBody,
  glossaryDeletedBody,
  glossaryIdPath,
  glossaryListBody,
  listGlossariesQuery,
  updateGlossaryBody,
} from './glossary-schemas.js';

const isoTime = (seconds: number) => new Date(seconds * 1000).toISOString();

/** A glossary as the API answers it: times as ISO 8601, as the hosted API's glossary reads give them. */
const glossaryView = (glossary: BrandGlossary) => ({
  ...glossary,
  created_at: isoTime(glossary.created_at),
  updated_at: isoTime(glossary.updated_at),
});

const glossaryList = endpoint(
  { query: listGlossariesQuery },
  async ({ query, principal }) => {
    const page = await listGlossaries(principal.workspaceId, query);
    return respond.list(
      page.items.map(({ brand_glossary_id, name, created_at, updated_at }) => ({
        brand_glossary_id,
        name,
        created_at: isoTime(created_at),
        updated_at: isoTime(updated_at),
      })),
      page.nextToken,
    );
  },
  { response: glossaryListBody },
);

const glossaryCreate = endpoint(
  { body: createGlossaryBody },
  async ({ body, principal }) =>
    respond.created(glossaryView(await createGlossary(principal.workspaceId, body))),
  { successStatus: 201, response: glossaryBody },
);

const glossaryGet = endpoint(
  { path: glossaryIdPath },
  async ({ path, principal }) =>
    respond.ok(glossaryView(await getGlossary(principal.workspaceId, path.brand_glossary_id))),
  { response: glossaryBody },
);

const glossaryUpdate = endpoint(
  { path: glossaryIdPath, body: updateGlossaryBody },
  async ({ path, body, principal }) =>
    respond.ok(glossaryView(await updateGlossary(principal.workspaceId, path.brand_glossary_id, body))),
  { response: glossaryBody },
);

const glossaryDelete = endpoint(
  { path: glossaryIdPath },
  async ({ path, principal }) => {
    await deleteGlossary(principal.workspaceId, path.brand_glossary_id);
    return respond.ok({ brand_glossary_id: path.brand_glossary_id });
  },
  { response: glossaryDeletedBody },
);

export const GLOSSARY_ROWS = [
  row('GET', '/v3/brand-glossaries', 'BrandGlossariesList', 'List brand glossaries', ['brand:read'], 'read', {
    endpoint: glossaryList,
  }),
  row(
    'POST',
    '/v3/brand-glossaries',
    'BrandGlossariesCreate',
    'Create a brand glossary',
    ['brand:write'],
    'write',
    { ...create, endpoint: glossaryCreate },
  ),
  row(
    'GET',
    '/v3/brand-glossaries/{brand_glossary_id}',
    'BrandGet',
    'Get a brand glossary',
    ['brand:read'],
    'read',
    { endpoint: glossaryGet },
  ),
  row(
    'PATCH',
    '/v3/brand-glossaries/{brand_glossary_id}',
    'BrandGlossariesUpdate',
    'Update a brand glossary',
    ['brand:write'],
    'write',
    { endpoint: glossaryUpdate },
  ),
  row(
    'DELETE',
    '/v3/brand-glossaries/{brand_glossary_id}',
    'BrandGlossariesDelete',
    'Delete a brand glossary',
    ['brand:write'],
    'write',
    { endpoint: glossaryDelete },
  ),
];
