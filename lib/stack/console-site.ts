/**
 * The web console, deployed: its static files in a private site bucket, served by a CloudFront
 * distribution that also forwards every other path to the REST API, so the console and the API share
 * one origin (no CORS for API calls; the page's CSP can say `connect-src 'self'`). The bundle is
 * built at synth with the project's esbuild (lib/console/build-console.ts), offline, and copied to
 * the bucket by a BucketDeployment.
 *
 * Why CloudFront rather than API Gateway serving the files: static files are then cached at the
 * edge, never cost a Lambda invocation or count against the API's rate limits, and the console gets
 * its security headers from a response headers policy. It is a nested stack of its own so that the
 * deployment's helper function (CDK's) stays apart from the service's functions.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  Duration,
  Fn,
  NestedStack,
  type NestedStackProps,
  RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type IBucket,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import type { Construct } from 'constructs';
import { buildConsoleSync, CONSOLE_BASE_PATH, writeConsoleBuild } from '../console/build-console.js';
import { consoleSettings } from '../console/serve-console.js';

export interface ConsoleSiteProps extends NestedStackProps {
  /** The REST API's id and stage: the distribution's origin for every path but the console's. */
  restApiId: string;
  stageName: string;
  /** Where presigned media URLs point (an origin, wildcards allowed): the page loads and uploads media there. */
  mediaOrigin: string;
  /** Server access logs of the site bucket and the distribution's logs bucket go here. */
  accessLogBucket: IBucket;
  /** OAuth sign-in: the API's JWT issuer and audience, and the console's public client id there. @default no OAuth */
  oauth?: { issuer: string; audience: string; clientId: string };
  /** How often the page refreshes jobs in flight. @default 2000 */
  pollIntervalMs?: number;
  /** @default RemovalPolicy.RETAIN */
  removalPolicy?: RemovalPolicy;
}

/** Rewrites `/console` and `/console/` to the page itself: S3 has no directory index for OAC origins. */
const INDEX_REWRITE = `function handler(event) {
  var request = event.request;
  if (request.uri === '${CONSOLE_BASE_PATH}' || request.uri === '${CONSOLE_BASE_PATH}/') request.uri = '${CONSOLE_BASE_PATH}/index.html';
  return request;
}`;

export class ConsoleSite extends NestedStack {
  readonly distribution: Distribution;
  readonly siteBucket: Bucket;
  /** `https://<distribution domain>`: the console is at `${url}/console/`, the API at `${url}/v3/...`. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ConsoleSiteProps) {
    super(scope, id, props);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const destroy = removalPolicy === RemovalPolicy.DESTROY;

    this.siteBucket = new Bucket(this, 'SiteBucket', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: props.accessLogBucket,
      serverAccessLogsPrefix: 'console-site/',
      removalPolicy,
      autoDeleteObjects: destroy,
    });
    // CloudFront's standard logs are written with ACLs, which the service's log bucket does not allow.
    const distributionLogs = new Bucket(this, 'DistributionLogs', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      serverAccessLogsBucket: props.accessLogBucket,
      serverAccessLogsPrefix: 'console-distribution-logs/',
      lifecycleRules: [{ id: 'expire-distribution-logs', expiration: Duration.days(365) }],
      removalPolicy,
      autoDeleteObjects: destroy,
    });

    const consoleBuild = buildConsoleSync({
      mediaOrigins: [props.mediaOrigin],
      oauthOrigins: props.oauth ? [new URL(props.oauth.issuer).origin] : [],
    });
    const headers = new ResponseHeadersPolicy(this, 'ConsoleHeaders', {
      comment: 'The console: its Content-Security-Policy and the usual protections',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: consoleBuild.contentSecurityPolicy, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
      },
    });
    const siteOrigin = S3BucketOrigin.withOriginAccessControl(this.siteBucket);
    const consoleBehavior = {
      origin: siteOrigin,
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: headers,
      compress: true,
      functionAssociations: [
        {
          eventType: FunctionEventType.VIEWER_REQUEST,
          function: new EdgeFunction(this, 'IndexRewrite', { code: FunctionCode.fromInline(INDEX_REWRITE) }),
        },
      ],
    };
    const region = Stack.of(this).region;
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Video Creation Service: the console and the API on one origin',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: distributionLogs,
      logFilePrefix: 'console/',
      // Every path the console does not own goes to the API, unchanged, never cached.
      defaultBehavior: {
        origin: new HttpOrigin(
          Fn.join('.', [props.restApiId, 'execute-api', region, Stack.of(this).urlSuffix]),
          {
            originPath: `/${props.stageName}`,
            protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
          },
        ),
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        // API Gateway needs its own Host; everything else the client sent (credentials included) goes on.
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      },
      additionalBehaviors: {
        [CONSOLE_BASE_PATH]: consoleBehavior,
        [`${CONSOLE_BASE_PATH}/*`]: consoleBehavior,
      },
    });
    this.url = `https://${this.distribution.distributionDomainName}`;

    // Content-hashed files never change under their name; the page and its settings are revalidated.
    const hashed = mkdtempSync(path.join(tmpdir(), 'video-console-assets-'));
    writeConsoleBuild(
      { ...consoleBuild, files: consoleBuild.files.filter((file) => file.immutable) },
      hashed,
    );
    const page = mkdtempSync(path.join(tmpdir(), 'video-console-page-'));
    writeConsoleBuild({ ...consoleBuild, files: consoleBuild.files.filter((file) => !file.immutable) }, page);
    const destinationKeyPrefix = `${CONSOLE_BASE_PATH.slice(1)}/`;
    const assets = new BucketDeployment(this, 'DeployAssets', {
      sources: [Source.asset(hashed)],
      destinationBucket: this.siteBucket,
      destinationKeyPrefix,
      cacheControl: [CacheControl.fromString('public, max-age=31536000, immutable')],
      // Files of earlier builds stay for pages still open with them; they are small.
      prune: false,
    });
    new BucketDeployment(this, 'DeployPage', {
      sources: [
        Source.asset(page),
        Source.jsonData(
          'config.json',
          consoleSettings({
            jwtIssuer: props.oauth?.issuer ?? '',
            jwtAudience: props.oauth?.audience ?? '',
            oauthClientId: props.oauth?.clientId ?? '',
            ...(props.pollIntervalMs ? { pollIntervalMs: props.pollIntervalMs } : {}),
          }),
        ),
      ],
      destinationBucket: this.siteBucket,
      destinationKeyPrefix,
      cacheControl: [CacheControl.noCache()],
      prune: false,
      // The page points at the hashed files: they are in the bucket before it is.
    }).node.addDependency(assets);

    this.acknowledgeInherentFindings();
  }

  private acknowledgeInherentFindings(): void {
    const siteBucketLogicalId = Stack.of(this).getLogicalId(this.siteBucket.node.defaultChild as never);
    Validations.of(this).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason:
          "The console and API serve the customer's users wherever they are; geo restriction is a policy choice.",
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'A CloudFront web ACL lives in us-east-1 and is a per-deployment choice (cost, rules); the API keeps its own throttling and the regional web ACL option.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          "Without a custom domain the distribution uses CloudFront's default certificate, whose security policy CloudFront fixes; a deployment with its own domain and certificate sets TLSv1.2_2021.",
      },
      ...[
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      ].map((id) => ({
        id,
        reason:
          "CDK's BucketDeployment helper function runs with AWSLambdaBasicExecutionRole (its log writes); it is CDK's, not the service's.",
      })),
      ...[
        'Action::s3:Abort*',
        'Action::s3:DeleteObject*',
        'Action::s3:GetBucket*',
        'Action::s3:GetObject*',
        'Action::s3:List*',
        `Resource::<${siteBucketLogicalId}.Arn>/*`,
        'Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*',
      ].map((finding) => ({
        id: `AwsSolutions-IAM5[${finding}]`,
        reason:
          "CDK's BucketDeployment helper reads its asset objects and replaces the console's files in the site bucket: object-level wildcards are inherent to copying a directory (CDK's grants).",
      })),
      {
        id: 'AwsSolutions-L1',
        reason:
          "CDK's BucketDeployment helper function ships with the runtime CDK pins for it (it runs the AWS CLI).",
      },
    );
  }
}
