import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateAliasCommand,
  CreateKeyCommand,
  DecryptCommand,
  DescribeKeyCommand,
  DisabledException,
  DisableKeyCommand,
  EnableKeyCommand,
  EncryptCommand,
  GenerateDataKeyCommand,
  GenerateMacCommand,
  IncorrectKeyException,
  InvalidCiphertextException,
  InvalidKeyUsageException,
  KMSClient,
  KMSInvalidMacException,
  KMSInvalidStateException,
  ListAliasesCommand,
  ListKeysCommand,
  NotFoundException,
  ScheduleKeyDeletionCommand,
  VerifyMacCommand,
} from '@aws-sdk/client-kms';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type KmsEmulator,
  KmsKeyMaterialMismatchError,
  startKmsEmulator,
} from '../../../lib/local/emulators/index.js';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const utf8 = (text: string) => new TextEncoder().encode(text);
const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

function clientFor(emulator: KmsEmulator): KMSClient {
  return new KMSClient({ endpoint: emulator.endpoint, region: 'us-east-1', credentials, maxAttempts: 1 });
}

describe('KMS emulator', () => {
  let emulator: KmsEmulator;
  let kms: KMSClient;

  beforeAll(async () => {
    emulator = await startKmsEmulator();
    kms = clientFor(emulator);
  });
  afterAll(async () => {
    kms.destroy();
    await emulator.stop();
  });

  async function createSymmetricKey(): Promise<string> {
    const created = await kms.send(new CreateKeyCommand({ Description: 'test key' }));
    return created.KeyMetadata?.KeyId ?? '';
  }

  it('creates a key whose metadata is ARN-shaped and enabled', async () => {
    const created = await kms.send(new CreateKeyCommand({ Description: 'stack key' }));
    const metadata = created.KeyMetadata;
    expect(metadata?.KeyId).toMatch(/^[0-9a-f-]{36}$/);
    expect(metadata?.Arn).toBe(`arn:aws:kms:us-east-1:000000000000:key/${metadata?.KeyId}`);
    expect(metadata).toMatchObject({
      KeyState: 'Enabled',
      Enabled: true,
      KeySpec: 'SYMMETRIC_DEFAULT',
      KeyUsage: 'ENCRYPT_DECRYPT',
      Origin: 'AWS_KMS',
      Description: 'stack key',
    });
    expect(metadata?.CreationDate).toBeInstanceOf(Date);
    const described = await kms.send(new DescribeKeyCommand({ KeyId: metadata?.Arn }));
    expect(described.KeyMetadata?.KeyId).toBe(metadata?.KeyId);
  });

  it('round-trips Encrypt and Decrypt, with Decrypt finding the key from the blob alone', async () => {
    const keyId = await createSymmetricKey();
    const context = { workspace: 'ws_1', purpose: 'webhook-secret' };
    const encrypted = await kms.send(
      new EncryptCommand({ KeyId: keyId, Plaintext: utf8('whsec_abc'), EncryptionContext: context }),
    );
    expect(encrypted.KeyId).toBe(emulator.keyArn(keyId));
    expect(text(encrypted.CiphertextBlob)).not.toContain('whsec_abc');

    const decrypted = await kms.send(
      new DecryptCommand({
        CiphertextBlob: encrypted.CiphertextBlob,
        // The context's key order must not matter.
        EncryptionContext: { purpose: 'webhook-secret', workspace: 'ws_1' },
      }),
    );
    expect(text(decrypted.Plaintext)).toBe('whsec_abc');
    expect(decrypted.KeyId).toBe(emulator.keyArn(keyId));
  });

  it('fails Decrypt with InvalidCiphertextException when the encryption context differs', async () => {
    const keyId = await createSymmetricKey();
    const encrypted = await kms.send(
      new EncryptCommand({
        KeyId: keyId,
        Plaintext: utf8('secret'),
        EncryptionContext: { workspace: 'ws_1' },
      }),
    );
    await expect(
      kms.send(
        new DecryptCommand({
          CiphertextBlob: encrypted.CiphertextBlob,
          EncryptionContext: { workspace: 'ws_2' },
        }),
      ),
    ).rejects.toBeInstanceOf(InvalidCiphertextException);
    await expect(
      kms.send(new DecryptCommand({ CiphertextBlob: encrypted.CiphertextBlob })),
    ).rejects.toBeInstanceOf(InvalidCiphertextException);
  });

  it('fails Decrypt of a tampered blob, and with the wrong KeyId', async () => {
    const keyId = await createSymmetricKey();
    const otherKeyId = await createSymmetricKey();
    const encrypted = await kms.send(new EncryptCommand({ KeyId: keyId, Plaintext: utf8('secret') }));
    const tampered = Uint8Array.from(encrypted.CiphertextBlob ?? []);
    tampered[tampered.length - 1] = (tampered.at(-1) ?? 0) ^ 0xff;
    await expect(kms.send(new DecryptCommand({ CiphertextBlob: tampered }))).rejects.toBeInstanceOf(
      InvalidCiphertextException,
    );
    await expect(kms.send(new DecryptCommand({ CiphertextBlob: utf8('not a blob') }))).rejects.toBeInstanceOf(
      InvalidCiphertextException,
    );
    await expect(
      kms.send(new DecryptCommand({ CiphertextBlob: encrypted.CiphertextBlob, KeyId: otherKeyId })),
    ).rejects.toBeInstanceOf(IncorrectKeyException);
  });

  it('refuses a disabled key with DisabledException until it is enabled again', async () => {
    const keyId = await createSymmetricKey();
    const encrypted = await kms.send(new EncryptCommand({ KeyId: keyId, Plaintext: utf8('secret') }));
    await kms.send(new DisableKeyCommand({ KeyId: keyId }));
    const described = await kms.send(new DescribeKeyCommand({ KeyId: keyId }));
    expect(described.KeyMetadata).toMatchObject({ KeyState: 'Disabled', Enabled: false });

    await expect(kms.send(new EncryptCommand({ KeyId: keyId, Plaintext: utf8('x') }))).rejects.toBeInstanceOf(
      DisabledException,
    );
    await expect(
      kms.send(new DecryptCommand({ CiphertextBlob: encrypted.CiphertextBlob })),
    ).rejects.toBeInstanceOf(DisabledException);
    await kms.send(new EnableKeyCommand({ KeyId: keyId }));
    const decrypted = await kms.send(new DecryptCommand({ CiphertextBlob: encrypted.CiphertextBlob }));
    expect(text(decrypted.Plaintext)).toBe('secret');
  });

  it('schedules deletion: the key is PendingDeletion and unusable', async () => {
    const keyId = await createSymmetricKey();
    const scheduled = await kms.send(
      new ScheduleKeyDeletionCommand({ KeyId: keyId, PendingWindowInDays: 7 }),
    );
    expect(scheduled.KeyState).toBe('PendingDeletion');
    expect(scheduled.DeletionDate?.getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);
    await expect(kms.send(new EncryptCommand({ KeyId: keyId, Plaintext: utf8('x') }))).rejects.toBeInstanceOf(
      KMSInvalidStateException,
    );
  });

  it('answers unknown keys with NotFoundException', async () => {
    await expect(
      kms.send(new DescribeKeyCommand({ KeyId: '00000000-0000-0000-0000-000000000000' })),
    ).rejects.toBeInstanceOf(NotFoundException);
    await expect(kms.send(new DescribeKeyCommand({ KeyId: 'alias/missing' }))).rejects.toBeInstanceOf(
      NotFoundException,
    );
    await expect(
      kms.send(new DescribeKeyCommand({ KeyId: 'arn:aws:kms:eu-west-1:000000000000:key/whatever' })),
    ).rejects.toBeInstanceOf(NotFoundException);
  });

  it('resolves aliases by name and by ARN', async () => {
    const keyId = await createSymmetricKey();
    await kms.send(new CreateAliasCommand({ AliasName: 'alias/workspace-ws_9', TargetKeyId: keyId }));
    const byName = await kms.send(new DescribeKeyCommand({ KeyId: 'alias/workspace-ws_9' }));
    expect(byName.KeyMetadata?.KeyId).toBe(keyId);
    const byArn = await kms.send(
      new EncryptCommand({
        KeyId: 'arn:aws:kms:us-east-1:000000000000:alias/workspace-ws_9',
        Plaintext: utf8('x'),
      }),
    );
    expect(byArn.KeyId).toBe(emulator.keyArn(keyId));
    const listed = await kms.send(new ListAliasesCommand({ KeyId: keyId }));
    expect(listed.Aliases?.map((alias) => alias.AliasName)).toEqual(['alias/workspace-ws_9']);
  });

  it('generates data keys whose ciphertext decrypts to the plaintext key', async () => {
    const keyId = await createSymmetricKey();
    const dataKey = await kms.send(
      new GenerateDataKeyCommand({
        KeyId: keyId,
        KeySpec: 'AES_256',
        EncryptionContext: { bucket: 'media' },
      }),
    );
    expect(dataKey.Plaintext?.length).toBe(32);
    const decrypted = await kms.send(
      new DecryptCommand({ CiphertextBlob: dataKey.CiphertextBlob, EncryptionContext: { bucket: 'media' } }),
    );
    expect(Buffer.from(decrypted.Plaintext ?? []).equals(Buffer.from(dataKey.Plaintext ?? []))).toBe(true);
  });

  it('computes HMAC_SHA_256 MACs that verify, and rejects a tampered message', async () => {
    const created = await kms.send(
      new CreateKeyCommand({ KeySpec: 'HMAC_256', KeyUsage: 'GENERATE_VERIFY_MAC' }),
    );
    const keyId = created.KeyMetadata?.KeyId;
    expect(created.KeyMetadata?.MacAlgorithms).toEqual(['HMAC_SHA_256']);
    const generated = await kms.send(
      new GenerateMacCommand({ KeyId: keyId, Message: utf8('payload'), MacAlgorithm: 'HMAC_SHA_256' }),
    );
    expect(generated.Mac?.length).toBe(32);
    const verified = await kms.send(
      new VerifyMacCommand({
        KeyId: keyId,
        Message: utf8('payload'),
        Mac: generated.Mac,
        MacAlgorithm: 'HMAC_SHA_256',
      }),
    );
    expect(verified.MacValid).toBe(true);
    await expect(
      kms.send(
        new VerifyMacCommand({
          KeyId: keyId,
          Message: utf8('payload!'),
          Mac: generated.Mac,
          MacAlgorithm: 'HMAC_SHA_256',
        }),
      ),
    ).rejects.toBeInstanceOf(KMSInvalidMacException);
    // An HMAC key cannot encrypt, and a symmetric key cannot MAC.
    await expect(kms.send(new EncryptCommand({ KeyId: keyId, Plaintext: utf8('x') }))).rejects.toBeInstanceOf(
      InvalidKeyUsageException,
    );
    const symmetricKeyId = await createSymmetricKey();
    await expect(
      kms.send(
        new GenerateMacCommand({ KeyId: symmetricKeyId, Message: utf8('x'), MacAlgorithm: 'HMAC_SHA_256' }),
      ),
    ).rejects.toBeInstanceOf(InvalidKeyUsageException);
  });

  it('lists keys across pages', async () => {
    await createSymmetricKey();
    await createSymmetricKey();
    const first = await kms.send(new ListKeysCommand({ Limit: 1 }));
    expect(first.Keys).toHaveLength(1);
    expect(first.Truncated).toBe(true);
    const rest = await kms.send(new ListKeysCommand({ Marker: first.NextMarker }));
    expect(rest.Keys?.length).toBeGreaterThanOrEqual(1);
    expect(rest.Keys?.[0]?.KeyId).not.toBe(first.Keys?.[0]?.KeyId);
  });

  it('imports a key with a fixed id that is usable by id, ARN and alias', async () => {
    const keyId = '11111111-2222-3333-4444-555555555555';
    const metadata = await emulator.importKey({ keyId, aliases: ['alias/stack'], description: 'seeded' });
    expect(metadata.Arn).toBe(`arn:aws:kms:us-east-1:000000000000:key/${keyId}`);
    const encrypted = await kms.send(new EncryptCommand({ KeyId: 'alias/stack', Plaintext: utf8('seeded') }));
    const decrypted = await kms.send(
      new DecryptCommand({ CiphertextBlob: encrypted.CiphertextBlob, KeyId: metadata.Arn }),
    );
    expect(text(decrypted.Plaintext)).toBe('seeded');
  });
});

describe('KMS emulator persistence', () => {
  let directory: string;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'local-kms-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('keeps keys, aliases and states across a restart with the same data file', async () => {
    const dataFile = join(directory, 'keyring.json');
    const first = await startKmsEmulator({ dataFile, region: 'eu-west-1', accountId: '123456789012' });
    const firstClient = new KMSClient({ endpoint: first.endpoint, region: 'eu-west-1', credentials });
    const created = await firstClient.send(new CreateKeyCommand({}));
    const keyId = created.KeyMetadata?.KeyId;
    expect(created.KeyMetadata?.Arn).toBe(`arn:aws:kms:eu-west-1:123456789012:key/${keyId}`);
    await firstClient.send(new CreateAliasCommand({ AliasName: 'alias/persisted', TargetKeyId: keyId }));
    const encrypted = await firstClient.send(
      new EncryptCommand({ KeyId: keyId, Plaintext: utf8('survives'), EncryptionContext: { a: 'b' } }),
    );
    const disabledKey = await firstClient.send(new CreateKeyCommand({}));
    await firstClient.send(new DisableKeyCommand({ KeyId: disabledKey.KeyMetadata?.KeyId }));
    firstClient.destroy();
    await first.stop();

    expect((await stat(dataFile)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(dataFile, 'utf8')).format).toBe('local-kms/1');

    const second = await startKmsEmulator({ dataFile, region: 'eu-west-1', accountId: '123456789012' });
    const secondClient = new KMSClient({ endpoint: second.endpoint, region: 'eu-west-1', credentials });
    try {
      const decrypted = await secondClient.send(
        new DecryptCommand({ CiphertextBlob: encrypted.CiphertextBlob, EncryptionContext: { a: 'b' } }),
      );
      expect(text(decrypted.Plaintext)).toBe('survives');
      const byAlias = await secondClient.send(new DescribeKeyCommand({ KeyId: 'alias/persisted' }));
      expect(byAlias.KeyMetadata?.KeyId).toBe(keyId);
      const disabled = await secondClient.send(
        new DescribeKeyCommand({ KeyId: disabledKey.KeyMetadata?.KeyId }),
      );
      expect(disabled.KeyMetadata?.KeyState).toBe('Disabled');
    } finally {
      secondClient.destroy();
      await second.stop();
    }
  });

  it('keeps the material of a seeded key on restart, and refuses other material for it', async () => {
    const dataFile = join(directory, 'seeded.json');
    const seed = { keyId: 'aaaaaaaa-0000-0000-0000-000000000001', aliases: ['alias/seeded'] };
    const first = await startKmsEmulator({ dataFile, keys: [seed] });
    const firstClient = clientFor(first);
    const encrypted = await firstClient.send(
      new EncryptCommand({ KeyId: 'alias/seeded', Plaintext: utf8('seed') }),
    );
    firstClient.destroy();
    await first.stop();

    const second = await startKmsEmulator({ dataFile, keys: [seed] });
    const secondClient = clientFor(second);
    try {
      const decrypted = await secondClient.send(
        new DecryptCommand({ CiphertextBlob: encrypted.CiphertextBlob }),
      );
      expect(text(decrypted.Plaintext)).toBe('seed');
      await expect(second.importKey({ ...seed, material: Buffer.alloc(32, 7) })).rejects.toBeInstanceOf(
        KmsKeyMaterialMismatchError,
      );
    } finally {
      secondClient.destroy();
      await second.stop();
    }
  });
});
