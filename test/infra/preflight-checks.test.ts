/**
 * Each deploy preflight check (lib/preflight/checks.ts) on small fixture templates: one within its
 * limit, one past it, named by stack and resource. preflight-stack.test.ts runs them on the real stack.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  API_STACKS_AT_ONCE_LIMIT,
  type CheckResult,
  checkApiResourceCount,
  checkApiStacksAtOnce,
  checkDefinitionSubstitutions,
  checkEnvironmentSize,
  checkLambdaCodeSize,
  checkManagedPolicySize,
  checkNameLengths,
  checkOutputCount,
  checkParameterCount,
  checkQueueVisibilityTimeout,
  checkResourceCount,
  checkRetainedOnFailedCreate,
  checkRoleInlinePolicySize,
  checkTemplateBodySize,
} from '../../lib/preflight/checks.js';
import type {
  CfnResource,
  CfnTemplate,
  CloudAssemblyContents,
  FileAsset,
  StackTemplate,
} from '../../lib/preflight/cloud-assembly.js';
import { failuresOf, formatReport } from '../../lib/preflight/report.js';
import { UNRESOLVED_VALUE_LENGTH } from '../../lib/preflight/template-values.js';

function stack(name: string, template: CfnTemplate, overrides: Partial<StackTemplate> = {}): StackTemplate {
  return { name, template, bodyBytes: JSON.stringify(template).length, uploadedToS3: true, ...overrides };
}

function assembly(stacks: StackTemplate[], assets: Record<string, FileAsset> = {}): CloudAssemblyContents {
  return { directory: '', stacks, assetsByObjectKey: new Map(Object.entries(assets)) };
}

function many<T>(count: number, make: (index: number) => T): Record<string, T> {
  return Object.fromEntries(Array.from({ length: count }, (_, index) => [`Item${index}`, make(index)]));
}

const topic: CfnResource = { Type: 'AWS::SNS::Topic' };

/** The failures of a check as `stack/resource value/limit`, the way a reader would check them. */
function failures(check: CheckResult): string[] {
  return failuresOf([check]).map(
    ({ measurement }) =>
      `${measurement.stack}/${measurement.resource} ${measurement.value}/${measurement.limit}`,
  );
}

describe('template counts', () => {
  it('counts resources per template, a nested stack on its own', () => {
    const root = stack('Root', { Resources: many(500, () => topic) });
    const nested = stack(
      'RootNested',
      { Resources: many(501, () => topic) },
      { parent: { stack: root, logicalId: 'Item0' } },
    );
    expect(failures(checkResourceCount(assembly([root])))).toEqual([]);
    expect(failures(checkResourceCount(assembly([root, nested])))).toEqual(['RootNested/(template) 501/500']);
  });

  it('counts outputs and parameters against 200', () => {
    const within = stack('Within', {
      Outputs: many(200, () => ({ Value: 'x' })),
      Parameters: many(200, () => ({})),
    });
    const past = stack('Past', {
      Outputs: many(201, () => ({ Value: 'x' })),
      Parameters: many(201, () => ({})),
    });
    expect(failures(checkOutputCount(assembly([within])))).toEqual([]);
    expect(failures(checkParameterCount(assembly([within])))).toEqual([]);
    expect(failures(checkOutputCount(assembly([past])))).toEqual(['Past/(template) 201/200']);
    expect(failures(checkParameterCount(assembly([past])))).toEqual(['Past/(template) 201/200']);
  });
});

describe('template body size', () => {
  it('allows 1 MB from S3 and 51,200 bytes inline', () => {
    const fromS3 = stack('FromS3', {}, { bodyBytes: 1_048_576 });
    const inlineWithin = stack('InlineWithin', {}, { bodyBytes: 51_200, uploadedToS3: false });
    const inlinePast = stack('InlinePast', {}, { bodyBytes: 51_201, uploadedToS3: false });
    const s3Past = stack('S3Past', {}, { bodyBytes: 1_048_577 });
    expect(failures(checkTemplateBodySize(assembly([fromS3, inlineWithin])))).toEqual([]);
    expect(failures(checkTemplateBodySize(assembly([inlinePast, s3Past])))).toEqual([
      'InlinePast/(template) 51201/51200',
      'S3Past/(template) 1048577/1048576',
    ]);
  });
});

describe('API Gateway resources', () => {
  /** A root stack with the API and `inRoot` resources, and a nested stack adding `inNested` through a parameter. */
  function api(inRoot: number, inNested: number): CloudAssemblyContents {
    const resource = (restApiId: unknown): CfnResource => ({
      Type: 'AWS::ApiGateway::Resource',
      Properties: { RestApiId: restApiId, PathPart: 'p' },
    });
    const root = stack('Root', {
      Resources: {
        Api: { Type: 'AWS::ApiGateway::RestApi' },
        Area: { Type: 'AWS::CloudFormation::Stack', Properties: { Parameters: { ApiId: { Ref: 'Api' } } } },
        ...many(inRoot, () => resource({ Ref: 'Api' })),
      },
    });
    const nested = stack(
      'RootArea',
      {
        Parameters: { ApiId: { Type: 'String' } },
        Resources: many(inNested, () => resource({ Ref: 'ApiId' })),
      },
      { parent: { stack: root, logicalId: 'Area' } },
    );
    return assembly([root, nested]);
  }

  it('counts the resources of every stack that adds to the API, and its root', () => {
    expect(checkApiResourceCount(api(100, 199)).measurements).toEqual([
      { stack: 'Root', resource: 'Api', value: 300, limit: 300 },
    ]);
    expect(failures(checkApiResourceCount(api(100, 200)))).toEqual(['Root/Api 301/300']);
  });
});

describe('API stacks created at once', () => {
  /**
   * A root stack with the API and `count` nested stacks that add methods to it, each depending on
   * the one `lanes` places before it (no ordering when `lanes` is 0), plus one nested stack without
   * API resources.
   */
  function areaStacks(count: number, lanes: number): CloudAssemblyContents {
    const ids = Array.from({ length: count }, (_, index) => `Area${index}`);
    const root = stack('Root', {
      Resources: {
        Api: { Type: 'AWS::ApiGateway::RestApi' },
        Queues: { Type: 'AWS::CloudFormation::Stack' },
        ...Object.fromEntries(
          ids.map((id, index) => {
            const before = lanes > 0 ? ids[index - lanes] : undefined;
            const area: CfnResource = {
              Type: 'AWS::CloudFormation::Stack',
              Properties: { Parameters: { ApiId: { Ref: 'Api' } } },
              ...(before ? { DependsOn: [before] } : {}),
            };
            return [id, area];
          }),
        ),
      },
    });
    const nested = ids.map((id) =>
      stack(
        `Root${id}`,
        { Resources: { Get: { Type: 'AWS::ApiGateway::Method' } } },
        { parent: { stack: root, logicalId: id } },
      ),
    );
    const queues = stack(
      'RootQueues',
      { Resources: { Queue: { Type: 'AWS::SQS::Queue' } } },
      {
        parent: { stack: root, logicalId: 'Queues' },
      },
    );
    return assembly([root, ...nested, queues]);
  }

  it('counts every unordered nested stack with API resources as created at once', () => {
    expect(failures(checkApiStacksAtOnce(areaStacks(22, 0)))).toEqual([
      `Root/(nested stacks) 22/${API_STACKS_AT_ONCE_LIMIT}`,
    ]);
  });

  it('counts stacks chained in lanes as the number of lanes', () => {
    expect(checkApiStacksAtOnce(areaStacks(22, 1)).measurements[0]?.value).toBe(1);
    expect(checkApiStacksAtOnce(areaStacks(22, 3)).measurements[0]?.value).toBe(3);
    expect(failures(checkApiStacksAtOnce(areaStacks(22, API_STACKS_AT_ONCE_LIMIT)))).toEqual([]);
  });

  it('follows an ordering through references and other resources', () => {
    // B waits for a role that references A: A and B are never created together.
    const root = stack('Root', {
      Resources: {
        A: { Type: 'AWS::CloudFormation::Stack' },
        Role: {
          Type: 'AWS::IAM::Role',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: an Fn::Sub reference, not a template.
          Properties: { Description: { 'Fn::Sub': '${A.Outputs.X}' } },
        },
        B: { Type: 'AWS::CloudFormation::Stack', DependsOn: 'Role' },
        C: { Type: 'AWS::CloudFormation::Stack' },
      },
    });
    const withMethod = (logicalId: string) =>
      stack(
        `Root${logicalId}`,
        { Resources: { Any: { Type: 'AWS::ApiGateway::Method' } } },
        { parent: { stack: root, logicalId } },
      );
    const result = checkApiStacksAtOnce(assembly([root, withMethod('A'), withMethod('B'), withMethod('C')]));
    expect(result.measurements.map((measurement) => measurement.value)).toEqual([2]);
  });
});

describe('resources a failed first create orphans', () => {
  it('fails DeletionPolicy Retain and accepts RetainExceptOnCreate and Delete', () => {
    const kept = stack('Kept', {
      Resources: {
        Table: { Type: 'AWS::DynamoDB::Table', DeletionPolicy: 'RetainExceptOnCreate' },
        Logs: { Type: 'AWS::Logs::LogGroup', DeletionPolicy: 'Delete' },
        Topic: topic,
      },
    });
    const orphaning = stack('Orphaning', {
      Resources: { Bucket: { Type: 'AWS::S3::Bucket', DeletionPolicy: 'Retain' } },
    });
    expect(failures(checkRetainedOnFailedCreate(assembly([kept])))).toEqual([]);
    const result = checkRetainedOnFailedCreate(assembly([kept, orphaning]));
    expect(failures(result)).toEqual(['Orphaning/(template) 1/0']);
    expect(result.measurements[1]?.detail).toContain('Bucket');
  });
});

describe('Lambda environment size', () => {
  const withVariables = (variables: Record<string, unknown>) =>
    assembly([
      stack('Root', {
        Resources: {
          Fn: { Type: 'AWS::Lambda::Function', Properties: { Environment: { Variables: variables } } },
        },
      }),
    ]);

  it('measures the variables as JSON, a reference at its allowance', () => {
    const check = checkEnvironmentSize(withVariables({ A: 'b', T: { Ref: 'Table' } }));
    expect(check.measurements[0]?.value).toBe(`{"A":"b","T":""}`.length + UNRESOLVED_VALUE_LENGTH);
    expect(failures(check)).toEqual([]);
  });

  it('fails past 4 KB', () => {
    expect(failures(checkEnvironmentSize(withVariables({ BIG: 'x'.repeat(4096) })))).toEqual([
      `Root/Fn ${4096 + '{"BIG":""}'.length}/4096`,
    ]);
  });
});

describe('IAM policy sizes', () => {
  const document = (characters: number) => ({
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: 'x:y', Resource: 'r'.repeat(characters) }],
  });
  const overhead = JSON.stringify(document(0)).length;

  it("adds every inline policy of a role, the role's own and the AWS::IAM::Policy resources naming it", () => {
    const roles = (second: number) =>
      assembly([
        stack('Root', {
          Resources: {
            Role: {
              Type: 'AWS::IAM::Role',
              Properties: { Policies: [{ PolicyName: 'own', PolicyDocument: document(5000 - overhead) }] },
            },
            Extra: {
              Type: 'AWS::IAM::Policy',
              Properties: { Roles: [{ Ref: 'Role' }], PolicyDocument: document(second - overhead) },
            },
          },
        }),
      ]);
    expect(failures(checkRoleInlinePolicySize(roles(5240)))).toEqual([]);
    expect(failures(checkRoleInlinePolicySize(roles(5241)))).toEqual(['Root/Role 10241/10240']);
  });

  it('measures a managed policy against 6,144 characters', () => {
    const managed = (characters: number) =>
      assembly([
        stack('Root', {
          Resources: {
            Managed: {
              Type: 'AWS::IAM::ManagedPolicy',
              Properties: { PolicyDocument: document(characters - overhead) },
            },
          },
        }),
      ]);
    expect(failures(checkManagedPolicySize(managed(6144)))).toEqual([]);
    expect(failures(checkManagedPolicySize(managed(6145)))).toEqual(['Root/Managed 6145/6144']);
  });
});

describe('explicit names', () => {
  const named = (type: string, property: string, name: unknown) =>
    assembly([stack('Svc', { Resources: { Named: { Type: type, Properties: { [property]: name } } } })]);

  it('measures names as CloudFormation resolves them, the stack name included', () => {
    const joined = { 'Fn::Join': ['-', [{ Ref: 'AWS::StackName' }, 'x'.repeat(60)]] };
    expect(
      checkNameLengths(named('AWS::Lambda::Function', 'FunctionName', joined)).measurements[0]?.value,
    ).toBe(64);
    expect(failures(checkNameLengths(named('AWS::Lambda::Function', 'FunctionName', joined)))).toEqual([]);
  });

  it.each([
    ['AWS::Lambda::Function', 'FunctionName', 64],
    ['AWS::IAM::Role', 'RoleName', 64],
    ['AWS::Logs::LogGroup', 'LogGroupName', 512],
    ['AWS::StepFunctions::StateMachine', 'StateMachineName', 80],
  ])('fails a %s %s longer than %i', (type, property, limit) => {
    expect(failures(checkNameLengths(named(type, property, 'n'.repeat(limit))))).toEqual([]);
    expect(failures(checkNameLengths(named(type, property, 'n'.repeat(limit + 1))))).toEqual([
      `Svc/Named ${limit + 1}/${limit}`,
    ]);
  });
});

describe('Lambda code size', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'preflight-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const withAsset = (files: Record<string, Buffer>) => {
    const directory = mkdtempSync(path.join(scratch, 'asset-'));
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(directory, name)), { recursive: true });
      writeFileSync(path.join(directory, name), content);
    }
    return assembly(
      [
        stack('Root', {
          Resources: {
            Fn: { Type: 'AWS::Lambda::Function', Properties: { Code: { S3Bucket: 'b', S3Key: 'h.zip' } } },
          },
        }),
      ],
      { 'h.zip': { sourcePath: directory, packaging: 'zip' } },
    );
  };

  it('measures the zip the CLI will make of a bundle directory, and its contents', () => {
    const [zipped, unzipped] = checkLambdaCodeSize(
      withAsset({
        'index.mjs': Buffer.alloc(100_000, 'a'),
        'node_modules/p/data': Buffer.alloc(50_000, 'b'),
      }),
    );
    expect(unzipped?.measurements[0]?.value).toBe(150_000);
    expect(zipped?.measurements[0]?.value).toBeLessThan(10_000);
    expect(failuresOf([zipped, unzipped].filter((check) => check !== undefined))).toEqual([]);
  });

  it('fails a bundle that zips past 50 MB', () => {
    const [zipped] = checkLambdaCodeSize(withAsset({ 'index.mjs': randomBytes(50 * 1024 * 1024 + 1) }));
    expect(failures(zipped as CheckResult)).toHaveLength(1);
  });

  it('reports inline code as not measured rather than passing it', () => {
    const inline = assembly([
      stack('Root', {
        Resources: { Fn: { Type: 'AWS::Lambda::Function', Properties: { Code: { ZipFile: 'export {}' } } } },
      }),
    ]);
    const [zipped] = checkLambdaCodeSize(inline);
    expect(zipped?.notMeasured).toBe(
      '1 of 1 functions have inline code (assembly synthesized without bundling): not measured',
    );
    expect(formatReport(checkLambdaCodeSize(inline))).toContain('NOT MEASURED');
  });

  it('reports code from outside the assembly as not measured', () => {
    const elsewhere = assembly([
      stack('Root', {
        Resources: {
          Fn: { Type: 'AWS::Lambda::Function', Properties: { Code: { S3Bucket: 'b', S3Key: 'other.zip' } } },
        },
      }),
    ]);
    expect(checkLambdaCodeSize(elsewhere)[0]?.notMeasured).toBe(
      '1 of 1 functions have code from outside the assembly: not measured',
    );
  });
});

describe('queue visibility timeout', () => {
  /** A queue in the root stack consumed by a function of a nested stack, as the ARN reaches it. */
  const consumed = (visibilityTimeout: number, functionTimeout: number) => {
    const root = stack('Root', {
      Resources: {
        Queue: { Type: 'AWS::SQS::Queue', Properties: { VisibilityTimeout: visibilityTimeout } },
        Worker: {
          Type: 'AWS::CloudFormation::Stack',
          Properties: { Parameters: { QueueArn: { 'Fn::GetAtt': ['Queue', 'Arn'] } } },
        },
      },
    });
    const nested = stack(
      'RootWorker',
      {
        Parameters: { QueueArn: { Type: 'String' } },
        Resources: {
          Fn: { Type: 'AWS::Lambda::Function', Properties: { Timeout: functionTimeout } },
          Source: {
            Type: 'AWS::Lambda::EventSourceMapping',
            Properties: { EventSourceArn: { Ref: 'QueueArn' }, FunctionName: { Ref: 'Fn' } },
          },
        },
      },
      { parent: { stack: root, logicalId: 'Worker' } },
    );
    return assembly([root, nested]);
  };

  it("wants at least six times the consuming function's timeout", () => {
    expect(failures(checkQueueVisibilityTimeout(consumed(180, 30)))).toEqual([]);
    expect(failures(checkQueueVisibilityTimeout(consumed(360, 300)))).toEqual(['RootWorker/Source 1.2/6']);
  });
});

describe('definition substitutions', () => {
  const machine = (substitutions: Record<string, unknown>) =>
    assembly([
      stack('Root', {
        Resources: {
          Machine: {
            Type: 'AWS::StepFunctions::StateMachine',
            Properties: {
              DefinitionString: JSON.stringify({
                StartAt: 'A',
                // biome-ignore lint/suspicious/noTemplateCurlyInString: a DefinitionSubstitutions placeholder
                States: { A: { Type: 'Task', Resource: '${PrepareFunctionArn}', End: true } },
              }),
              DefinitionSubstitutions: substitutions,
            },
          },
        },
      }),
    ]);

  it('wants every placeholder of the definition substituted', () => {
    expect(failures(checkDefinitionSubstitutions(machine({ PrepareFunctionArn: { Ref: 'Fn' } })))).toEqual(
      [],
    );
    const missing = checkDefinitionSubstitutions(machine({}));
    expect(failures(missing)).toEqual(['Root/Machine 1/0']);
    expect(missing.measurements[0]?.detail).toBe('PrepareFunctionArn');
  });
});

describe('report', () => {
  it('prints the value closest to each limit and a line per failure', () => {
    const report = formatReport([
      checkResourceCount(
        assembly([
          stack('Small', { Resources: many(3, () => topic) }),
          stack('Big', { Resources: many(501, () => topic) }),
        ]),
      ),
    ]);
    expect(report).toContain('resources per stack  501');
    expect(report).toContain('FAIL resources per stack: Big/(template) is 501, above the limit of 500');
  });
});
