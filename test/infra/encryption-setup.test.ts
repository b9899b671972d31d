/**
 * The workspace encryption setup in the synthesized stack: its state machine wired to the task
 * functions of the registry, each function's role holding exactly its access, the customer-key
 * statements of the media policy, the admin workflow kept away from API roles, and cdk-nag.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { SETUP_CHECK_PURPOSE } from '../../lambdas/encryption/setup-steps.js';
import {
  ADMIN_WORKFLOWS,
  ENCRYPTION_SETUP_WORKFLOW,
  TASK_FUNCTIONS,
  type TaskFunctionName,
} from '../../lambdas/workflows/task-functions.js';
import { taskFunctionNames } from '../../lib/stack/workflow-state-machines.js';
import {
  buildService,
  type CfnResourceJson,
  PROJECT_ROOT,
  resourcesOfType,
  type SynthesizedService,
  synthesisMessages,
  type TemplateJson,
  templateJson,
} from './synth-helpers.js';

interface Statement {
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

let service: SynthesizedService;
let root: TemplateJson;

beforeAll(() => {
  service = buildService({ validateTemplates: false });
  root = templateJson(service.stack);
});

const customerKeys = {
  'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':kms:', { Ref: 'AWS::Region' }, ':*:key/*']],
};
const viaS3 = {
  StringEquals: {
    'kms:ViaService': { 'Fn::Join': ['', ['s3.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]] },
  },
};

function logicalIdOf(name: TaskFunctionName): string {
  const fn = service.stack.taskFunctions.functions[name];
  if (!fn) throw new Error(`No task function ${name}`);
  return service.stack.getLogicalId(fn.node.defaultChild as never);
}

/** The properties of a root-stack resource; fails the test when it is missing. */
function propertiesOf(resource: CfnResourceJson | undefined): Record<string, unknown> {
  expect(resource?.Properties).toBeDefined();
  return resource?.Properties ?? {};
}

function statementsOf(resource: CfnResourceJson | undefined): Statement[] {
  return (propertiesOf(resource).PolicyDocument as { Statement: Statement[] }).Statement;
}

/** The statements of a task function's role, without its log group and tracing grants. */
function roleStatements(name: TaskFunctionName): Statement[] {
  const fn = propertiesOf(root.Resources[logicalIdOf(name)]);
  const roleId = (fn.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const policies = resourcesOfType(root, 'AWS::IAM::Policy').filter(([, policy]) =>
    (propertiesOf(policy).Roles as { Ref: string }[]).some((role) => role.Ref === roleId),
  );
  expect(policies).toHaveLength(1);
  const statements = statementsOf(policies[0]?.[1]);
  return statements.filter((statement) => {
    const actions = [statement.Action].flat();
    return !actions.every((action) => action.startsWith('logs:') || action.startsWith('xray:'));
  });
}

describe('workspace encryption setup in the stack', () => {
  it('makes the state machine with every task placeholder resolved to its task function', () => {
    const stateMachine = service.stack.workflows.stateMachines.get(ENCRYPTION_SETUP_WORKFLOW);
    expect(stateMachine).toBeDefined();
    const resource = root.Resources[service.stack.getLogicalId(stateMachine?.node.defaultChild as never)];
    const definition = readFileSync(
      path.join(PROJECT_ROOT, 'state-machines', `${ENCRYPTION_SETUP_WORKFLOW}.asl.json`),
      'utf8',
    );
    const names = taskFunctionNames(definition) as TaskFunctionName[];
    expect(names.length).toBeGreaterThan(0);
    expect(resource?.Properties?.DefinitionSubstitutions).toEqual(
      Object.fromEntries(
        names.map((name) => [`TaskFunction_${name}`, { 'Fn::GetAtt': [logicalIdOf(name), 'Arn'] }]),
      ),
    );
  });

  it('gives each task function only the access its registry entry names', () => {
    expect(roleStatements('EncryptionDescribeKey')).toEqual([
      { Action: 'kms:DescribeKey', Effect: 'Allow', Resource: customerKeys },
    ]);
    expect(roleStatements('EncryptionCheckKeyAccess')).toEqual([
      {
        Action: ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'],
        Condition: { StringEquals: { 'kms:EncryptionContext:purpose': SETUP_CHECK_PURPOSE } },
        Effect: 'Allow',
        Resource: customerKeys,
      },
    ]);
    const apply = roleStatements('EncryptionApplyToMediaPrefix');
    expect(apply).toContainEqual({
      Action: ['s3:DeleteObject', 's3:GetObject', 's3:PutObject'],
      Effect: 'Allow',
      Resource: {
        'Fn::Join': [
          '',
          [{ 'Fn::GetAtt': [expect.any(String), 'Arn'] }, '/workspaces/*/.encryption-check/*'],
        ],
      },
    });
    expect(apply).toContainEqual({
      Action: 'kms:GenerateDataKey',
      Condition: viaS3,
      Effect: 'Allow',
      Resource: customerKeys,
    });
    expect(apply).toContainEqual(
      expect.objectContaining({ Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'] }),
    );
    expect(apply).toHaveLength(3);
    expect(roleStatements('EncryptionRecordFailure')).toEqual([
      expect.objectContaining({ Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'] }),
    ]);
  });

  it('lets media functions use customer keys only through S3, and describe them', () => {
    const [, media] =
      resourcesOfType(root, 'AWS::IAM::ManagedPolicy').find(([logicalId]) =>
        logicalId.startsWith('AccessPoliciesmedia'),
      ) ?? [];
    const statements = statementsOf(media);
    expect(statements).toContainEqual({ Action: 'kms:DescribeKey', Effect: 'Allow', Resource: customerKeys });
    expect(statements).toContainEqual({
      Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
      Condition: viaS3,
      Effect: 'Allow',
      Resource: customerKeys,
    });
    // Nothing else may use customer keys without a condition.
    for (const statement of statements.filter((candidate) =>
      JSON.stringify(candidate.Resource).includes(':*:key/*'),
    )) {
      if ([statement.Action].flat().join() !== 'kms:DescribeKey') expect(statement.Condition).toEqual(viaS3);
    }
  });

  it('keeps the admin workflow out of the API roles and outputs its ARN for the admin CLI', () => {
    const stateMachine = service.stack.workflows.stateMachines.get(ENCRYPTION_SETUP_WORKFLOW);
    const logicalId = service.stack.getLogicalId(stateMachine?.node.defaultChild as never);
    for (const [, policy] of resourcesOfType(root, 'AWS::IAM::ManagedPolicy')) {
      expect(JSON.stringify(policy.Properties?.PolicyDocument)).not.toContain(logicalId);
    }
    const output = (root as TemplateJson & { Outputs: Record<string, { Value: unknown }> }).Outputs[
      ADMIN_WORKFLOWS[ENCRYPTION_SETUP_WORKFLOW]?.output ?? ''
    ];
    expect(output?.Value).toEqual({ Ref: logicalId });
  });

  it('gives task functions the service environment but no state machine ARN (they run inside one)', () => {
    for (const name of Object.keys(TASK_FUNCTIONS) as TaskFunctionName[]) {
      const { Variables: variables } = propertiesOf(root.Resources[logicalIdOf(name)]).Environment as {
        Variables: Record<string, unknown>;
      };
      expect(Object.keys(variables), name).toEqual(
        expect.arrayContaining(['TABLE_NAME', 'BUCKET_NAME', 'STACK_KEY_ID']),
      );
      expect(JSON.stringify(variables), name).not.toContain('StateMachine');
    }
  });

  it('leaves no unacknowledged cdk-nag finding on the task functions or the workflow', () => {
    const report = new AwsSolutionsChecks().validateScope(service.stack);
    const ours = report.violations.filter((violation) =>
      violation.violatingResources.some(
        (resource) =>
          resource.constructPath?.includes('/TaskFunctions/') ||
          resource.constructPath?.includes('/Workflows/') ||
          resource.constructPath?.includes('/AccessPolicies/'),
      ),
    );
    expect(ours.map((violation) => violation.ruleName)).toEqual([]);
    expect(synthesisMessages(service, 'error')).toEqual([]);
  });
});
