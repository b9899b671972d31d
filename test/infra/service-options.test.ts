import { App, RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES } from '../../lambdas/assets/upload-limits.js';
import { CONTEXT_DEFAULTS, serviceOptionsFromContext } from '../../lib/stack/service-options.js';
import { cdkJsonContext } from './synth-helpers.js';

function optionsFrom(context: Record<string, unknown>) {
  return serviceOptionsFromContext(new App({ context }).node);
}

describe('serviceOptionsFromContext', () => {
  it('accepts the context of cdk.json, which sets every option', () => {
    const context = cdkJsonContext();
    for (const key of Object.keys(CONTEXT_DEFAULTS)) expect(context, key).toHaveProperty(key);
    expect(optionsFrom(context)).toMatchObject({
      stackName: 'VideoCreationService',
      logRetention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
      allowedCorsOrigins: [],
      webAclArn: '',
      apiGatewayCloudWatchRole: false,
    });
  });

  it('leaves the account-wide API Gateway CloudWatch role alone unless asked', () => {
    expect(optionsFrom({}).apiGatewayCloudWatchRole).toBe(false);
    expect(optionsFrom({ apiGatewayCloudWatchRole: true }).apiGatewayCloudWatchRole).toBe(true);
    expect(optionsFrom({ apiGatewayCloudWatchRole: 'true' }).apiGatewayCloudWatchRole).toBe(true);
    expect(optionsFrom({ apiGatewayCloudWatchRole: 'false' }).apiGatewayCloudWatchRole).toBe(false);
    // The same words as the runtime's switches (core/config.ts).
    for (const word of ['1', 'yes', 'ON']) {
      expect(optionsFrom({ apiGatewayCloudWatchRole: word }).apiGatewayCloudWatchRole, word).toBe(true);
    }
    for (const word of ['0', 'no', 'Off']) {
      expect(optionsFrom({ apiGatewayCloudWatchRole: word }).apiGatewayCloudWatchRole, word).toBe(false);
    }
  });

  it('reads `-c key=value` strings: numbers, JSON lists and comma-separated lists', () => {
    const options = optionsFrom({
      logRetentionDays: '90',
      authCacheTtlSeconds: '0',
      removalPolicy: 'destroy',
      allowedCorsOrigins: 'https://a.example.com, http://localhost:5173',
    });
    expect(options.logRetention).toBe(RetentionDays.THREE_MONTHS);
    expect(options.authCacheTtlSeconds).toBe(0);
    expect(options.removalPolicy).toBe(RemovalPolicy.DESTROY);
    expect(options.allowedCorsOrigins).toEqual(['https://a.example.com', 'http://localhost:5173']);
    expect(optionsFrom({ allowedCorsOrigins: '["https://a.example.com"]' }).allowedCorsOrigins).toEqual([
      'https://a.example.com',
    ]);
  });

  it('reports every invalid option at once, by context key', () => {
    const attempt = () =>
      optionsFrom({
        logRetentionDays: 31,
        removalPolicy: 'keep',
        speechEngine: 'festival',
        allowedCorsOrigins: ['https://a.example.com/path'],
        jwtIssuer: 'http://issuer.example.com',
        authCacheTtlSeconds: -1,
        webAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:global/webacl/x',
        apiGatewayCloudWatchRole: 'sometimes',
        apiAreaStacksAtOnce: 0,
        catalogFailureFailsDeploy: 'maybe',
      });
    expect(attempt).toThrow(/logRetentionDays/);
    for (const key of [
      'removalPolicy',
      'speechEngine',
      'allowedCorsOrigins',
      'jwtIssuer',
      'authCacheTtlSeconds',
      'webAclArn',
      'apiGatewayCloudWatchRole',
      'apiAreaStacksAtOnce',
      'catalogFailureFailsDeploy',
    ]) {
      expect(attempt, key).toThrow(new RegExp(`- ${key} `));
    }
  });

  it('caps multipart uploads at what a synchronous Lambda invoke can carry, and lets a deployer go lower', () => {
    expect(optionsFrom({}).maxMultipartUploadBytes).toBe(DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES);
    expect(optionsFrom({ maxMultipartUploadBytes: '1048576' }).maxMultipartUploadBytes).toBe(1_048_576);
    // 10 MiB is API Gateway's cap, but a base64-encoded 10 MiB body is far over Lambda's 6 MB.
    for (const tooLarge of [DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES + 1, 10 * 1024 * 1024]) {
      expect(() => optionsFrom({ maxMultipartUploadBytes: tooLarge })).toThrow(
        `- maxMultipartUploadBytes must be an integer from 1 to ${DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES}`,
      );
    }
  });

  it('refuses presigned URL lifetimes above 7 days, the most SigV4 allows', () => {
    expect(optionsFrom({})).toMatchObject({ mediaUrlTtlSeconds: 3600, uploadUrlTtlSeconds: 900 });
    expect(optionsFrom({ mediaUrlTtlSeconds: '604800' }).mediaUrlTtlSeconds).toBe(604_800);
    const attempt = () => optionsFrom({ mediaUrlTtlSeconds: 604_801, uploadUrlTtlSeconds: '0' });
    expect(attempt).toThrow('- mediaUrlTtlSeconds must be an integer from 1 to 604800');
    expect(attempt).toThrow('- uploadUrlTtlSeconds must be an integer from 1 to 604800');
  });

  it("cannot deploy the engines' test doubles", () => {
    expect(() => optionsFrom({ speechEngine: 'test-double' })).toThrow(/- speechEngine /);
  });
});
