/**
 * The CDK stack and the local stack build the queues and bus rules `lib/messaging-topology.ts`
 * describes: the same queues, each with its dead-letter queue and redrive count, and the same rules
 * to the same queues. In the CDK stack, each consumed queue's visibility outlasts its consumer, and the
 * bus's archive deploys in every region.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { localBusRules, localQueueDefinitions } from '../../lib/local/local-stack.js';
import { BUS_RULES, deadLetterQueueName, QUEUES, type QueueName } from '../../lib/messaging-topology.js';
import {
  type CfnResourceJson,
  resourcesOfType,
  type SynthesizedService,
  sharedService,
  type TemplateJson,
  templateJson,
} from './synth-helpers.js';

let service: SynthesizedService;
let root: TemplateJson;

beforeAll(() => {
  service = sharedService({ validateTemplates: false });
  root = templateJson(service.stack);
});

const queueNames = Object.keys(QUEUES) as QueueName[];
const propertiesOf = (resource: CfnResourceJson | undefined) => resource?.Properties ?? {};
const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const localArn = (name: string) => `arn:local:sqs:${name}`;

/** Logical ids of a described queue and of its dead-letter queue in the CDK stack. */
function cdkQueueIds(name: QueueName) {
  const { queue, deadLetterQueue } = service.stack.messaging[name];
  const id = (construct: { node: { defaultChild?: unknown } }) =>
    service.stack.getLogicalId(construct.node.defaultChild as never);
  return { queue: id(queue), deadLetterQueue: id(deadLetterQueue) };
}

describe('the CDK stack', () => {
  it('has exactly the described queues and their dead-letter queues', () => {
    expect(resourcesOfType(root, 'AWS::SQS::Queue')).toHaveLength(2 * queueNames.length);
  });

  it.each(queueNames)('redrives the %s queue to its dead-letter queue as described', (name) => {
    const description = QUEUES[name];
    const ids = cdkQueueIds(name);
    expect(propertiesOf(root.Resources[ids.queue])).toMatchObject({
      VisibilityTimeout: description.visibilityTimeoutSeconds,
      RedrivePolicy: {
        deadLetterTargetArn: arnOf(ids.deadLetterQueue),
        maxReceiveCount: description.maxReceiveCount,
      },
    });
    expect(propertiesOf(root.Resources[ids.deadLetterQueue])).toMatchObject({
      MessageRetentionPeriod: description.deadLetterRetentionDays * 24 * 60 * 60,
    });
  });

  it('gives every queue a function consumes at least six times that function’s timeout of visibility', () => {
    const mappings = resourcesOfType(root, 'AWS::Lambda::EventSourceMapping');
    // The realtime queue is polled by the streaming service's Fargate workers, not a function.
    expect(mappings).toHaveLength(queueNames.filter((name) => name !== 'realtime').length);
    for (const [mappingId, mapping] of mappings) {
      const { EventSourceArn, FunctionName } = propertiesOf(mapping) as {
        EventSourceArn: { 'Fn::GetAtt': [string, string] };
        FunctionName: { Ref: string };
      };
      const queue = propertiesOf(root.Resources[EventSourceArn['Fn::GetAtt'][0]]);
      const consumer = propertiesOf(root.Resources[FunctionName.Ref]);
      expect(consumer.Timeout, mappingId).toEqual(expect.any(Number));
      expect(queue.VisibilityTimeout, mappingId).toBeGreaterThanOrEqual(6 * (consumer.Timeout as number));
    }
  });

  it('archives the bus’s events without an empty KmsKeyIdentifier (aws/aws-cdk#37847)', () => {
    const archives = resourcesOfType(root, 'AWS::Events::Archive');
    expect(archives).toHaveLength(1);
    expect(propertiesOf(archives[0]?.[1])).not.toHaveProperty('KmsKeyIdentifier');
  });

  it.each(Object.values(BUS_RULES))(
    'has the $name rule to its queue, with the queue’s DLQ behind it',
    (rule) => {
      const ids = cdkQueueIds(rule.targetQueue);
      const rules = resourcesOfType(root, 'AWS::Events::Rule').filter(([, candidate]) =>
        String(propertiesOf(candidate).Name).endsWith(`-${rule.name}`),
      );
      expect(rules).toHaveLength(1);
      expect(propertiesOf(rules[0]?.[1])).toMatchObject({
        Description: rule.description,
        EventPattern: rule.eventPattern,
        Targets: [{ Arn: arnOf(ids.queue), DeadLetterConfig: { Arn: arnOf(ids.deadLetterQueue) } }],
      });
    },
  );
});

describe('the local stack', () => {
  it('creates each described queue after its dead-letter queue, with the described redrive count', () => {
    expect(localQueueDefinitions(localArn)).toEqual(
      queueNames.flatMap((name) => {
        const { localName, maxReceiveCount } = QUEUES[name];
        return [
          { name: deadLetterQueueName(localName) },
          {
            name: localName,
            attributes: {
              RedrivePolicy: JSON.stringify({
                deadLetterTargetArn: localArn(deadLetterQueueName(localName)),
                maxReceiveCount: String(maxReceiveCount),
              }),
            },
          },
        ];
      }),
    );
  });

  it('puts the described rules on its bus, to the described queues with their DLQs behind them', () => {
    const local = localBusRules('bus', localArn);
    expect(local.map(({ rule }) => rule)).toEqual(
      Object.values(BUS_RULES).map((rule) => ({
        Name: rule.name,
        EventBusName: 'bus',
        EventPattern: JSON.stringify(rule.eventPattern),
        Description: rule.description,
      })),
    );
    expect(
      local.map(({ targets }) =>
        targets.Targets.map(({ Arn, DeadLetterConfig }) => [Arn, DeadLetterConfig.Arn]),
      ),
    ).toEqual(
      Object.values(BUS_RULES).map((rule) => {
        const queue = QUEUES[rule.targetQueue].localName;
        return [[localArn(queue), localArn(deadLetterQueueName(queue))]];
      }),
    );
  });
});
