/**
 * The catalog publisher: a CloudFormation custom resource that puts the stock catalog's media (avatar
 * portraits and look previews drawn with sharp, voice previews spoken by the deployment's speech
 * engine, the sounds, and the Tabler icons' SVGs and PNGs, which the icon search only presigns) under
 * `catalog/` of the media bucket when the stack is created, and again whenever the
 * catalog changes. Its handler (`lambdas/catalog/publish-catalog-handler.ts`) runs in the media image
 * and only generates and uploads what is missing or outdated; Delete does nothing (the bucket's own
 * removal policy decides what happens to its objects).
 *
 * The resource's `CatalogVersion` property is the catalog's version for the deployment's engine
 * (`catalogMediaVersion`: a hash over every object's version, which follows the looks, the drawing
 * code, the voices and their sentences), so CloudFormation sends an Update exactly when the catalog
 * changed, and not on every deployment. `PublicationNonce` (context `catalogPublicationNonce`) sends
 * one whenever the deployer gives it a new value: publishing again after a failure needs no code
 * change. A failure succeeds the resource with its `Status` saying what failed (the stack's
 * `CatalogPublication` output), unless `failDeployOnError`; the handler says why.
 */
import { CustomResource, Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { CATALOG_RESOURCE_PROPERTIES } from '../../lambdas/catalog/catalog-keys.js';
import { catalogMediaVersion } from '../../lambdas/catalog/catalog-media.js';
import { FUNCTION_GRANTS } from '../access/function-access.js';
import { type GrantTargets, grantToRole } from './grant-statements.js';
import type { MediaImage } from './media-image.js';
import { createServiceFunction } from './service-function.js';

/** The handler's module under `lambdas/`, served by the media image. */
export const CATALOG_PUBLISHER_MODULE = 'catalog/publish-catalog-handler';

/** CloudFormation type of the resource. */
export const CATALOG_MEDIA_RESOURCE_TYPE = 'Custom::CatalogMedia';

export interface CatalogPublisherProps {
  /** Holds {@link CATALOG_PUBLISHER_MODULE}. */
  mediaImage: MediaImage;
  /** The service environment (`BUCKET_NAME`, `STACK_KEY_ID`, `SPEECH_ENGINE`, `TABLE_NAME`, ...). */
  environment: Readonly<Record<string, string>>;
  /**
   * The media bucket, the stack key (catalog media are encrypted with it, like every write that
   * belongs to no workspace) and the speech engine.
   */
  grantTargets: GrantTargets;
  logRetention: RetentionDays;
  /** Of the log groups. */
  removalPolicy: RemovalPolicy;
  /** Any new value publishes again (`ServiceOptions.catalogPublicationNonce`). @default '' */
  publicationNonce?: string;
  /** Fail the deploy when the catalog cannot be published. @default false */
  failDeployOnError?: boolean;
}

export class CatalogPublisher extends Construct {
  /** The `onEvent` handler (the media image with the publisher's CMD). */
  readonly function: LambdaFunction;
  readonly resource: CustomResource;
  /** `published: ...` or `FAILED (...): <reason>`, as the handler reported it. */
  readonly status: string;

  constructor(scope: Construct, id: string, props: CatalogPublisherProps) {
    super(scope, id);
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'Catalog publisher: writes the stock catalog media under catalog/ of the media bucket',
    });
    grantToRole(role, FUNCTION_GRANTS.catalogPublisher, props.grantTargets);

    this.function = createServiceFunction(this, 'Function', {
      code: props.mediaImage.codeFor(CATALOG_PUBLISHER_MODULE),
      runs: { bundle: CATALOG_PUBLISHER_MODULE },
      role,
      environment: props.environment,
      description:
        'Catalog publisher: stock avatar portraits, voice previews, sounds and icons under catalog/',
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      // Drawing 30 full-HD portraits and 6,287 icons, speaking every preview, and 12,574 icon uploads
      // on a first deploy; under the provider's 15 minutes. The handler answers a minute before this
      // timeout, naming what is left, rather than be stopped without an answer (which fails the deploy).
      timeout: Duration.minutes(10),
      // Lambda's CPU share follows memory: 3 GB draws the icons about half again as fast as 2 GB, and
      // the function only runs when the catalog changes.
      memorySize: 3008,
    });

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
      properties: {
        CatalogVersion: catalogMediaVersion(props.grantTargets.speechEngine),
        // Only when set: adding an empty one would re-publish every existing deployment once.
        ...(props.publicationNonce
          ? { [CATALOG_RESOURCE_PROPERTIES.publicationNonce]: props.publicationNonce }
          : {}),
        [CATALOG_RESOURCE_PROPERTIES.failDeployOnError]: String(props.failDeployOnError ?? false),
      },
    });

    this.status = this.resource.getAttString('Status');
  }
}
