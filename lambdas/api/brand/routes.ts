/** Brand: this area's rows of the route table (lambdas/api/routes.ts): glossaries, then kits. */
import { areaRoutes } from '../route-rows.js';
import { GLOSSARY_ROWS } from './glossary-rows.js';
import { KIT_ROWS } from './kit-rows.js';

export const AREA_ROUTES = areaRoutes('brand', [...GLOSSARY_ROWS, ...KIT_ROWS]);
