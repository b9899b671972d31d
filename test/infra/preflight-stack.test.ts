/**
 * The deploy preflight (bin/preflight.ts) on the real stack, synthesized in-process as
 * synth-helpers.ts does: nothing CloudFormation, API Gateway, Lambda, IAM or Step Functions would
 * refuse at deploy time. Synthesized without bundling, so the Lambda code sizes are reported as not
 * measured here; `npm run preflight` measures them on a bundled `cdk.out`.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CheckResult, runChecks } from '../../lib/preflight/checks.js';
import { type CloudAssemblyContents, readCloudAssembly } from '../../lib/preflight/cloud-assembly.js';
import { failuresOf, formatReport } from '../../lib/preflight/report.js';
import { checkRolesCoverCode, UNREACHED_CALLS } from '../../lib/preflight/role-coverage.js';
import { FUNCTION_RUNS_METADATA } from '../../lib/stack/service-function.js';
import { DEFINITION_FILE_SUFFIX } from '../../lib/stack/workflow-state-machines.js';
import { PROJECT_ROOT, sharedAssembly } from './synth-helpers.js';

const QUEUE_RULE = 'SQS visibility timeout';

describe('deploy preflight on the synthesized stack', () => {
  let results: CheckResult[];
  let assemblyDirectory: string;
  let assembly: CloudAssemblyContents;
  beforeAll(() => {
    // The default build's assembly, synthesized once for the infra files that only read it.
    assemblyDirectory = sharedAssembly({ validateTemplates: false });
    assembly = readCloudAssembly(assemblyDirectory);
    results = runChecks(assembly, { projectRoot: PROJECT_ROOT });
  });

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

  describe("IAM: every role allows the AWS actions its function's code can call", () => {
    const ROLE_RULE = 'AWS actions a function can call that its role does not allow';

    /** The assembly with `action` taken out of the own (inline) policies of the role of the function running `bundle#exportName`. */
    function withoutAction(bundle: string, exportName: string, action: string): CloudAssemblyContents {
      const copy = structuredClone(assembly);
      for (const stack of copy.stacks) {
        const resources = stack.template.Resources ?? {};
        const fn = Object.values(resources).find((resource) => {
          const runs = resource.Metadata?.[FUNCTION_RUNS_METADATA] as
            | { bundle: string; exportName: string }
            | undefined;
          return runs?.bundle === bundle && runs.exportName === exportName;
        });
        if (!fn) continue;
        const role = fn.Properties?.Role as { 'Fn::GetAtt': [string, string] } | undefined;
        const roleId = role?.['Fn::GetAtt'][0];
        const ownPolicies = Object.values(resources).filter(
          (resource) =>
            resource.Type === 'AWS::IAM::Policy' &&
            ((resource.Properties?.Roles ?? []) as { Ref?: string }[]).some((role) => role.Ref === roleId),
        );
        for (const policy of ownPolicies) {
          const document = policy.Properties?.PolicyDocument as {
            Statement: { Action?: string | string[] }[];
          };
          for (const statement of document.Statement) {
            if (Array.isArray(statement.Action))
              statement.Action = statement.Action.filter((name) => name !== action);
            else if (statement.Action === action) statement.Action = [];
          }
        }
        return copy;
      }
      throw new Error(`No function runs ${bundle}#${exportName}`);
    }

    it('measures every function the stack makes, and finds each role covering its code', () => {
      const rule = results.find((check) => check.measure === ROLE_RULE);
      // Only CDK's own functions say nothing of what they run: the custom resource provider and the
      // console site's bucket deployment (aws-cdk-lib's, copying the built console into its bucket).
      const unmarked = assembly.stacks.flatMap((stack) =>
        Object.entries(stack.template.Resources ?? {}).filter(
          ([, resource]) =>
            resource.Type === 'AWS::Lambda::Function' && !resource.Metadata?.[FUNCTION_RUNS_METADATA],
        ),
      );
      expect(unmarked.map(([logicalId]) => logicalId).sort()).toEqual([
        expect.stringMatching(/^CatalogPublisherProviderframeworkonEvent/),
        expect.stringMatching(/^CustomCDKBucketDeployment/),
      ]);
      expect(rule?.notMeasured).toBeUndefined();
      // Route functions, the authorizer, workers, task functions and the catalog publisher.
      expect(rule?.measurements.length).toBeGreaterThan(100);
      expect(rule?.measurements.filter((measurement) => measurement.value > 0)).toEqual([]);
      expect(rule?.measurements.map((measurement) => measurement.detail)).toEqual(
        expect.arrayContaining(['workers/webhook-dispatcher#handler', 'videos/render-steps#Prepare']),
      );
    });

    it('fails the webhook dispatcher without dynamodb:BatchWriteItem (it records deliveries in batches)', () => {
      const rule = checkRolesCoverCode(
        withoutAction('workers/webhook-dispatcher', 'handler', 'dynamodb:BatchWriteItem'),
        {
          projectRoot: PROJECT_ROOT,
        },
      );
      const failing = rule.measurements.filter((measurement) => measurement.value > 0);
      expect(failing.map((measurement) => measurement.detail)).toEqual([
        'dynamodb:BatchWriteItem (BatchWriteCommand)',
      ]);
    });

    it("fails the video render's first step without events:PutEvents (its restart path announces the outcome)", () => {
      const rule = checkRolesCoverCode(withoutAction('videos/render-steps', 'Prepare', 'events:PutEvents'), {
        projectRoot: PROJECT_ROOT,
      });
      const failing = rule.measurements.filter((measurement) => measurement.value > 0);
      expect(failing).toHaveLength(1);
      expect(failing[0]?.detail).toBe('events:PutEvents (PutEventsCommand)');
    });

    it('keeps every acknowledged unreached call necessary', () => {
      const rule = results.find((check) => check.measure === ROLE_RULE);
      expect(rule?.measurements.filter((measurement) => measurement.resource === 'UNREACHED_CALLS')).toEqual(
        [],
      );
      expect(UNREACHED_CALLS.length).toBeGreaterThan(0);
    });
  });
});
