/** `npm run docs:generate`: writes the OpenAPI document and the README coverage table. */
import { readFile, writeFile } from 'node:fs/promises';
import {
  OPENAPI_PATH,
  README_PATH,
  renderCoverageTable,
  renderOpenApi,
  withCoverageTable,
} from '../lib/docs/generated-docs.js';

await writeFile(OPENAPI_PATH, await renderOpenApi());
await writeFile(README_PATH, withCoverageTable(await readFile(README_PATH, 'utf8'), renderCoverageTable()));
console.log(`Wrote ${OPENAPI_PATH} and the coverage table of ${README_PATH}`);
