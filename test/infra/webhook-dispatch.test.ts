/**
 * Webhook dispatch in the synthesized stack: the rule from the bus to the webhook queue, who may send
 * to the queues and use their key, the dispatcher's event source and exactly what its role allows.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_SOURCE } from '../../lambdas/events/domain-events.js';
import { WEBHOOK_DISPATCHER_TIMEOUT } from '../../lib/stack/webhook-dispatcher.js';
import {
  type CfnResourceJson,
  resourcesOfType,
  type SynthesizedService,
  sharedService,
  type TemplateJson,
  templateJson,
} from './synth-helpers.js';

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Principal?: unknown;
  Condition?: unknown;
}

let service: SynthesizedService;
let root: TemplateJson;
const ids = {
  queue: '',
  deadLetterQueue: '',
  rule: '',
  dispatcher: '',
  table: '',
  key: '',
  bus: '',
};

beforeAll(() => {
  service = sharedService({ validateTemplates: false });
  root = templateJson(service.stack);
  const id = (construct: { node: { defaultChild?: unknown } }) =>
    service.stack.getLogicalId(construct.node.defaultChild as never);
  ids.queue = id(service.stack.messaging.webhook.queue);
  ids.deadLetterQueue = id(service.stack.messaging.webhook.deadLetterQueue);
  ids.rule = id(service.stack.webhookDispatcher.rule);
  ids.dispatcher = id(service.stack.webhookDispatcher.function);
  ids.table = id(service.stack.data.table);
  ids.key = id(service.stack.data.stackKey);
  ids.bus = id(service.stack.messaging.eventBus);
});

const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const propertiesOf = (resource: CfnResourceJson | undefined) => resource?.Properties ?? {};
const asList = <T>(value: T | T[]) => (Array.isArray(value) ? value : [value]);

/** One `action resource condition` line per thing the statements allow. */
function grantsOf(statements: readonly Statement[]): string[] {
  return statements
    .flatMap((statement) =>
      asList(statement.Action).flatMap((action) =>
        asList(statement.Resource).map(
          (resource) =>
            `${action} ${JSON.stringify(resource)} ${JSON.stringify(statement.Condition ?? null)}`,
        ),
      ),
    )
    .sort();
}

describe('the rule', () => {
  it('sends every event of the service on its bus to the webhook queue, with the queue’s DLQ behind it', () => {
    expect(propertiesOf(root.Resources[ids.rule])).toMatchObject({
      EventBusName: { Ref: ids.bus },
      EventPattern: { source: [EVENT_SOURCE] },
      State: 'ENABLED',
      Targets: [{ Arn: arnOf(ids.queue), DeadLetterConfig: { Arn: arnOf(ids.deadLetterQueue) } }],
    });
  });

  it('lets EventBridge send to the queues only for this rule', () => {
    for (const queueId of [ids.queue, ids.deadLetterQueue]) {
      const [, policy] =
        resourcesOfType(root, 'AWS::SQS::QueuePolicy').find(([, candidate]) =>
          JSON.stringify(propertiesOf(candidate).Queues).includes(queueId),
        ) ?? [];
      const statements = (propertiesOf(policy).PolicyDocument as { Statement: Statement[] }).Statement;
      const allows = statements.filter((statement) => statement.Effect === 'Allow');
      expect(allows, queueId).toEqual([
        expect.objectContaining({
          Principal: { Service: 'events.amazonaws.com' },
          Action: 'sqs:SendMessage',
          Condition: { ArnEquals: { 'aws:SourceArn': arnOf(ids.rule) } },
        }),
      ]);
    }
  });

  it('lets EventBridge use the stack key for this rule only', () => {
    const statements = (propertiesOf(root.Resources[ids.key]).KeyPolicy as { Statement: Statement[] })
      .Statement;
    const forEvents = statements.filter((statement) =>
      JSON.stringify(statement.Principal ?? {}).includes('events.amazonaws.com'),
    );
    expect(forEvents).toHaveLength(1);
    expect(forEvents[0]?.Action).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
    const condition = JSON.stringify(forEvents[0]?.Condition);
    expect(condition).toContain('aws:SourceArn');
    expect(condition).toContain(':rule/');
    expect(condition).toContain('-webhook-dispatch');
  });
});

describe('the dispatcher', () => {
  it('consumes the webhook queue in batches with partial batch failures', () => {
    const mappings = resourcesOfType(root, 'AWS::Lambda::EventSourceMapping').filter(([, mapping]) =>
      JSON.stringify(propertiesOf(mapping).EventSourceArn).includes(ids.queue),
    );
    expect(mappings).toHaveLength(1);
    expect(propertiesOf(mappings[0]?.[1])).toMatchObject({
      FunctionName: { Ref: ids.dispatcher },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('finishes a batch well within the queue’s visibility timeout (six times its own timeout)', () => {
    const fn = propertiesOf(root.Resources[ids.dispatcher]);
    expect(fn.Timeout).toBe(WEBHOOK_DISPATCHER_TIMEOUT.toSeconds());
    expect(propertiesOf(root.Resources[ids.queue]).VisibilityTimeout).toBeGreaterThanOrEqual(
      6 * WEBHOOK_DISPATCHER_TIMEOUT.toSeconds(),
    );
    const variables = (fn.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables.WEBHOOK_QUEUE_URL).toEqual({ Ref: ids.queue });
    expect(variables.WEBHOOK_DEAD_LETTER_QUEUE_URL).toEqual({ Ref: ids.deadLetterQueue });
    expect(variables.ALLOW_LOOPBACK_URLS).toBeUndefined();
  });

  it('may touch exactly its records, webhook secrets and its queues', () => {
    const roleId = (propertiesOf(root.Resources[ids.dispatcher]).Role as { 'Fn::GetAtt': [string, string] })[
      'Fn::GetAtt'
    ][0];
    expect(propertiesOf(root.Resources[roleId]).ManagedPolicyArns).toBeUndefined();
    const statements = resourcesOfType(root, 'AWS::IAM::Policy')
      .filter(([, policy]) =>
        (propertiesOf(policy).Roles as { Ref: string }[]).some((role) => role.Ref === roleId),
      )
      .flatMap(([, policy]) => (propertiesOf(policy).PolicyDocument as { Statement: Statement[] }).Statement);
    const grants = grantsOf(statements).filter((grant) => !/^(logs|xray):/.test(grant));
    const line = (action: string, resource: unknown, condition: unknown = null) =>
      `${action} ${JSON.stringify(resource)} ${JSON.stringify(condition)}`;
    const viaSqs = {
      StringEquals: {
        'kms:ViaService': {
          'Fn::Join': ['', ['sqs.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]],
        },
      },
    };
    expect(grants).toEqual(
      [
        // BatchWriteItem: recordDeliveries and completeFanOut (lambdas/webhooks/deliveries.ts).
        ...[
          'dynamodb:BatchWriteItem',
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:Query',
          'dynamodb:UpdateItem',
        ].map((action) => line(action, arnOf(ids.table))),
        line('kms:Decrypt', arnOf(ids.key), {
          Null: { 'kms:EncryptionContext:webhook_endpoint_id': 'false' },
        }),
        line('kms:Decrypt', arnOf(ids.key), viaSqs),
        line('kms:GenerateDataKey', arnOf(ids.key), viaSqs),
        line('sqs:SendMessage', arnOf(ids.queue)),
        line('sqs:SendMessage', arnOf(ids.deadLetterQueue)),
        ...[
          'sqs:ChangeMessageVisibility',
          'sqs:DeleteMessage',
          'sqs:GetQueueAttributes',
          'sqs:ReceiveMessage',
        ].map((action) => line(action, arnOf(ids.queue))),
      ].sort(),
    );
  });
});

describe('alarms and API', () => {
  it('alarms when deliveries are exhausted (messages in the webhook dead-letter queue)', () => {
    const alarms = resourcesOfType(root, 'AWS::CloudWatch::Alarm').filter(([, alarm]) =>
      JSON.stringify(propertiesOf(alarm).Dimensions).includes(ids.deadLetterQueue),
    );
    expect(alarms).toHaveLength(1);
    expect(propertiesOf(alarms[0]?.[1])).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it('tells the webhook routes where the queue is (manual redelivery)', () => {
    const webhooks = service.stack.api.areaStacks.get('webhooks');
    if (!webhooks) throw new Error('no webhooks area stack');
    const functions = resourcesOfType(templateJson(webhooks), 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThan(0);
    for (const [id, fn] of functions) {
      const { Variables } = propertiesOf(fn).Environment as { Variables: Record<string, unknown> };
      expect(Variables.WEBHOOK_QUEUE_URL, id).toBeDefined();
    }
  });
});
