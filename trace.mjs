import { buildSync } from 'esbuild';
const [mod, exp, word] = process.argv.slice(2);
const r = buildSync({ stdin: { contents: `export { ${exp} as handler } from './lambdas/${mod}.ts';`, resolveDir: process.cwd(), loader: 'ts' }, bundle: true, write: false, platform: 'node', format: 'esm', packages: 'external', logLevel: 'silent', treeShaking: true });
const t = r.outputFiles[0].text;
let section = '';
for (const line of t.split('\n')) { if (line.startsWith('// ')) section = line; else if (line.includes(word) && !line.startsWith('import')) console.log(section, '|', line.trim().slice(0, 120)); }
