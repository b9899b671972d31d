/**
 * THE route table. Every method and path of the contract, once, each row with the endpoint that
 * serves it (request schemas and the function that answers); a removed route (410) has none.
 * The rows are written per area, in `lambdas/api/<area>/routes.ts`; this file only joins them.
 *
 * Everything reads this table: the CDK stack makes one Lambda function per row, the local server
 * serves the same rows, the request pipeline takes scopes, rate class, idempotency and billing from
 * the row, and the OpenAPI document, the README's coverage table and the fuzz tests are generated
 * from it. Building an endpoint = an `endpoint(...)` given to its row in the area's routes file, + tests.
 */

import { AREA_ROUTES as accountRoutes } from './account/routes.js';
import { AREA_ROUTES as aiClippingRoutes } from './ai-clipping/routes.js';
import { AREA_ROUTES as assetsRoutes } from './assets/routes.js';
import { AREA_ROUTES as audioRoutes } from './audio/routes.js';
import { AREA_ROUTES as avatarsRoutes } from './avatars/routes.js';
import { AREA_ROUTES as backgroundRemovalsRoutes } from './background-removals/routes.js';
import { AREA_ROUTES as brandRoutes } from './brand/routes.js';
import { AREA_ROUTES as fillerWordRemovalsRoutes } from './filler-word-removals/routes.js';
import { AREA_ROUTES as foldersRoutes } from './folders/routes.js';
import { AREA_ROUTES as hyperframesRoutes } from './hyperframes/routes.js';
import { AREA_ROUTES as legacyRoutes } from './legacy/routes.js';
import { AREA_ROUTES as lipsyncsRoutes } from './lipsyncs/routes.js';
import { AREA_ROUTES as metaRoutes } from './meta/routes.js';
import { AREA_ROUTES as modelsRoutes } from './models/routes.js';
import { AREA_ROUTES as overdubsRoutes } from './overdubs/routes.js';
import type { RouteDefinition } from './pipeline/route-types.js';
import { AREA_ROUTES as realtimeRoutes } from './realtime/routes.js';
import { AREA_ROUTES as templatesRoutes } from './templates/routes.js';
import { AREA_ROUTES as videoAgentsRoutes } from './video-agents/routes.js';
import { AREA_ROUTES as videoTranslationsRoutes } from './video-translations/routes.js';
import { AREA_ROUTES as videosRoutes } from './videos/routes.js';
import { AREA_ROUTES as voicesRoutes } from './voices/routes.js';
import { AREA_ROUTES as webhooksRoutes } from './webhooks/routes.js';

// The order is the order of the OpenAPI document and of the README's coverage table.
export const ROUTES: readonly RouteDefinition[] = [
  ...metaRoutes,
  ...accountRoutes,
  ...foldersRoutes,
  ...webhooksRoutes,
  ...videosRoutes,
  ...videoAgentsRoutes,
  ...templatesRoutes,
  ...voicesRoutes,
  ...audioRoutes,
  ...videoTranslationsRoutes,
  ...aiClippingRoutes,
  ...lipsyncsRoutes,
  ...overdubsRoutes,
  ...assetsRoutes,
  ...avatarsRoutes,
  ...realtimeRoutes,
  ...brandRoutes,
  ...hyperframesRoutes,
  ...fillerWordRemovalsRoutes,
  ...backgroundRemovalsRoutes,
  ...modelsRoutes,
  ...legacyRoutes,
];
