import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import aslValidator from 'asl-validator';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { type CfnFunction, Code, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { FUNCTION_RUNTIME } from '../../lib/stack/service-function.js';
import {
  DEFINITION_FILE_SUFFIX,
  substitutionKey,
  taskFunctionNames,
  VENDED_LOGS_PREFIX,
  WorkflowStateMachines,
} from '../../lib/stack/workflow-state-machines.js';
import { PROJECT_ROOT } from './synth-helpers.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures/state-machines');
const FIXTURE_TASKS = ['PrepareJob', 'FinishJob'];

function definitionFiles(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .filter((file) => file.endsWith(DEFINITION_FILE_SUFFIX))
    .map((file) => path.join(directory, file));
}

/** asl-validator annotates the definition it checks, so it gets a copy. */
function validateAsl(definition: unknown) {
  return aslValidator(structuredClone(definition), { checkPaths: true, checkArn: true });
}

function synthesizeWorkflows(directory: string, taskNames: readonly string[]) {
  // CDK's template validation costs seconds per app; the service stack test and `cdk synth` run it.
  const app = new App({ builtinCloudFormationValidation: false });
  const stack = new Stack(app, 'Workflows');
  const taskFunctions = Object.fromEntries(
    taskNames.map((name) => [
      name,
      new LambdaFunction(stack, name, {
        runtime: FUNCTION_RUNTIME,
        handler: 'index.handler',
        code: Code.fromInline('export const handler = async (input) => input;'),
      }),
    ]),
  );
  const workflows = new WorkflowStateMachines(stack, 'Workflows', {
    definitionsDirectory: directory,
    taskFunctions,
  });
  return { stack, workflows, template: Template.fromStack(stack) };
}

describe('WorkflowStateMachines', () => {
  it('creates one Standard state machine per definition, logging everything and traced', () => {
    const { workflows, template } = synthesizeWorkflows(FIXTURES, FIXTURE_TASKS);
    expect([...workflows.stateMachines.keys()]).toEqual(['render-fixture']);
    template.resourceCountIs('AWS::StepFunctions::StateMachine', 1);
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: { Level: 'ALL', IncludeExecutionData: false, Destinations: Match.anyValue() },
    });
  });

  it('logs executions to log groups under /aws/vendedlogs/states/ (one Logs resource policy entry for all)', () => {
    const { stack, template } = synthesizeWorkflows(FIXTURES, FIXTURE_TASKS);
    const [logGroupId, logGroup] = Object.entries(template.findResources('AWS::Logs::LogGroup'))[0] ?? [];
    expect(logGroupId).toBeDefined();
    const name = stack.resolve(logGroup?.Properties.LogGroupName) as { 'Fn::Join': [string, unknown[]] };
    expect(name['Fn::Join'][1][0]).toBe(`${VENDED_LOGS_PREFIX}Workflows-RenderFixture-`);
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      LoggingConfiguration: {
        Destinations: [{ CloudWatchLogsLogGroup: { LogGroupArn: { 'Fn::GetAtt': [logGroupId, 'Arn'] } } }],
      },
    });
  });

  it('resolves every task placeholder to its function through definition substitutions', () => {
    const { stack, template } = synthesizeWorkflows(FIXTURES, FIXTURE_TASKS);
    const [stateMachine] = Object.values(template.findResources('AWS::StepFunctions::StateMachine'));
    const properties = stateMachine?.Properties as {
      DefinitionString: string;
      DefinitionSubstitutions: Record<string, { 'Fn::GetAtt': [string, string] }>;
    };
    const functionLogicalId = (name: string) =>
      stack.getLogicalId(stack.node.findChild(name).node.defaultChild as CfnFunction);
    expect(properties.DefinitionSubstitutions).toEqual(
      Object.fromEntries(
        FIXTURE_TASKS.map((name) => [
          substitutionKey(name),
          { 'Fn::GetAtt': [functionLogicalId(name), 'Arn'] },
        ]),
      ),
    );

    // What CloudFormation does at deploy time: replace each ${key} with the function's ARN.
    let deployed = properties.DefinitionString;
    for (const [key, value] of Object.entries(properties.DefinitionSubstitutions)) {
      const arn = `arn:aws:lambda:eu-west-1:123456789012:function:${value['Fn::GetAtt'][0]}`;
      deployed = deployed.replaceAll(`\${${key}}`, arn);
    }
    expect(deployed).not.toContain('${');
    const definition = JSON.parse(deployed) as {
      States: Record<string, { Type: string; Resource?: string }>;
    };
    const taskResources = Object.values(definition.States)
      .filter((state) => state.Type === 'Task')
      .map((state) => state.Resource);
    expect(taskResources).toHaveLength(3);
    for (const resource of taskResources) expect(resource).toMatch(/^arn:aws:lambda:[^:]+:\d{12}:function:/);
    expect(validateAsl(definition).isValid).toBe(true);

    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'lambda:InvokeFunction',
            Resource: FIXTURE_TASKS.map((name) => ({ 'Fn::GetAtt': [functionLogicalId(name), 'Arn'] })),
          }),
        ]),
      },
    });
  });

  it("resolves the task placeholders inside a Map state's item processor too (the HyperFrames render's chunks)", () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'workflows-map-'));
    try {
      const file = 'hyperframes-render.asl.json';
      copyFileSync(path.join(PROJECT_ROOT, 'state-machines', file), path.join(directory, file));
      const names = taskFunctionNames(readFileSync(path.join(directory, file), 'utf8'));
      expect(names).toContain('HyperframesRenderRenderChunk');
      const { stack, template } = synthesizeWorkflows(directory, names);
      const [stateMachine] = Object.values(template.findResources('AWS::StepFunctions::StateMachine'));
      const properties = stateMachine?.Properties as {
        DefinitionString: string;
        DefinitionSubstitutions: Record<string, { 'Fn::GetAtt': [string, string] }>;
      };
      let deployed = properties.DefinitionString;
      for (const [key, value] of Object.entries(properties.DefinitionSubstitutions)) {
        deployed = deployed.replaceAll(
          `\${${key}}`,
          `arn:aws:lambda:eu-west-1:123456789012:function:${value['Fn::GetAtt'][0]}`,
        );
      }
      expect(deployed).not.toContain('${');
      const definition = JSON.parse(deployed) as {
        States: Record<
          string,
          { Type: string; ItemProcessor?: { States: Record<string, { Resource?: string }> } }
        >;
      };
      const chunk = definition.States.RenderChunks?.ItemProcessor?.States.RenderChunk;
      const renderChunk = stack.node.findChild('HyperframesRenderRenderChunk').node
        .defaultChild as CfnFunction;
      expect(chunk?.Resource).toBe(
        `arn:aws:lambda:eu-west-1:123456789012:function:${stack.getLogicalId(renderChunk)}`,
      );
      expect(validateAsl(definition).isValid).toBe(true);
      template.hasResourceProperties('AWS::IAM::Policy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Action: 'lambda:InvokeFunction',
              Resource: Match.arrayWith([{ 'Fn::GetAtt': [stack.getLogicalId(renderChunk), 'Arn'] }]),
            }),
          ]),
        },
      });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('leaves no unacknowledged cdk-nag AwsSolutions finding', () => {
    const { stack } = synthesizeWorkflows(FIXTURES, FIXTURE_TASKS);
    const report = new AwsSolutionsChecks().validateScope(stack);
    const ours = report.violations.filter((violation) =>
      violation.violatingResources.some((resource) =>
        resource.constructPath?.startsWith('Workflows/Workflows/'),
      ),
    );
    expect(ours.map((violation) => violation.ruleName)).toEqual([]);
  });

  it('refuses a definition that names a task function it was not given', () => {
    expect(() => synthesizeWorkflows(FIXTURES, ['PrepareJob'])).toThrow(/FinishJob/);
  });

  it('makes no state machine when the directory is missing or empty', () => {
    const { workflows } = synthesizeWorkflows(path.join(FIXTURES, 'does-not-exist'), []);
    expect(workflows.stateMachines.size).toBe(0);
  });

  it('reads task names in order of first use', () => {
    const fixture = readFileSync(path.join(FIXTURES, 'render-fixture.asl.json'), 'utf8');
    expect(taskFunctionNames(fixture)).toEqual(FIXTURE_TASKS);
  });
});

describe('ASL definitions', () => {
  const files = [...definitionFiles(path.join(PROJECT_ROOT, 'state-machines')), ...definitionFiles(FIXTURES)];

  it.each(files.map((file) => [path.relative(PROJECT_ROOT, file), file]))(
    '%s is valid ASL',
    (_name, file) => {
      const result = validateAsl(JSON.parse(readFileSync(file, 'utf8')));
      expect(result.errorsText()).toBe('');
      expect(result.isValid).toBe(true);
    },
  );

  it('rejects an invalid definition (the validator is really checking)', () => {
    const invalid = {
      StartAt: 'Missing',
      States: {
        Work: { Type: 'Task', Resource: 'not-an-arn', Next: 'Nowhere' },
      },
    };
    const result = validateAsl(invalid);
    expect(result.isValid).toBe(false);
    expect(result.errors.length).toBeGreaterThan(0);
  });
});
