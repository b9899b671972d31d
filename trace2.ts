import { buildSync } from 'esbuild';
import { areaBundleEntry } from './lib/stack/route-plan.js';
const [area, word] = process.argv.slice(2);
const r = buildSync({ stdin: { contents: areaBundleEntry(process.cwd(), area as never), resolveDir: process.cwd(), loader: 'js' }, bundle: true, write: false, platform: 'node', format: 'esm', packages: 'external', logLevel: 'silent', treeShaking: true });
let section = '';
for (const line of r.outputFiles[0]!.text.split('\n')) { if (line.startsWith('// ')) section = line; else if (line.includes(word!) && !line.startsWith('import')) console.log(section, '|', line.trim().slice(0, 140)); }
