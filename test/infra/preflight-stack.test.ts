/**
 * The deploy preflight (bin/preflight.ts) on the real stack, synthesized in-process as
 * synth-helpers.ts does: nothing CloudFormation, API Gateway, Lambda, IAM or Step Functions would
 * refuse at deploy time. Synthesized without bundling, so the Lambda code sizes are reported as not
 * measured here; `npm run preflight` measures them on a bundled `cdk.out`.
 */
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CheckResult, runChecks } from '../../lib/preflight/checks.js';
import { readCloudAssembly } from '../../lib/preflight/cloud-assembly.js';
import { failuresOf, formatReport } from '../../lib/preflight/report.js';
import { DEFINITION_FILE_SUFFIX } from '../../lib/stack/workflow-state-machines.js';
import { buildService, PROJECT_ROOT } from './synth-helpers.js';

const QUEUE_RULE = 'SQS visibility timeout';

describe('deploy preflight on the synthesized stack', () => {
  let results: CheckResult[];
  let assemblyDirectory: string;
  beforeAll(() => {
    const { app } = buildService({ validateTemplates: false });
    assemblyDirectory = app.synth().directory;
    results = runChecks(readCloudAssembly(assemblyDirectory));
  });
  // The App synthesizes into a fresh temporary directory.
  afterAll(() => rmSync(assemblyDirectory, { recursive: true, force: true }));

  it('finds nothing past a deploy-time limit', () => {
    expect(failuresOf(results), formatReport(results)).toEqual([]);
  });

  it('measures every nested stack and the API across them', () => {
    const resources = results.find((check) => check.measure === 'resources per stack');
    expect(resources?.measurements.length).toBeGreaterThan(1);
    const api = results.find((check) => check.measure === 'API Gateway resources per REST API');
    expect(api?.measurements.some((measurement) => measurement.value > 50)).toBe(true);
  });

  it('checks the substitutions of every state machine of state-machines/', () => {
    const definitions = readdirSync(path.join(PROJECT_ROOT, 'state-machines')).filter((file) =>
      file.endsWith(DEFINITION_FILE_SUFFIX),
    );
    const machines = results.find((check) => check.measure === 'ASL placeholders without substitution');
    expect(definitions.length).toBeGreaterThan(0);
    expect(machines?.measurements).toHaveLength(definitions.length);
  });

  it('says the unbundled functions were not measured instead of passing them', () => {
    const zipped = results.find((check) => check.measure === 'Lambda code, zipped');
    expect(zipped?.notMeasured).toMatch(/inline code/);
  });

  it('gives every queue consumer a visibility timeout of at least 6x its timeout (AWS guidance)', () => {
    const queues = results.find((check) => check.measure === QUEUE_RULE);
    expect(queues?.measurements.length).toBeGreaterThan(0);
    for (const measurement of queues?.measurements ?? []) expect(measurement.value).toBeGreaterThanOrEqual(6);
  });
});
