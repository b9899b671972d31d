import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GrantStatement } from '../../../lib/access/grant-policies.js';
import { isAllowed, matchesWildcard } from '../../../lib/access/policy-evaluation.js';

const TABLE = 'arn:aws:dynamodb:us-east-1:000000000000:table/video-service';
const BUCKET = 'arn:aws:s3:::video-service-media';
const KEY = 'arn:aws:kms:us-east-1:000000000000:key/1111-2222';

describe('isAllowed: actions and resources', () => {
  it('denies implicitly when no statement is given', () => {
    expect(isAllowed([], { action: 'dynamodb:GetItem', resource: TABLE })).toBe(false);
  });

  it('allows an exact action on an exact resource, and nothing else', () => {
    const statements: GrantStatement[] = [{ actions: ['dynamodb:GetItem'], resources: [TABLE] }];
    expect(isAllowed(statements, { action: 'dynamodb:GetItem', resource: TABLE })).toBe(true);
    expect(isAllowed(statements, { action: 'dynamodb:PutItem', resource: TABLE })).toBe(false);
    expect(isAllowed(statements, { action: 'dynamodb:GetItem', resource: `${TABLE}/index/gsi1` })).toBe(
      false,
    );
    expect(isAllowed(statements, { action: 'dynamodb:GetItem', resource: `${TABLE}-other` })).toBe(false);
  });

  it('matches actions case-insensitively, with * and ?', () => {
    const statements: GrantStatement[] = [
      { actions: ['DynamoDB:getitem'], resources: [TABLE] },
      { actions: ['s3:Get*'], resources: [`${BUCKET}/*`] },
      { actions: ['kms:?ncrypt'], resources: [KEY] },
    ];
    expect(isAllowed(statements, { action: 'dynamodb:GetItem', resource: TABLE })).toBe(true);
    expect(isAllowed(statements, { action: 'S3:GETOBJECT', resource: `${BUCKET}/a` })).toBe(true);
    expect(isAllowed(statements, { action: 's3:getObjectTagging', resource: `${BUCKET}/a` })).toBe(true);
    expect(isAllowed(statements, { action: 's3:PutObject', resource: `${BUCKET}/a` })).toBe(false);
    expect(isAllowed(statements, { action: 'kms:Encrypt', resource: KEY })).toBe(true);
    expect(isAllowed(statements, { action: 'kms:ENCRYPT', resource: KEY })).toBe(true);
    // `?` is exactly one character.
    expect(isAllowed(statements, { action: 'kms:Decrypt', resource: KEY })).toBe(false);
    expect(isAllowed(statements, { action: 'kms:ReEncrypt', resource: KEY })).toBe(false);
  });

  it('matches resources case-sensitively, with * and ?', () => {
    const statements: GrantStatement[] = [
      { actions: ['s3:GetObject'], resources: [`${BUCKET}/workspaces/*`] },
      { actions: ['s3:PutObject'], resources: [`${BUCKET}/catalog/v?/x`] },
    ];
    expect(isAllowed(statements, { action: 's3:GetObject', resource: `${BUCKET}/workspaces/w1/a.mp4` })).toBe(
      true,
    );
    expect(isAllowed(statements, { action: 's3:GetObject', resource: `${BUCKET}/Workspaces/w1/a.mp4` })).toBe(
      false,
    );
    expect(isAllowed(statements, { action: 's3:GetObject', resource: `${BUCKET}/catalog/a.png` })).toBe(
      false,
    );
    expect(isAllowed(statements, { action: 's3:PutObject', resource: `${BUCKET}/catalog/v1/x` })).toBe(true);
    expect(isAllowed(statements, { action: 's3:PutObject', resource: `${BUCKET}/catalog/v12/x` })).toBe(
      false,
    );
    expect(isAllowed(statements, { action: 's3:PutObject', resource: `${BUCKET}/catalog/v/x` })).toBe(false);
  });

  it('treats regular-expression characters in patterns as literals', () => {
    expect(matchesWildcard('a.b', 'a.b')).toBe(true);
    expect(matchesWildcard('a.b', 'axb')).toBe(false);
    expect(matchesWildcard('a+(b)', 'a+(b)')).toBe(true);
    expect(matchesWildcard('a+(b)', 'aa(b)')).toBe(false);
    expect(matchesWildcard('[x]', 'x')).toBe(false);
    expect(matchesWildcard('^a$', '^a$')).toBe(true);
  });

  it('lets `*` span slashes and newlines (IAM wildcards are not path globs)', () => {
    expect(matchesWildcard(`${BUCKET}/*`, `${BUCKET}/a/b/c`)).toBe(true);
    expect(matchesWildcard('a*b', 'a\nb')).toBe(true);
  });
});

describe('isAllowed: conditions', () => {
  const viaS3: GrantStatement = {
    actions: ['kms:Decrypt'],
    resources: [KEY],
    conditions: { StringEquals: { 'kms:ViaService': 's3.us-east-1.amazonaws.com' } },
  };

  it('StringEquals holds for an equal value only, and never for a missing key', () => {
    const request = (context?: Record<string, string | undefined>) => ({
      action: 'kms:Decrypt',
      resource: KEY,
      context,
    });
    expect(isAllowed([viaS3], request({ 'kms:ViaService': 's3.us-east-1.amazonaws.com' }))).toBe(true);
    expect(isAllowed([viaS3], request({ 'kms:ViaService': 'S3.us-east-1.amazonaws.com' }))).toBe(false);
    expect(isAllowed([viaS3], request({ 'kms:ViaService': 'sqs.us-east-1.amazonaws.com' }))).toBe(false);
    expect(isAllowed([viaS3], request({}))).toBe(false);
    expect(isAllowed([viaS3], request(undefined))).toBe(false);
    expect(isAllowed([viaS3], request({ 'kms:ViaService': undefined }))).toBe(false);
  });

  it('a condition with several values holds when any of them does', () => {
    const statement: GrantStatement = {
      actions: ['kms:Decrypt'],
      resources: [KEY],
      conditions: {
        StringEquals: { 'kms:ViaService': ['s3.us-east-1.amazonaws.com', 'sqs.us-east-1.amazonaws.com'] },
      },
    };
    const via = (service: string) => ({
      action: 'kms:Decrypt',
      resource: KEY,
      context: { 'kms:ViaService': service },
    });
    expect(isAllowed([statement], via('s3.us-east-1.amazonaws.com'))).toBe(true);
    expect(isAllowed([statement], via('sqs.us-east-1.amazonaws.com'))).toBe(true);
    expect(isAllowed([statement], via('lambda.us-east-1.amazonaws.com'))).toBe(false);
  });

  it('StringLike matches with wildcards, case-sensitively, and never a missing key', () => {
    const statement: GrantStatement = {
      actions: ['s3:ListBucket'],
      resources: [BUCKET],
      conditions: { StringLike: { 's3:prefix': ['workspaces/*', 'catalog/v?/'] } },
    };
    const list = (prefix?: string) => ({
      action: 's3:ListBucket',
      resource: BUCKET,
      context: { 's3:prefix': prefix },
    });
    expect(isAllowed([statement], list('workspaces/'))).toBe(true);
    expect(isAllowed([statement], list('workspaces/w1/input'))).toBe(true);
    expect(isAllowed([statement], list('catalog/v2/'))).toBe(true);
    expect(isAllowed([statement], list('Workspaces/w1'))).toBe(false);
    expect(isAllowed([statement], list('catalog/'))).toBe(false);
    expect(isAllowed([statement], list(''))).toBe(false);
    expect(isAllowed([statement], list(undefined))).toBe(false);
  });

  it('ArnLike matches ARNs with wildcards', () => {
    const statement: GrantStatement = {
      actions: ['sqs:SendMessage'],
      resources: ['*'],
      conditions: { ArnLike: { 'aws:SourceArn': 'arn:aws:sns:us-east-1:*:topic-?' } },
    };
    const from = (arn?: string) => ({
      action: 'sqs:SendMessage',
      resource: 'arn:aws:sqs:us-east-1:000000000000:q',
      context: { 'aws:SourceArn': arn },
    });
    expect(isAllowed([statement], from('arn:aws:sns:us-east-1:123456789012:topic-a'))).toBe(true);
    expect(isAllowed([statement], from('arn:aws:sns:us-west-2:123456789012:topic-a'))).toBe(false);
    expect(isAllowed([statement], from('arn:aws:sns:us-east-1:123456789012:topic-ab'))).toBe(false);
    expect(isAllowed([statement], from(undefined))).toBe(false);
  });

  it("Null 'false' asks that the key be present, 'true' that it be absent", () => {
    const present: GrantStatement = {
      actions: ['kms:Decrypt'],
      resources: [KEY],
      conditions: { Null: { 'kms:EncryptionContext:webhook_endpoint_id': 'false' } },
    };
    const absent: GrantStatement = {
      actions: ['kms:Decrypt'],
      resources: [KEY],
      conditions: { Null: { 'kms:EncryptionContext:webhook_endpoint_id': 'true' } },
    };
    const withEndpoint = {
      action: 'kms:Decrypt',
      resource: KEY,
      context: { 'kms:EncryptionContext:webhook_endpoint_id': 'we_1' },
    };
    const withoutEndpoint = {
      action: 'kms:Decrypt',
      resource: KEY,
      context: { 'kms:EncryptionContext:other': 'x' },
    };
    expect(isAllowed([present], withEndpoint)).toBe(true);
    expect(isAllowed([present], withoutEndpoint)).toBe(false);
    expect(isAllowed([present], { action: 'kms:Decrypt', resource: KEY })).toBe(false);
    expect(isAllowed([absent], withEndpoint)).toBe(false);
    expect(isAllowed([absent], withoutEndpoint)).toBe(true);
    expect(isAllowed([absent], { action: 'kms:Decrypt', resource: KEY })).toBe(true);
  });

  it('Null with several values holds when any of them does, like every other operator', () => {
    // The module's rule (and IAM's): "a condition with several values matches when any value does".
    const eitherWay: GrantStatement = {
      actions: ['kms:Decrypt'],
      resources: [KEY],
      conditions: { Null: { 'kms:EncryptionContext:webhook_endpoint_id': ['true', 'false'] } },
    };
    expect(isAllowed([eitherWay], { action: 'kms:Decrypt', resource: KEY })).toBe(true);
    expect(
      isAllowed([eitherWay], {
        action: 'kms:Decrypt',
        resource: KEY,
        context: { 'kms:EncryptionContext:webhook_endpoint_id': 'we_1' },
      }),
    ).toBe(true);
  });

  it('every operator and every key of a statement must hold', () => {
    const statement: GrantStatement = {
      actions: ['kms:Decrypt'],
      resources: [KEY],
      conditions: {
        StringEquals: { 'kms:ViaService': 's3.us-east-1.amazonaws.com', 'kms:CallerAccount': '000000000000' },
        Null: { 'kms:EncryptionContext:aws:s3:arn': 'false' },
      },
    };
    const full = {
      'kms:ViaService': 's3.us-east-1.amazonaws.com',
      'kms:CallerAccount': '000000000000',
      'kms:EncryptionContext:aws:s3:arn': `${BUCKET}/a`,
    };
    const decrypt = (context: Record<string, string | undefined>) => ({
      action: 'kms:Decrypt',
      resource: KEY,
      context,
    });
    expect(isAllowed([statement], decrypt(full))).toBe(true);
    expect(isAllowed([statement], decrypt({ ...full, 'kms:CallerAccount': '111111111111' }))).toBe(false);
    expect(
      isAllowed([statement], decrypt({ ...full, 'kms:ViaService': 'sqs.us-east-1.amazonaws.com' })),
    ).toBe(false);
    expect(isAllowed([statement], decrypt({ ...full, 'kms:EncryptionContext:aws:s3:arn': undefined }))).toBe(
      false,
    );
  });

  it('one statement matching is enough: a failing condition elsewhere does not deny', () => {
    const statements: GrantStatement[] = [viaS3, { actions: ['kms:Decrypt'], resources: [KEY] }];
    expect(isAllowed(statements, { action: 'kms:Decrypt', resource: KEY })).toBe(true);
  });

  it('an operator it does not know throws rather than allowing', () => {
    const statement: GrantStatement = {
      actions: ['kms:Decrypt'],
      resources: [KEY],
      conditions: { StringNotEquals: { 'kms:ViaService': 'sqs.us-east-1.amazonaws.com' } },
    };
    expect(() =>
      isAllowed([statement], {
        action: 'kms:Decrypt',
        resource: KEY,
        context: { 'kms:ViaService': 's3.us-east-1.amazonaws.com' },
      }),
    ).toThrow(/does not evaluate the condition operator StringNotEquals/);
    const ifExists: GrantStatement = {
      ...statement,
      conditions: { StringEqualsIfExists: { 'kms:ViaService': 'x' } },
    };
    expect(() => isAllowed([ifExists], { action: 'kms:Decrypt', resource: KEY, context: {} })).toThrow(
      /StringEqualsIfExists/,
    );
  });
});

describe('matchesWildcard properties', () => {
  /** Any text, regular-expression syntax and line breaks included. */
  const anyText = fc.string({ unit: 'binary', maxLength: 24 });
  /** Text without IAM wildcards. */
  const literal = anyText.filter((value) => !/[*?]/.test(value));
  const asciiLiteral = fc
    .string({ unit: 'grapheme-ascii', maxLength: 24 })
    .filter((value) => !/[*?]/.test(value));

  it('a literal pattern matches exactly itself', () => {
    fc.assert(
      fc.property(literal, anyText, (pattern, other) => {
        expect(matchesWildcard(pattern, pattern)).toBe(true);
        expect(matchesWildcard(pattern, other)).toBe(other === pattern);
      }),
    );
  });

  it('`prefix*` matches exactly the strings that start with prefix', () => {
    fc.assert(
      fc.property(
        literal,
        anyText,
        fc.oneof(anyText, fc.constantFrom('', 'workspaces/', 'catalog/')),
        (prefix, rest, other) => {
          expect(matchesWildcard(`${prefix}*`, `${prefix}${rest}`)).toBe(true);
          expect(matchesWildcard(`${prefix}*`, other)).toBe(other.startsWith(prefix));
        },
      ),
    );
  });

  it('ignoring case, a literal pattern matches its upper- and lower-case forms', () => {
    fc.assert(
      fc.property(asciiLiteral, (pattern) => {
        expect(matchesWildcard(pattern, pattern.toUpperCase(), true)).toBe(true);
        expect(matchesWildcard(pattern.toUpperCase(), pattern.toLowerCase(), true)).toBe(true);
      }),
    );
  });
});
