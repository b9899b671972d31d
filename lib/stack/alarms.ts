/**
 * Alarms an operator must hear about, all publishing to one encrypted SNS topic to subscribe to:
 * API 5xx, messages in any dead-letter queue (for webhooks: exhausted deliveries), failed workflow
 * executions.
 */
import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, type AlarmProps, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';

/** 5xx responses in five minutes that page: a single one can be a client racing a deploy. */
export const API_5XX_THRESHOLD = 5;

export interface AlarmsProps {
  api: RestApi;
  /** Dead-letter queues by a readable name (`Batch`, `Webhook`). */
  deadLetterQueues: Readonly<Record<string, Queue>>;
  stateMachines: ReadonlyMap<string, StateMachine>;
  /** Key the alarm topic is encrypted with. */
  encryptionKey: Key;
}

export class Alarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', {
      displayName: 'Video Creation Service alarms',
      masterKey: props.encryptionKey,
      enforceSSL: true,
    });
    // CloudWatch publishes to the encrypted topic with the key on its own behalf.
    props.encryptionKey.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
        resources: ['*'],
      }),
    );
    const notify = new SnsAction(this.topic);
    const add = (alarmId: string, alarm: Omit<AlarmProps, 'treatMissingData'>) => {
      const created = new Alarm(this, alarmId, {
        ...alarm,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(notify);
      this.alarms.push(created);
    };

    add('Api5xx', {
      alarmDescription: `The API answered ${API_5XX_THRESHOLD} or more 5xx in five minutes`,
      metric: props.api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: API_5XX_THRESHOLD,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
    for (const [name, queue] of Object.entries(props.deadLetterQueues)) {
      add(`${name}DeadLetters`, {
        alarmDescription: `Messages are waiting in the ${name} dead-letter queue`,
        metric: queue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(1),
          statistic: 'Maximum',
        }),
        threshold: 0,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      });
    }
    for (const [name, stateMachine] of props.stateMachines) {
      add(`${name}FailedExecutions`, {
        alarmDescription: `Executions of the ${name} workflow failed`,
        metric: stateMachine.metricFailed({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: 0,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      });
    }
  }
}
