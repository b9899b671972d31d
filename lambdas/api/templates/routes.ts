/** Templates: this area's rows of the route table (lambdas/api/routes.ts). */
import { areaRoutes, create, paidCreate, row } from '../route-rows.js';

export const AREA_ROUTES = areaRoutes('templates', [
  row('GET', '/v3/templates', 'TemplateList', 'List templates', ['templates:read'], 'read'),
  row(
    'POST',
    '/v3/templates',
    'TemplateCreate',
    'Create a private template from a video',
    ['templates:write'],
    'write',
    create,
  ),
  row('GET', '/v3/templates/{template_id}', 'TemplateGet', 'Get a template', ['templates:read'], 'read'),
  row(
    'POST',
    '/v3/templates/{template_id}',
    'TemplateGenerate',
    'Generate a video from a template',
    ['templates:read', 'videos:write'],
    'heavy',
    paidCreate,
  ),
  row(
    'PATCH',
    '/v3/templates/{template_id}',
    'TemplateUpdate',
    'Rename a template',
    ['templates:write'],
    'write',
  ),
  row(
    'DELETE',
    '/v3/templates/{template_id}',
    'TemplateDelete',
    'Delete a template',
    ['templates:write'],
    'write',
  ),
  row(
    'PUT',
    '/v3/templates/{template_id}/variables',
    'TemplateVariablesReplace',
    "Replace a template's variables",
    ['templates:write'],
    'write',
  ),
]);
