/**
 * The console's deployment (lib/stack/console-site.ts): a private site bucket reached only through
 * CloudFront (OAC), one distribution for the console and the API, the console's security headers,
 * the bundle deployed from the synth-time build, the media bucket open to the console's origin, and
 * no cdk-nag finding.
 */
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { STAGE_NAME } from '../../lib/stack/service-api.js';
import { buildService, type SynthesizedService } from './synth-helpers.js';

let service: SynthesizedService;
let site: Template;
let root: Template;

beforeAll(() => {
  service = buildService({ validateTemplates: false });
  if (!service.stack.consoleSite) throw new Error('the stack deploys the console site by default');
  site = Template.fromStack(service.stack.consoleSite);
  root = Template.fromStack(service.stack);
}, 240_000);

describe('console site', () => {
  it('keeps the files in a private, encrypted, TLS-only bucket that only the distribution reads', () => {
    site.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'console-site/' }),
    });
    const policies = JSON.stringify(site.findResources('AWS::S3::BucketPolicy'));
    expect(policies).toContain('"aws:SecureTransport":"false"');
    expect(policies).toContain('cloudfront.amazonaws.com');
    expect(policies).toContain('AWS:SourceArn');
    site.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
  });

  it('serves the console and the API from one distribution: /console* from the bucket, the rest from the API stage', () => {
    site.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultCacheBehavior: Match.objectLike({
          AllowedMethods: Match.arrayWith(['PUT', 'PATCH', 'POST', 'DELETE']),
          ViewerProtocolPolicy: 'https-only',
        }),
        CacheBehaviors: [
          Match.objectLike({ PathPattern: '/console', ResponseHeadersPolicyId: Match.anyValue() }),
          Match.objectLike({ PathPattern: '/console/*', ResponseHeadersPolicyId: Match.anyValue() }),
        ],
        Origins: Match.arrayWith([
          Match.objectLike({
            OriginPath: `/${STAGE_NAME}`,
            CustomOriginConfig: Match.objectLike({ OriginProtocolPolicy: 'https-only' }),
          }),
        ]),
        Logging: Match.objectLike({ Prefix: 'console/' }),
      }),
    });
  });

  it("sends the console's strict Content-Security-Policy: scripts and styles from itself only", () => {
    const policies = site.findResources('AWS::CloudFront::ResponseHeadersPolicy');
    const csp = JSON.stringify(policies);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
  });

  it('deploys the bundle built at synth: the hashed files, then the page and its settings', () => {
    site.resourceCountIs('Custom::CDKBucketDeployment', 2);
    site.hasResourceProperties('Custom::CDKBucketDeployment', {
      DestinationBucketKeyPrefix: 'console/',
      SystemMetadata: { 'cache-control': 'public, max-age=31536000, immutable' },
    });
    site.hasResourceProperties('Custom::CDKBucketDeployment', {
      DestinationBucketKeyPrefix: 'console/',
      SystemMetadata: { 'cache-control': 'no-cache' },
    });
  });

  it("lets the console's origin upload to and read the media bucket, and outputs its address", () => {
    const buckets = JSON.stringify(root.findResources('AWS::S3::Bucket'));
    expect(buckets).toContain('CorsConfiguration');
    expect(buckets).toMatch(/Distribution\w*DomainName/);
    root.hasOutput('ConsoleUrl', Match.anyValue());
  });

  it('has no cdk-nag finding and no CDK warning', () => {
    const report = new AwsSolutionsChecks().validateScope(service.app);
    const consoleFindings = report.violations.filter((violation) =>
      JSON.stringify(violation).includes('ConsoleSite'),
    );
    expect(consoleFindings).toEqual([]);
    // CDK's own warnings (nested stacks' annotations are part of the root stack's artifact).
    Annotations.fromStack(service.stack).hasNoWarning('*', Match.anyValue());
  });
});
