import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../lambdas/core/errors.js';
import { parseCustomerKeyArn, partitionOfRegion } from '../../lambdas/encryption/key-arn.js';

const KEY_ID = '1234abcd-12ab-34cd-56ef-1234567890ab';
const MRK_ID = 'mrk-1234abcd12ab34cd56ef1234567890ab';

describe('parseCustomerKeyArn', () => {
  it.each([
    ['a key in the stack region', `arn:aws:kms:eu-west-1:111122223333:key/${KEY_ID}`, 'eu-west-1'],
    ['a multi-Region key', `arn:aws:kms:eu-west-1:111122223333:key/${MRK_ID}`, 'eu-west-1'],
    ['a China partition key', `arn:aws-cn:kms:cn-north-1:111122223333:key/${KEY_ID}`, 'cn-north-1'],
    ['a GovCloud key', `arn:aws-us-gov:kms:us-gov-west-1:111122223333:key/${KEY_ID}`, 'us-gov-west-1'],
  ])('accepts %s', (_name, arn, region) => {
    const parsed = parseCustomerKeyArn(arn, region);
    expect(parsed).toMatchObject({ arn, region, accountId: '111122223333' });
    expect(parsed.keyId).toBe(arn.split('/')[1]);
  });

  it('trims surrounding whitespace', () => {
    const arn = `arn:aws:kms:eu-west-1:111122223333:key/${KEY_ID}`;
    expect(parseCustomerKeyArn(`  ${arn}\n`, 'eu-west-1').arn).toBe(arn);
  });

  it.each([
    ['an alias ARN', 'arn:aws:kms:eu-west-1:111122223333:alias/media', /alias/i],
    ['an alias name', 'alias/media', /alias/i],
    ['a bare key id', KEY_ID, /bare key id/i],
    ['a bare multi-Region key id', MRK_ID, /bare key id/i],
    ['a key of another region', `arn:aws:kms:us-east-1:111122223333:key/${KEY_ID}`, /us-east-1.*eu-west-1/],
    ['an 11-digit account', `arn:aws:kms:eu-west-1:11112222333:key/${KEY_ID}`, /12 digits/],
    ['a non-numeric account', `arn:aws:kms:eu-west-1:11112222333x:key/${KEY_ID}`, /12 digits/],
    ['an empty account', `arn:aws:kms:eu-west-1::key/${KEY_ID}`, /12 digits/],
    [
      'a partition that does not match the region',
      `arn:aws-cn:kms:eu-west-1:111122223333:key/${KEY_ID}`,
      /partition/,
    ],
    ['a standard partition in China', `arn:aws:kms:cn-north-1:111122223333:key/${KEY_ID}`, /partition/],
    ['an empty region', `arn:aws:kms::111122223333:key/${KEY_ID}`, /region/],
    ['another service', `arn:aws:s3:eu-west-1:111122223333:key/${KEY_ID}`, /Not a KMS key ARN/],
    ['a malformed key id', 'arn:aws:kms:eu-west-1:111122223333:key/not-a-key', /Not a KMS key ARN/],
    ['an uppercase key id', `arn:aws:kms:eu-west-1:111122223333:key/${KEY_ID.toUpperCase()}`, /lowercase/],
    ['a trailing path', `arn:aws:kms:eu-west-1:111122223333:key/${KEY_ID}/x`, /Not a KMS key ARN/],
    ['an empty string', '', /full ARN/],
    ['a number', 42, /full ARN/],
  ])('refuses %s with 400 invalid_encryption_key', (_name, reference, message) => {
    let thrown: unknown;
    try {
      parseCustomerKeyArn(reference, 'eu-west-1');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ServiceError);
    expect(thrown).toMatchObject({ status: 400, code: 'invalid_encryption_key', param: 'key_arn' });
    expect((thrown as Error).message).toMatch(message);
  });

  it('refuses to decide without a configured stack region', () => {
    expect(() => parseCustomerKeyArn(`arn:aws:kms:eu-west-1:111122223333:key/${KEY_ID}`, '')).toThrow(
      /AWS_REGION/,
    );
  });
});

describe('partitionOfRegion', () => {
  it.each([
    ['eu-west-1', 'aws'],
    ['cn-northwest-1', 'aws-cn'],
    ['us-gov-east-1', 'aws-us-gov'],
  ])('%s is in %s', (region, partition) => {
    expect(partitionOfRegion(region)).toBe(partition);
  });
});
