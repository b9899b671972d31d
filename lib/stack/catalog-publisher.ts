/**
 * The catalog publisher: a CloudFormation custom resource that puts the stock catalog's media (avatar
 * portraits and look previews drawn with sharp, voice previews spoken by the deployment's speech
 * engine) under `catalog/` of the media bucket when the stack is created, and again whenever the
 * catalog changes. Its handler (`lambdas/catalog/publish-catalog-handler.ts`) runs in the media image
 * and only generates and uploads what is missing or outdated; Delete does nothing (the bucket's own
 * removal policy decides what happens to its objects).
 *
 * The resource's `CatalogVersion` property is the catalog's version for the deployment's engine
 * (`catalogMediaVersion`: a hash over every object's version, which follows the looks, the drawing
 * code, the voices and their sentences), so CloudFormation sends an Update exactly when the catalog
 * changed, and not on every deployment.
 */
import { CustomResource, Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { CATALOG_PREFIX } from '../../lambdas/catalog/catalog-keys.js';
import { catalogMediaVersion } from '../../lambdas/catalog/catalog-media.js';
import {
  ENVELOPE_KEY_ACTIONS,
  SPEECH_SYNTHESIS_WILDCARD_REASON,
  speechSynthesisStatements,
} from './access-statements.js';
import type { MediaImage } from './media-image.js';
import {
  createServiceFunction,
  TRACING_WILDCARD_ACKNOWLEDGEMENT,
  withWildcardReasons,
} from './service-function.js';
import type { SpeechEngine } from './service-options.js';

/** The handler's module under `lambdas/`, served by the media image. */
export const CATALOG_PUBLISHER_MODULE = 'catalog/publish-catalog-handler';

/** CloudFormation type of the resource. */
export const CATALOG_MEDIA_RESOURCE_TYPE = 'Custom::CatalogMedia';

export interface CatalogPublisherProps {
  /** Holds {@link CATALOG_PUBLISHER_MODULE}. */
  mediaImage: MediaImage;
  /** The service environment (`BUCKET_NAME`, `STACK_KEY_ID`, `SPEECH_ENGINE`, `TABLE_NAME`, ...). */
  environment: Readonly<Record<string, string>>;
  mediaBucket: Bucket;
  /** Catalog media are encrypted with the stack key, like every write that belongs to no workspace. */
  stackKey: IKey;
  speechEngine: SpeechEngine;
  logRetention: RetentionDays;
  /** Of the log groups. */
  removalPolicy: RemovalPolicy;
}

export class CatalogPublisher extends Construct {
  /** The `onEvent` handler (the media image with the publisher's CMD). */
  readonly function: LambdaFunction;
  readonly resource: CustomResource;

  constructor(scope: Construct, id: string, props: CatalogPublisherProps) {
    super(scope, id);
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'Catalog publisher: writes the stock catalog media under catalog/ of the media bucket',
    });
    // HeadObject (is the object there at its current version?) is authorized as s3:GetObject.
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject'],
        resources: [props.mediaBucket.arnForObjects(`${CATALOG_PREFIX}*`)],
      }),
    );
    // Without it, HeadObject on a missing object answers 403 instead of 404, and the first publish
    // could not tell "missing" from "forbidden".
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:ListBucket'], resources: [props.mediaBucket.bucketArn] }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: [...ENVELOPE_KEY_ACTIONS], resources: [props.stackKey.keyArn] }),
    );
    const polly = props.speechEngine === 'polly';
    if (polly) for (const statement of speechSynthesisStatements()) role.addToPrincipalPolicy(statement);

    this.function = createServiceFunction(this, 'Function', {
      code: props.mediaImage.codeFor(CATALOG_PUBLISHER_MODULE),
      role,
      environment: props.environment,
      description: 'Catalog publisher: stock avatar portraits and voice previews under catalog/',
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      // Drawing 30 full-HD portraits and speaking every preview; under the provider's 15 minutes.
      timeout: Duration.minutes(10),
      memorySize: 2048,
    });
    const bucketLogicalId = Stack.of(this).getLogicalId(props.mediaBucket.node.defaultChild as CfnBucket);
    Validations.of(role).acknowledge(
      polly
        ? withWildcardReasons(TRACING_WILDCARD_ACKNOWLEDGEMENT, SPEECH_SYNTHESIS_WILDCARD_REASON)
        : TRACING_WILDCARD_ACKNOWLEDGEMENT,
      {
        id: `AwsSolutions-IAM5[Resource::<${bucketLogicalId}.Arn>/${CATALOG_PREFIX}*]`,
        reason:
          'The catalog is a fixed set of objects under catalog/ (one per stock look and voice, listed in lambdas/catalog/); the wildcard stays inside that folder, which belongs to no workspace.',
      },
    );

    // The provider framework's own function: its role gets only its log group and the invocation of
    // the handler (no AWSLambdaBasicExecutionRole), and its logs keep the deployment's retention.
    const frameworkRole = new Role(this, 'ProviderRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'Catalog publisher: custom resource provider framework',
    });
    const frameworkLogs = new LogGroup(this, 'ProviderLogs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    frameworkLogs.grantWrite(frameworkRole);
    const provider = new Provider(this, 'Provider', {
      onEventHandler: this.function,
      frameworkOnEventRole: frameworkRole,
      logGroup: frameworkLogs,
    });
    const handlerLogicalId = Stack.of(this).getLogicalId(this.function.node.defaultChild as never);
    Validations.of(frameworkRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${handlerLogicalId}.Arn>:*]`,
      reason:
        "Added by the CDK provider framework (grantInvoke): it may invoke the publisher's versions and aliases as well; the publisher has none, so this is the one function it invokes.",
    });

    this.resource = new CustomResource(this, 'CatalogMedia', {
      serviceToken: provider.serviceToken,
      resourceType: CATALOG_MEDIA_RESOURCE_TYPE,
      properties: { CatalogVersion: catalogMediaVersion(props.speechEngine) },
    });
  }
}
