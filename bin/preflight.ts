/**
 * Deploy preflight: checks a synthesized cloud assembly against the quotas that would otherwise fail
 * `cdk deploy` halfway through (template and API sizes, Lambda environment and code sizes, IAM policy
 * sizes, name lengths, queue timeouts, state machine substitutions, API stacks created at once,
 * resources a failed first create would orphan); see lib/preflight/checks.ts.
 *
 *   npm run preflight                       # cdk synth, then check cdk.out
 *   npx tsx bin/preflight.ts path/to/cdk.out   # check an assembly synthesized already
 *   npm run preflight:environment           # check this machine instead (lib/preflight/environment.ts)
 *
 * Prints what it measured and exits 1 on any value past its limit. Offline: it reads files only.
 * `--environment` checks Node, Docker, BuildKit, the npm registry and AWS credentials, each with a
 * short timeout, and exits 1 on any that would fail `cdk deploy`.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { runChecks } from '../lib/preflight/checks.js';
import { readCloudAssembly } from '../lib/preflight/cloud-assembly.js';
import { checkEnvironment, formatEnvironmentReport } from '../lib/preflight/environment.js';
import { failuresOf, formatReport } from '../lib/preflight/report.js';

if (process.argv[2] === '--environment') {
  const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    engines: { node: string };
  };
  const checks = await checkEnvironment({ requiredNode: packageJson.engines.node });
  console.log(formatEnvironmentReport(checks));
  process.exit(checks.some((check) => check.result === 'FAIL') ? 1 : 0);
}

const directory = path.resolve(process.argv[2] ?? 'cdk.out');
if (!existsSync(path.join(directory, 'manifest.json'))) {
  console.error(
    `No cloud assembly in ${directory}: run \`npm run synth\` first, or name the assembly's directory.`,
  );
  process.exit(2);
}
// The functions' code is built from this project's sources (the IAM rule reads what each can call).
const results = runChecks(readCloudAssembly(directory), {
  projectRoot: path.resolve(import.meta.dirname, '..'),
});
console.log(formatReport(results));
process.exitCode = failuresOf(results).length > 0 ? 1 : 0;
