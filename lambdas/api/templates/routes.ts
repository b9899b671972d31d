/** Templates: this area's rows of the route table (lambdas/api/routes.ts), with the endpoints that serve them. */
import { generateFromTemplate } from '../../templates/template-generate.js';
import { checkVariables } from '../../templates/template-variables.js';
import {
  createTemplate,
  deleteTemplate,
  listTemplates,
  renameTemplate,
  replaceVariables,
  requireTemplate,
  templateNotFound,
  templateSummaryView,
  templateView,
} from '../../templates/templates.js';
import { videoView } from '../../videos/video-views.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { areaRoutes, create, paidCreate, row } from '../route-rows.js';
import {
  createTemplateBody,
  generateBody,
  listTemplatesQuery,
  replaceVariablesBody,
  templateBody,
  templateDeletedBody,
  templateIdPath,
  templateListBody,
  templateVideoBody,
  updateTemplateBody,
} from './schemas.js';

const templateList = endpoint(
  { query: listTemplatesQuery },
  async ({ query, principal }) => {
    const page = await listTemplates(principal.workspaceId, query.limit, query.token);
    return respond.list(await Promise.all(page.items.map(templateSummaryView)), page.nextToken);
  },
  { response: templateListBody },
);

const templateCreate = endpoint(
  { body: createTemplateBody },
  async ({ body, principal }) => {
    const template = await createTemplate(principal.workspaceId, {
      video_id: body.video_id,
      name: body.name,
    });
    return respond.created(await templateView(template));
  },
  { successStatus: 201, response: templateBody },
);

const templateGet = endpoint(
  { path: templateIdPath },
  async ({ path, principal }) =>
    respond.ok(await templateView(await requireTemplate(principal.workspaceId, path.template_id))),
  { response: templateBody },
);

/** 202: the new video, pending; poll `GET /v3/videos/{id}` or wait for the webhook. */
const templateGenerate = endpoint(
  { path: templateIdPath, body: generateBody },
  async ({ path, body, principal }) => {
    const template = await requireTemplate(principal.workspaceId, path.template_id);
    const video = await generateFromTemplate(principal.workspaceId, template, body);
    return respond.accepted(await videoView(video));
  },
  { successStatus: 202, response: templateVideoBody },
);

const templateUpdate = endpoint(
  { path: templateIdPath, body: updateTemplateBody },
  async ({ path, body, principal }) =>
    respond.ok(await templateView(await renameTemplate(principal.workspaceId, path.template_id, body.name))),
  { response: templateBody },
);

const templateDelete = endpoint(
  { path: templateIdPath },
  async ({ path, principal }) => {
    if (!(await deleteTemplate(principal.workspaceId, path.template_id))) throw templateNotFound();
    return respond.ok({ id: path.template_id, deleted: true });
  },
  { response: templateDeletedBody },
);

const templateVariablesReplace = endpoint(
  { path: templateIdPath, body: replaceVariablesBody },
  async ({ path, body, principal }) => {
    const template = await requireTemplate(principal.workspaceId, path.template_id);
    const variables = await checkVariables(principal.workspaceId, template.render, body.variables);
    return respond.ok(
      await templateView(await replaceVariables(template, body.expected_edit_version, variables)),
    );
  },
  { response: templateBody },
);

export const AREA_ROUTES = areaRoutes('templates', [
  row('GET', '/v3/templates', 'TemplateList', 'List templates', ['templates:read'], 'read', {
    endpoint: templateList,
  }),
  row(
    'POST',
    '/v3/templates',
    'TemplateCreate',
    'Create a private template from a video',
    ['templates:write'],
    'write',
    { ...create, endpoint: templateCreate },
  ),
  row('GET', '/v3/templates/{template_id}', 'TemplateGet', 'Get a template', ['templates:read'], 'read', {
    endpoint: templateGet,
  }),
  row(
    'POST',
    '/v3/templates/{template_id}',
    'TemplateGenerate',
    'Generate a video from a template',
    ['templates:read', 'videos:write'],
    'heavy',
    { ...paidCreate, endpoint: templateGenerate },
  ),
  row(
    'PATCH',
    '/v3/templates/{template_id}',
    'TemplateUpdate',
    'Rename a template',
    ['templates:write'],
    'write',
    { endpoint: templateUpdate },
  ),
  row(
    'DELETE',
    '/v3/templates/{template_id}',
    'TemplateDelete',
    'Delete a template',
    ['templates:write'],
    'write',
    { endpoint: templateDelete },
  ),
  row(
    'PUT',
    '/v3/templates/{template_id}/variables',
    'TemplateVariablesReplace',
    "Replace a template's variables",
    ['templates:write'],
    'write',
    { endpoint: templateVariablesReplace },
  ),
]);
