import {
  CreateEventBusCommand,
  DeleteRuleCommand,
  DisableRuleCommand,
  EventBridgeClient,
  InvalidEventPatternException,
  ListRulesCommand,
  ListTargetsByRuleCommand,
  PutEventsCommand,
  type PutEventsRequestEntry,
  PutRuleCommand,
  PutTargetsCommand,
  RemoveTargetsCommand,
  ResourceNotFoundException,
  TestEventPatternCommand,
} from '@aws-sdk/client-eventbridge';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type EventBridgeEmulator,
  type EventDeliveryFailure,
  startEventBridgeEmulator,
  type TargetFunction,
  type TargetPayload,
} from '../../../lib/local/emulators/index.js';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const queueArn = (name: string) => `arn:aws:sqs:us-east-1:000000000000:${name}`;

describe('EventBridge emulator', () => {
  let emulator: EventBridgeEmulator;
  let events: EventBridgeClient;
  const delivered = new Map<string, TargetPayload[]>();
  const behaviour = new Map<string, TargetFunction>();
  const reportedFailures: EventDeliveryFailure[] = [];
  let ruleCounter = 0;

  beforeAll(async () => {
    emulator = await startEventBridgeEmulator({
      retry: { retryAttempts: 2, initialDelayMs: 1, maxDelayMs: 5 },
      onDeliveryFailure: (failure) => reportedFailures.push(failure),
      resolveTarget: (targetArn) => async (payload) => {
        await behaviour.get(targetArn)?.(payload);
        delivered.set(targetArn, [...(delivered.get(targetArn) ?? []), payload]);
      },
    });
    events = new EventBridgeClient({
      endpoint: emulator.endpoint,
      region: 'us-east-1',
      credentials,
      maxAttempts: 1,
    });
    await events.send(new CreateEventBusCommand({ Name: 'domain-events' }));
  });
  afterEach(() => {
    delivered.clear();
    behaviour.clear();
  });
  afterAll(async () => {
    events.destroy();
    await emulator.stop();
  });

  /** A rule on the domain bus with one target per ARN; returns the rule name. */
  async function ruleWithTargets(
    pattern: object,
    targets: { Id: string; Arn: string; InputPath?: string; DeadLetterConfig?: { Arn: string } }[],
  ) {
    ruleCounter += 1;
    const name = `rule-${ruleCounter}`;
    await events.send(
      new PutRuleCommand({
        Name: name,
        EventBusName: 'domain-events',
        EventPattern: JSON.stringify(pattern),
      }),
    );
    const result = await events.send(
      new PutTargetsCommand({ Rule: name, EventBusName: 'domain-events', Targets: targets }),
    );
    expect(result.FailedEntryCount).toBe(0);
    return name;
  }

  function entry(detailType: string, detail: object): PutEventsRequestEntry {
    return {
      EventBusName: 'domain-events',
      Source: 'video-service',
      DetailType: detailType,
      Detail: JSON.stringify(detail),
    };
  }

  it('delivers matching events to targets, with the EventBridge envelope', async () => {
    await ruleWithTargets(
      { source: ['video-service'], 'detail-type': [{ prefix: 'video.' }], detail: { status: ['completed'] } },
      [{ Id: 'webhooks', Arn: queueArn('webhooks-1') }],
    );

    const put = await events.send(
      new PutEventsCommand({
        Entries: [
          entry('video.completed', { status: 'completed', video_id: 'v_1' }),
          entry('video.completed', { status: 'failed', video_id: 'v_2' }),
          entry('clip.completed', { status: 'completed', video_id: 'v_3' }),
        ],
      }),
    );
    expect(put.FailedEntryCount).toBe(0);
    expect(put.Entries?.every((result) => typeof result.EventId === 'string')).toBe(true);
    await emulator.whenIdle();

    expect(delivered.get(queueArn('webhooks-1'))).toEqual([
      {
        version: '0',
        id: put.Entries?.[0]?.EventId,
        'detail-type': 'video.completed',
        source: 'video-service',
        account: '000000000000',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        region: 'us-east-1',
        resources: [],
        detail: { status: 'completed', video_id: 'v_1' },
      },
    ]);
  });

  it('hands a target only its InputPath', async () => {
    await ruleWithTargets({ 'detail-type': ['batch.closed'] }, [
      { Id: 'detail-only', Arn: queueArn('batches'), InputPath: '$.detail' },
    ]);
    await events.send(new PutEventsCommand({ Entries: [entry('batch.closed', { batch_id: 'b_1' })] }));
    await emulator.whenIdle();
    expect(delivered.get(queueArn('batches'))).toEqual([{ batch_id: 'b_1' }]);
  });

  it('delivers nothing for a disabled rule or a non-matching event', async () => {
    const rule = await ruleWithTargets({ 'detail-type': ['voice.cloned'] }, [
      { Id: 't', Arn: queueArn('voices') },
    ]);
    await events.send(new DisableRuleCommand({ Name: rule, EventBusName: 'domain-events' }));
    await events.send(
      new PutEventsCommand({ Entries: [entry('voice.cloned', {}), entry('voice.deleted', {})] }),
    );
    await emulator.whenIdle();
    expect(delivered.get(queueArn('voices'))).toBeUndefined();
  });

  it('retries a failing target with backoff until it succeeds', async () => {
    await ruleWithTargets({ 'detail-type': ['render.done'] }, [{ Id: 'flaky', Arn: queueArn('flaky') }]);
    let attempts = 0;
    behaviour.set(queueArn('flaky'), async () => {
      attempts += 1;
      if (attempts < 3) throw new Error(`attempt ${attempts} failed`);
    });
    await events.send(new PutEventsCommand({ Entries: [entry('render.done', { id: 'r_1' })] }));
    await emulator.whenIdle();
    expect(attempts).toBe(3);
    expect(delivered.get(queueArn('flaky'))).toHaveLength(1);
  });

  it('records a delivery that fails after all retries and sends it to the dead-letter queue', async () => {
    await ruleWithTargets({ 'detail-type': ['render.broken'] }, [
      { Id: 'broken', Arn: queueArn('broken'), DeadLetterConfig: { Arn: queueArn('events-dlq') } },
    ]);
    behaviour.set(queueArn('broken'), async () => {
      throw new Error('endpoint down');
    });
    const put = await events.send(new PutEventsCommand({ Entries: [entry('render.broken', { id: 'r_2' })] }));
    await emulator.whenIdle();

    const failure = emulator
      .deliveryFailures()
      .find((candidate) => candidate.eventId === put.Entries?.[0]?.EventId);
    expect(failure).toMatchObject({
      targetId: 'broken',
      attempts: 3,
      error: 'endpoint down',
      sentToDeadLetterQueue: true,
    });
    expect(reportedFailures).toContainEqual(failure);
    expect(delivered.get(queueArn('events-dlq'))).toEqual([
      expect.objectContaining({ id: put.Entries?.[0]?.EventId }),
    ]);
  });

  it('reports invalid entries per entry', async () => {
    const put = await events.send(
      new PutEventsCommand({
        Entries: [
          { Source: 'video-service', DetailType: 'x' },
          { Source: 'video-service', DetailType: 'x', Detail: '{not json' },
          { Source: 'aws.s3', DetailType: 'x', Detail: '{}' },
          { Source: 'video-service', DetailType: 'x', Detail: '{}', EventBusName: 'missing-bus' },
          { Source: 'video-service', DetailType: 'x', Detail: '{}' },
        ],
      }),
    );
    expect(put.FailedEntryCount).toBe(4);
    expect(put.Entries?.map((result) => result.ErrorCode ?? 'ok')).toEqual([
      'InvalidArgument',
      'MalformedDetail',
      'NotAuthorizedForSourceException',
      'ResourceNotFoundException',
      'ok',
    ]);
  });

  it('manages rules and targets with the EventBridge errors', async () => {
    await expect(
      events.send(
        new PutRuleCommand({ Name: 'bad', EventBusName: 'domain-events', EventPattern: '{"source":"x"}' }),
      ),
    ).rejects.toBeInstanceOf(InvalidEventPatternException);
    await expect(
      events.send(
        new PutTargetsCommand({
          Rule: 'missing',
          EventBusName: 'domain-events',
          Targets: [{ Id: 'a', Arn: 'x' }],
        }),
      ),
    ).rejects.toBeInstanceOf(ResourceNotFoundException);

    const rule = await ruleWithTargets({ source: ['admin'] }, [{ Id: 'audit', Arn: queueArn('audit') }]);
    const listed = await events.send(
      new ListRulesCommand({ EventBusName: 'domain-events', NamePrefix: rule }),
    );
    expect(listed.Rules).toEqual([
      expect.objectContaining({
        Name: rule,
        Arn: `arn:aws:events:us-east-1:000000000000:rule/domain-events/${rule}`,
        State: 'ENABLED',
      }),
    ]);
    await expect(
      events.send(new DeleteRuleCommand({ Name: rule, EventBusName: 'domain-events' })),
    ).rejects.toThrow(/has targets/);
    const targets = await events.send(
      new ListTargetsByRuleCommand({ Rule: rule, EventBusName: 'domain-events' }),
    );
    expect(targets.Targets?.map((target) => target.Id)).toEqual(['audit']);
    const removed = await events.send(
      new RemoveTargetsCommand({ Rule: rule, EventBusName: 'domain-events', Ids: ['audit'] }),
    );
    expect(removed.FailedEntryCount).toBe(0);
    await events.send(new DeleteRuleCommand({ Name: rule, EventBusName: 'domain-events' }));
    const after = await events.send(
      new ListRulesCommand({ EventBusName: 'domain-events', NamePrefix: rule }),
    );
    expect(after.Rules).toEqual([]);
  });

  it('answers TestEventPattern with the same matcher', async () => {
    const event = JSON.stringify({
      id: '1',
      account: '000000000000',
      source: 'video-service',
      time: '2026-11-21T10:00:00Z',
      region: 'us-east-1',
      resources: [],
      'detail-type': 'video.completed',
      detail: { credits: 3 },
    });
    const matching = await events.send(
      new TestEventPatternCommand({
        Event: event,
        EventPattern: '{"detail":{"credits":[{"numeric":[">",2]}]}}',
      }),
    );
    expect(matching.Result).toBe(true);
    const notMatching = await events.send(
      new TestEventPatternCommand({
        Event: event,
        EventPattern: '{"detail":{"credits":[{"numeric":["<",2]}]}}',
      }),
    );
    expect(notMatching.Result).toBe(false);
  });
});
