/**
 * The streaming service of realtime avatar streams (docs/architecture.md, "Realtime avatars"): an ECS
 * Fargate service whose tasks run `lambdas/realtime/realtime-worker.ts` from the media container image
 * (ffmpeg, eSpeak NG and sharp are in it). A Lambda function lives 15 minutes and a stream up to an
 * hour, so the streams run here; the API's functions hand them over on the realtime queue.
 *
 * - Each task: 2 vCPU and 4 GiB (ARM64, as the image), `realtimeStreamsPerTask` streams at once.
 * - `realtimeTasks` tasks always run; up to `realtimeMaxTasks` while streams wait in the queue. A task
 *   running streams protects itself from scale-in (the ECS agent's task protection endpoint), so only
 *   idle tasks are removed.
 * - Networking (a nested stack, `RealtimeNetwork`): the workers only call AWS APIs (DynamoDB, S3, SQS, KMS, Polly, CloudWatch Logs) and
 *   serve nothing, so they run in public subnets of a VPC of their own with a public IP and a security
 *   group without any ingress rule. A NAT gateway (about 33 USD a month per AZ, plus data) or interface
 *   endpoints for each of those services (about 7 USD a month each per AZ) would buy nothing here: no
 *   inbound path exists either way, and the traffic is TLS to AWS endpoints.
 * - The task role has the worker's grants (`FUNCTION_GRANTS.realtimeWorker`, the same statements the
 *   local stack enforces on the worker) and nothing else; its logs go to a log group with the stack's
 *   retention; Container Insights is on.
 */
import { type CfnElement, Duration, NestedStack, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { AdjustmentType } from 'aws-cdk-lib/aws-applicationautoscaling';
import { FlowLogDestination, FlowLogTrafficType, SecurityGroup, SubnetType, Vpc } from 'aws-cdk-lib/aws-ec2';
import {
  Cluster,
  ContainerImage,
  ContainerInsights,
  CpuArchitecture,
  FargateService,
  FargateTaskDefinition,
  LogDrivers,
  OperatingSystemFamily,
} from 'aws-cdk-lib/aws-ecs';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { FUNCTION_GRANTS } from '../access/function-access.js';
import { QUEUES } from '../messaging-topology.js';
import { type GrantTargets, grantToRole } from './grant-statements.js';
import { MEDIA_IMAGE_TASK_ROOT, type MediaImage } from './media-image.js';

/** The worker's entry under `lambdas/`, bundled into the media image. */
export const REALTIME_WORKER_MODULE = 'realtime/realtime-worker';

/** Lambda's Node.js base image keeps its runtime here (the image's entry point is Lambda's own). */
const IMAGE_NODE = '/var/lang/bin/node';

/**
 * How long ECS waits after SIGTERM before it kills the worker: enough for it to end its streams (each
 * closes its playlist and records why it ended). Fargate allows at most 120 s.
 */
const STOP_TIMEOUT = Duration.seconds(60);

export interface RealtimeServiceProps {
  mediaImage: MediaImage;
  /** What every function gets (lambdas/core/config.ts); the worker's own settings are added here. */
  environment: Readonly<Record<string, string>>;
  grantTargets: GrantTargets;
  /** Tasks always running. */
  tasks: number;
  /** Most tasks, while streams wait in the queue. */
  maxTasks: number;
  streamsPerTask: number;
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
}

/**
 * The workers' network, a nested stack of its own: its VPC, subnets, routes and flow log (about 16
 * resources) stay out of the root stack's resource budget.
 */
class RealtimeNetwork extends NestedStack {
  readonly vpc: Vpc;
  readonly securityGroup: SecurityGroup;

  constructor(
    scope: Construct,
    id: string,
    props: Pick<RealtimeServiceProps, 'logRetention' | 'removalPolicy'>,
  ) {
    super(scope, id, { description: "Realtime avatar streams: the streaming service workers' network" });
    this.vpc = new Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'Workers', subnetType: SubnetType.PUBLIC, cidrMask: 24 }],
    });
    const flowLogs = new LogGroup(this, 'FlowLogs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    // Only refused traffic: with no ingress rule, that is every attempt to reach a worker.
    this.vpc.addFlowLog('RejectedTraffic', {
      destination: FlowLogDestination.toCloudWatchLogs(flowLogs),
      trafficType: FlowLogTrafficType.REJECT,
    });
    this.securityGroup = new SecurityGroup(this, 'Workers', {
      vpc: this.vpc,
      description: 'Realtime stream workers: no ingress; outbound HTTPS to AWS APIs',
      allowAllOutbound: true,
    });
  }
}

export class RealtimeService extends Construct {
  /** The workers' VPC and security group (a nested stack). */
  readonly network: RealtimeNetwork;
  readonly cluster: Cluster;
  readonly service: FargateService;
  readonly taskRole: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: RealtimeServiceProps) {
    super(scope, id);
    const queue = props.grantTargets.realtimeQueue.queue;

    this.network = new RealtimeNetwork(this, 'Network', props);
    const { vpc, securityGroup } = this.network;

    this.cluster = new Cluster(this, 'Cluster', { vpc, containerInsightsV2: ContainerInsights.ENABLED });

    this.taskRole = new Role(this, 'TaskRole', {
      assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com'),
      description: 'Realtime stream workers: the grants of FUNCTION_GRANTS.realtimeWorker',
    });
    grantToRole(this.taskRole, FUNCTION_GRANTS.realtimeWorker, props.grantTargets);

    const taskDefinition = new FargateTaskDefinition(this, 'Task', {
      cpu: 2048,
      memoryLimitMiB: 4096,
      runtimePlatform: {
        cpuArchitecture: CpuArchitecture.ARM64,
        operatingSystemFamily: OperatingSystemFamily.LINUX,
      },
      taskRole: this.taskRole,
    });
    // The agent's task protection endpoint updates the task's protection with the task role.
    this.taskRole.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['ecs:UpdateTaskProtection', 'ecs:GetTaskProtection'],
        resources: [
          Stack.of(this).formatArn({
            service: 'ecs',
            resource: 'task',
            resourceName: `${this.cluster.clusterName}/*`,
          }),
        ],
      }),
    );
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    taskDefinition.addContainer('Worker', {
      image: ContainerImage.fromDockerImageAsset(
        props.mediaImage.imageAsset(this, 'Image', REALTIME_WORKER_MODULE),
      ),
      entryPoint: [IMAGE_NODE],
      command: [`${MEDIA_IMAGE_TASK_ROOT}/${REALTIME_WORKER_MODULE}.mjs`],
      workingDirectory: MEDIA_IMAGE_TASK_ROOT,
      environment: {
        ...props.environment,
        AWS_REGION: Stack.of(this).region,
        REALTIME_WORKER: 'service',
        [QUEUES.realtime.urlVariable]: queue.queueUrl,
        REALTIME_STREAMS_PER_WORKER: String(props.streamsPerTask),
      },
      logging: LogDrivers.awsLogs({ logGroup: this.logGroup, streamPrefix: 'worker' }),
      stopTimeout: STOP_TIMEOUT,
      readonlyRootFilesystem: false,
    });

    this.service = new FargateService(this, 'Service', {
      cluster: this.cluster,
      taskDefinition,
      desiredCount: props.tasks,
      assignPublicIp: true,
      vpcSubnets: { subnetType: SubnetType.PUBLIC },
      securityGroups: [securityGroup],
      // A deploy starts the new tasks before it stops the old ones (whose streams end, saying why).
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      circuitBreaker: { rollback: true },
    });

    if (props.maxTasks > props.tasks) {
      const scaling = this.service.autoScaleTaskCount({
        minCapacity: props.tasks,
        maxCapacity: props.maxTasks,
      });
      const waiting = queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1) });
      // A minute with a stream waiting adds a task (a stream no task takes within
      // REALTIME_CLAIM_TIMEOUT_MS fails, so scaling out must not wait longer)...
      scaling.scaleOnMetric('ScaleOutOnWaitingStreams', {
        metric: waiting,
        adjustmentType: AdjustmentType.CHANGE_IN_CAPACITY,
        scalingSteps: [
          { upper: 0, change: 0 },
          { lower: 1, change: +1 },
        ],
        evaluationPeriods: 1,
        cooldown: Duration.minutes(2),
      });
      // ...and a quarter hour with none waiting removes one: an idle one, since tasks running streams
      // are protected from scale-in.
      scaling.scaleOnMetric('ScaleInWithoutWaitingStreams', {
        metric: waiting,
        adjustmentType: AdjustmentType.CHANGE_IN_CAPACITY,
        scalingSteps: [
          { upper: 0, change: -1 },
          { lower: 1, change: 0 },
        ],
        evaluationPeriods: 15,
        cooldown: Duration.minutes(5),
      });
    }

    Validations.of(taskDefinition).acknowledge({
      id: 'AwsSolutions-ECS2',
      reason:
        "The worker's environment is configuration (table, bucket, queue and key names, limits), the same as every function's; no secret is passed in it.",
    });
    Validations.of(taskDefinition.obtainExecutionRole()).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'The execution role CDK creates pulls the image from the bootstrap ECR repository: ecr:GetAuthorizationToken has no resource-level permission.',
    });
    const clusterId = Stack.of(this).getLogicalId(this.cluster.node.defaultChild as CfnElement);
    Validations.of(this.taskRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ecs:<AWS::Region>:<AWS::AccountId>:task/<${clusterId}>/*]`,
      reason:
        "A task protects itself from scale-in through the ECS agent, which calls UpdateTaskProtection with the task role; the tasks of the service's cluster are not known before they start.",
    });
  }
}
