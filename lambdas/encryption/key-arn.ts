/**
 * Which key references a workspace may be given: only the full ARN of a key, in the stack's region.
 * An alias can be re-pointed at another key later (media would silently change keys), a bare key id
 * names no account or region, and S3 can only use a KMS key of the bucket's own region.
 */
import { InvalidEncryptionKeyError } from './errors.js';

/** A validated customer key ARN, split into its parts. */
export interface KmsKeyArn {
  arn: string;
  partition: string;
  region: string;
  accountId: string;
  /** A UUID, or `mrk-<32 hex>` for a multi-Region key. */
  keyId: string;
}

const KEY_ID = '(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|mrk-[0-9a-f]{32})';
const KEY_ARN = new RegExp(`^arn:([a-z-]+):kms:([a-z0-9-]*):([^:]*):key/(${KEY_ID})$`);
const BARE_KEY_ID = new RegExp(`^${KEY_ID}$`);
const REGION = /^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/;
const ACCOUNT = /^\d{12}$/;
const EXAMPLE = 'arn:aws:kms:<region>:<12-digit account>:key/<key id>';

/** The partition a region belongs to (the standard, China and GovCloud partitions). */
export function partitionOfRegion(region: string): string {
  if (region.startsWith('cn-')) return 'aws-cn';
  if (region.startsWith('us-gov-')) return 'aws-us-gov';
  return 'aws';
}

/**
 * Parses a customer key reference and checks it can be used by a stack in `stackRegion`.
 * @throws InvalidEncryptionKeyError (400 `invalid_encryption_key`) naming what is wrong.
 */
export function parseCustomerKeyArn(reference: unknown, stackRegion: string): KmsKeyArn {
  if (!stackRegion) throw new Error('The stack region (AWS_REGION) is not configured');
  if (typeof reference !== 'string' || reference.trim() === '') {
    throw new InvalidEncryptionKeyError(`Give the full ARN of a KMS key (${EXAMPLE}).`);
  }
  const value = reference.trim();
  if (/^alias\//.test(value) || /^arn:[^:]*:kms:[^:]*:[^:]*:alias\//.test(value)) {
    throw new InvalidEncryptionKeyError(
      `Key aliases are not accepted, since an alias can later point at another key: give the full key ARN (${EXAMPLE}).`,
    );
  }
  if (BARE_KEY_ID.test(value.toLowerCase())) {
    throw new InvalidEncryptionKeyError(
      `A bare key id is not accepted: give the full key ARN, with its region and account (${EXAMPLE}).`,
    );
  }
  const match = KEY_ARN.exec(value);
  if (!match) {
    throw new InvalidEncryptionKeyError(`Not a KMS key ARN: expected ${EXAMPLE} with a lowercase key id.`);
  }
  const [, partition = '', region = '', accountId = '', keyId = ''] = match;
  if (!REGION.test(region)) {
    throw new InvalidEncryptionKeyError(
      `The key ARN names no valid region ("${region}"): expected ${EXAMPLE}.`,
    );
  }
  if (!ACCOUNT.test(accountId)) {
    throw new InvalidEncryptionKeyError(`The key ARN's account must be 12 digits, not "${accountId}".`);
  }
  if (partition !== partitionOfRegion(region)) {
    throw new InvalidEncryptionKeyError(
      `The key ARN's partition "${partition}" does not match its region ${region} (expected "${partitionOfRegion(region)}").`,
    );
  }
  if (region !== stackRegion) {
    throw new InvalidEncryptionKeyError(
      `The key is in ${region}, but this service runs in ${stackRegion}: media can only be encrypted with a key of the same region.`,
    );
  }
  return { arn: value, partition, region, accountId, keyId };
}
