/** Brand kits: their rows of the brand area (routes.ts), with the endpoints that serve them. */
import {
  brandKitNotFound,
  brandKitView,
  createBrandKit,
  defaultBrandKitId,
  deleteBrandKit,
  listBrandKits,
  requireBrandKit,
  updateBrandKit,
} from '../../brand/brand-kits.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { create, row } from '../route-rows.js';
import {
  brandKitBody,
  brandKitDeletedBody,
  brandKitIdPath,
  brandKitListBody,
  createBrandKitBody,
  listBrandKitsQuery,
  updateBrandKitBody,
} from './kit-schemas.js';

const kitList = endpoint(
  { query: listBrandKitsQuery },
  async ({ query, principal }) => {
    const [page, defaultId] = await Promise.all([
      listBrandKits(principal.workspaceId, query.limit, query.token),
      defaultBrandKitId(principal.workspaceId),
    ]);
    return respond.list(
      await Promise.all(page.items.map((kit) => brandKitView(kit, defaultId))),
      page.nextToken,
    );
  },
  { response: brandKitListBody },
);

const kitCreate = endpoint(
  { body: createBrandKitBody },
  async ({ body, principal }) => {
    const kit = await createBrandKit(principal.workspaceId, body);
    return respond.created(await brandKitView(kit, await defaultBrandKitId(principal.workspaceId)));
  },
  { successStatus: 201, response: brandKitBody },
);

const kitGet = endpoint(
  { path: brandKitIdPath },
  async ({ path, principal }) => {
    const kit = await requireBrandKit(principal.workspaceId, path.brand_kit_id);
    return respond.ok(await brandKitView(kit, await defaultBrandKitId(principal.workspaceId)));
  },
  { response: brandKitBody },
);

const kitUpdate = endpoint(
  { path: brandKitIdPath, body: updateBrandKitBody },
  async ({ path, body, principal }) => {
    const kit = await updateBrandKit(principal.workspaceId, path.brand_kit_id, body);
    return respond.ok(await brandKitView(kit, await defaultBrandKitId(principal.workspaceId)));
  },
  { response: brandKitBody },
);

const kitDelete = endpoint(
  { path: brandKitIdPath },
  async ({ path, principal }) => {
    if (!(await deleteBrandKit(principal.workspaceId, path.brand_kit_id)))
      throw brandKitNotFound(path.brand_kit_id);
    return respond.ok({ brand_kit_id: path.brand_kit_id });
  },
  { response: brandKitDeletedBody },
);

export const KIT_ROWS = [
  row('GET', '/v3/brand-kits', 'BrandKitsList', 'List brand kits', ['brand:read'], 'read', {
    endpoint: kitList,
  }),
  row('POST', '/v3/brand-kits', 'BrandKitsCreate', 'Create a brand kit', ['brand:write'], 'write', {
    ...create,
    endpoint: kitCreate,
  }),
  row('GET', '/v3/brand-kits/{brand_kit_id}', 'BrandKitsGet', 'Get a brand kit', ['brand:read'], 'read', {
    endpoint: kitGet,
  }),
  row(
    'PATCH',
    '/v3/brand-kits/{brand_kit_id}',
    'BrandKitsUpdate',
    'Update a brand kit',
    ['brand:write'],
    'write',
    { endpoint: kitUpdate },
  ),
  row(
    'DELETE',
    '/v3/brand-kits/{brand_kit_id}',
    'BrandKitsDelete',
    'Delete a brand kit',
    ['brand:write'],
    'write',
    { endpoint: kitDelete },
  ),
];
