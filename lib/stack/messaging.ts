/**
 * Asynchronous plumbing: the queues of `messaging-topology.ts` (each with a dead-letter queue) and
 * the custom EventBridge bus that receives domain events, with an archive so events can be replayed.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { type Archive, type CfnArchive, EventBus } from 'aws-cdk-lib/aws-events';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { QUEUES, type QueueDescription } from '../messaging-topology.js';

export interface MessagingProps {
  /** Customer-managed key the queues are encrypted with. */
  encryptionKey: IKey;
  /** Name of the custom event bus (unique per account and region). */
  eventBusName: string;
  /** What happens to queues and the event archive when the stack is deleted. @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE */
  removalPolicy?: RemovalPolicy;
}

export interface QueueWithDeadLetters {
  queue: Queue;
  deadLetterQueue: Queue;
}

export class Messaging extends Construct {
  /** One message per batch item. */
  readonly batch: QueueWithDeadLetters;
  /** Webhook deliveries; exhausted deliveries end in its dead-letter queue. */
  readonly webhook: QueueWithDeadLetters;
  /** Realtime streams handed to the streaming service (lib/stack/realtime-service.ts). */
  readonly realtime: QueueWithDeadLetters;
  readonly eventBus: EventBus;
  /** Every domain event of the bus, kept 30 days for replay. */
  readonly archive: Archive;

  constructor(scope: Construct, id: string, props: MessagingProps) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE;
    const queueWithDeadLetters = (description: QueueDescription): QueueWithDeadLetters => {
      const deadLetterQueue = new Queue(this, `${description.constructId}DeadLetterQueue`, {
        encryption: QueueEncryption.KMS,
        encryptionMasterKey: props.encryptionKey,
        enforceSSL: true,
        retentionPeriod: Duration.days(description.deadLetterRetentionDays),
        removalPolicy,
      });
      const queue = new Queue(this, `${description.constructId}Queue`, {
        encryption: QueueEncryption.KMS,
        encryptionMasterKey: props.encryptionKey,
        // Reuse data keys for 5 minutes: far fewer KMS calls at the same protection.
        dataKeyReuse: Duration.minutes(5),
        enforceSSL: true,
        visibilityTimeout: Duration.seconds(description.visibilityTimeoutSeconds),
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: description.maxReceiveCount },
        removalPolicy,
      });
      return { queue, deadLetterQueue };
    };
    this.batch = queueWithDeadLetters(QUEUES.batch);
    this.webhook = queueWithDeadLetters(QUEUES.webhook);
    this.realtime = queueWithDeadLetters(QUEUES.realtime);

    this.eventBus = new EventBus(this, 'DomainEventBus', {
      eventBusName: props.eventBusName,
      description: 'Domain events of the Video Creation Service',
    });
    this.archive = this.eventBus.archive('DomainEventArchive', {
      description: 'Every domain event, for replay after an incident',
      eventPattern: { account: [this.eventBus.stack.account] },
      retention: Duration.days(30),
    });
    // Without a key, the Archive construct writes `KmsKeyIdentifier: ""` where it should leave the
    // property out (the AWS-owned key), and some regions refuse the empty string on deploy
    // (aws/aws-cdk#37847, open). Delete it until the construct omits it itself.
    (this.archive.node.defaultChild as CfnArchive).addPropertyDeletionOverride('KmsKeyIdentifier');
  }
}
