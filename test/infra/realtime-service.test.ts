/**
 * The streaming service of realtime avatar streams in the synthesized stack (lib/stack/realtime-service.ts):
 * a Fargate service running the worker from the media image, the realtime queue it polls, what its
 * task role may do, how it scales, its network, and the realtime routes' switch to it; cdk-nag clean.
 */
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { REALTIME_WORKER_MODULE } from '../../lib/stack/realtime-service.js';
import {
  buildService,
  resourcesOfType,
  type SynthesizedService,
  type TemplateJson,
  templateJson,
} from './synth-helpers.js';

interface Statement {
  Action: string | string[];
  Resource: unknown;
}

let service: SynthesizedService;
let root: TemplateJson;
/** The workers' network, a nested stack. */
let network: TemplateJson;

beforeAll(() => {
  service = buildService({ validateTemplates: false });
  root = templateJson(service.stack);
  if (!service.stack.realtimeService) throw new Error('no realtime service');
  network = templateJson(service.stack.realtimeService.network);
}, 120_000);

const logicalIdOf = (construct: { node: { defaultChild?: unknown } }) =>
  service.stack.getLogicalId(construct.node.defaultChild as never);
const only = <T>(items: readonly T[]): T => {
  expect(items).toHaveLength(1);
  return items[0] as T;
};
const isRealtimeArea = (stack: { node: { id: string } }) => stack.node.id.toLowerCase().includes('realtime');
const actionsOf = (statement: Statement) => [statement.Action].flat();

function taskRoleStatements(): Statement[] {
  const realtime = service.stack.realtimeService;
  if (!realtime) throw new Error('no realtime service');
  const roleId = logicalIdOf(realtime.taskRole);
  return resourcesOfType(root, 'AWS::IAM::Policy')
    .filter(([, policy]) => JSON.stringify(policy.Properties?.Roles).includes(roleId))
    .flatMap(
      ([, policy]) =>
        (policy.Properties as { PolicyDocument: { Statement: Statement[] } }).PolicyDocument.Statement,
    );
}

describe('the realtime streaming service', () => {
  it('runs the worker from the media image on Fargate: 2 vCPU, 4 GiB, ARM64, with the service settings', () => {
    const [, task] = only(resourcesOfType(root, 'AWS::ECS::TaskDefinition'));
    expect(task.Properties).toMatchObject({
      Cpu: '2048',
      Memory: '4096',
      RequiresCompatibilities: ['FARGATE'],
      RuntimePlatform: { CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' },
    });
    const container = only(task.Properties?.ContainerDefinitions as Record<string, unknown>[]);
    expect(container.EntryPoint).toEqual(['/var/lang/bin/node']);
    expect(container.Command).toEqual([`/var/task/${REALTIME_WORKER_MODULE}.mjs`]);
    expect(container.StopTimeout).toBe(60);
    const environment = Object.fromEntries(
      (container.Environment as { Name: string; Value: unknown }[]).map(({ Name, Value }) => [Name, Value]),
    );
    expect(environment.REALTIME_WORKER).toBe('service');
    expect(environment.REALTIME_STREAMS_PER_WORKER).toBe('3');
    expect(environment.REALTIME_QUEUE_URL).toEqual({
      Ref: logicalIdOf(service.stack.messaging.realtime.queue),
    });
    expect(environment.TABLE_NAME).toBeDefined();
    expect(container.LogConfiguration).toMatchObject({ LogDriver: 'awslogs' });
    const [, logs] = only(
      resourcesOfType(root, 'AWS::Logs::LogGroup').filter(([id]) => id.startsWith('RealtimeServiceLogs')),
    );
    expect(logs.Properties?.RetentionInDays).toBe(30);
  });

  it('keeps one task running, scales to four on waiting streams, with Container Insights on', () => {
    const [, cluster] = only(resourcesOfType(root, 'AWS::ECS::Cluster'));
    expect(cluster.Properties?.ClusterSettings).toEqual([{ Name: 'containerInsights', Value: 'enabled' }]);
    const [, ecsService] = only(resourcesOfType(root, 'AWS::ECS::Service'));
    expect(ecsService.Properties).toMatchObject({ DesiredCount: 1, LaunchType: 'FARGATE' });
    const [, target] = only(resourcesOfType(root, 'AWS::ApplicationAutoScaling::ScalableTarget'));
    expect(target.Properties).toMatchObject({ MinCapacity: 1, MaxCapacity: 4 });
    const policies = resourcesOfType(root, 'AWS::ApplicationAutoScaling::ScalingPolicy').map(
      ([, policy]) =>
        (
          policy.Properties as {
            StepScalingPolicyConfiguration: { StepAdjustments: { ScalingAdjustment: number }[] };
          }
        ).StepScalingPolicyConfiguration.StepAdjustments,
    );
    const changes = policies
      .flat()
      .map((step) => step.ScalingAdjustment)
      .filter((change) => change !== 0);
    expect(changes.sort()).toEqual([-1, 1]);
    // The alarms watch the realtime queue's waiting messages.
    const alarms = resourcesOfType(root, 'AWS::CloudWatch::Alarm').filter(
      ([, alarm]) => alarm.Properties?.MetricName === 'ApproximateNumberOfMessagesVisible',
    );
    const queueName = { 'Fn::GetAtt': [logicalIdOf(service.stack.messaging.realtime.queue), 'QueueName'] };
    const scaling = alarms.filter(([, alarm]) =>
      JSON.stringify(alarm.Properties?.Dimensions).includes(JSON.stringify(queueName)),
    );
    expect(scaling.map(([, alarm]) => alarm.Properties?.EvaluationPeriods).sort()).toEqual([1, 15]);
  });

  it('runs in public subnets with a public IP, no NAT gateway and no ingress rule', () => {
    expect(resourcesOfType(network, 'AWS::EC2::NatGateway')).toEqual([]);
    const [, ecsService] = only(resourcesOfType(root, 'AWS::ECS::Service'));
    const awsvpc = (
      ecsService.Properties as { NetworkConfiguration: { AwsvpcConfiguration: Record<string, unknown> } }
    ).NetworkConfiguration.AwsvpcConfiguration;
    expect(awsvpc.AssignPublicIp).toBe('ENABLED');
    const [, group] = only(resourcesOfType(network, 'AWS::EC2::SecurityGroup'));
    expect(group.Properties?.SecurityGroupIngress).toBeUndefined();
    expect(resourcesOfType(network, 'AWS::EC2::SecurityGroupIngress')).toEqual([]);
    expect(resourcesOfType(network, 'AWS::EC2::FlowLog')).toHaveLength(1);
  });

  it("gives the task role the worker's grants: the realtime queue to consume, no other queue", () => {
    const statements = taskRoleStatements();
    const queueArn = { 'Fn::GetAtt': [logicalIdOf(service.stack.messaging.realtime.queue), 'Arn'] };
    const sqs = statements.filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('sqs:')),
    );
    expect(sqs).toHaveLength(1);
    expect([...actionsOf(sqs[0] as Statement)].sort()).toEqual(['sqs:DeleteMessage', 'sqs:ReceiveMessage']);
    expect(sqs[0]?.Resource).toEqual(queueArn);
    const all = statements.flatMap(actionsOf);
    expect(all).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:UpdateItem', 's3:PutObject']));
    expect(all).not.toContain('dynamodb:Scan');
    expect(all).not.toContain('sqs:SendMessage');
    // Media only under workspaces/ (and stock portraits under catalog/).
    const s3Resources = statements
      .filter((statement) => actionsOf(statement).includes('s3:PutObject'))
      .map((statement) => JSON.stringify(statement.Resource));
    expect(s3Resources.every((resource) => resource.includes('/workspaces/*'))).toBe(true);
  });

  it('encrypts the realtime queue with the stack key, with a dead-letter queue, TLS only', () => {
    const queueId = logicalIdOf(service.stack.messaging.realtime.queue);
    const queue = root.Resources[queueId];
    expect(queue?.Properties?.KmsMasterKeyId).toEqual({
      'Fn::GetAtt': [logicalIdOf(service.stack.data.stackKey as never), 'Arn'],
    });
    expect(JSON.stringify(queue?.Properties?.RedrivePolicy)).toContain(
      logicalIdOf(service.stack.messaging.realtime.deadLetterQueue),
    );
    const policies = resourcesOfType(root, 'AWS::SQS::QueuePolicy').filter(([, policy]) =>
      JSON.stringify(policy.Properties?.Queues).includes(queueId),
    );
    expect(JSON.stringify(policies)).toContain('aws:SecureTransport');
  });

  it('switches the realtime routes to the service and lets them send to its queue', () => {
    const realtime = service.areaStacks.find((stack) => isRealtimeArea(stack));
    if (!realtime) throw new Error('no realtime area stack');
    const functions = resourcesOfType(templateJson(realtime), 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThan(0);
    for (const [, fn] of functions) {
      const variables = (fn.Properties as { Environment: { Variables: Record<string, unknown> } }).Environment
        .Variables;
      expect(variables.REALTIME_WORKER).toBe('service');
      expect(variables.REALTIME_QUEUE_URL).toBeDefined();
    }
    // No other area is told about the streaming service.
    const others = service.areaStacks.filter((stack) => !isRealtimeArea(stack));
    expect(others.some((stack) => JSON.stringify(templateJson(stack)).includes('REALTIME_WORKER'))).toBe(
      false,
    );
  });

  it('leaves no unacknowledged cdk-nag finding on the service or its queue', () => {
    const report = new AwsSolutionsChecks().validateScope(service.stack);
    const ours = report.violations.filter((violation) =>
      violation.violatingResources.some(
        (resource) =>
          resource.constructPath?.includes('/RealtimeService/') ||
          resource.constructPath?.includes('/Messaging/Realtime'),
      ),
    );
    expect(
      ours.map(
        (violation) =>
          `${violation.ruleName}: ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`,
      ),
    ).toEqual([]);
  });
});

describe('a stack without the streaming service (realtimeService: false)', () => {
  it('deploys no ECS resource and leaves the realtime routes answering 503 engine_unavailable', () => {
    const without = buildService({ context: { realtimeService: false }, validateTemplates: false });
    const template = templateJson(without.stack);
    expect(without.stack.realtimeService).toBeUndefined();
    expect(
      Object.values(template.Resources).filter((resource) => resource.Type.startsWith('AWS::ECS::')),
    ).toEqual([]);
    // REALTIME_WORKER stays unset: the runtime's default, `unavailable`.
    for (const stack of without.areaStacks) {
      expect(JSON.stringify(templateJson(stack))).not.toContain('REALTIME_WORKER');
    }
  });
});
