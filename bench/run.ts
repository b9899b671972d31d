/** `npm run bench -- <name>`: runs one benchmark from this folder, or all of them in turn. */
import { readdir } from 'node:fs/promises';

const requested = process.argv[2];
const available = (await readdir(new URL('.', import.meta.url)))
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts')
  .map((file) => file.replace(/\.ts$/, ''));
const selected = requested ? available.filter((name) => name === requested) : available;
if (selected.length === 0) {
  console.error(`No benchmark "${requested}". Available: ${available.join(', ')}`);
  process.exit(2);
}
for (const name of selected) {
  console.log(`\n== ${name}`);
  await import(`./${name}.ts`);
}
