/** `npm run docs:generate`: writes the OpenAPI document, the README coverage table and the served doc pages. */
import { readFile, writeFile } from 'node:fs/promises';
import {
  DOC_PAGES_PATH,
  OPENAPI_PATH,
  README_PATH,
  renderCoverageTable,
  renderDocPages,
  renderOpenApi,
  withCoverageTable,
} from '../lib/docs/generated-docs.js';

await writeFile(OPENAPI_PATH, await renderOpenApi());
await writeFile(README_PATH, withCoverageTable(await readFile(README_PATH, 'utf8'), renderCoverageTable()));
await writeFile(DOC_PAGES_PATH, await renderDocPages());
console.log(`Wrote ${OPENAPI_PATH}, ${DOC_PAGES_PATH} and the coverage table of ${README_PATH}`);
