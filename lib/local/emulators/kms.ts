/**
 * Local KMS: a keyring with the same operations and ARN-shaped key ids as AWS KMS, served over the
 * AWS JSON 1.1 protocol (`X-Amz-Target: TrentService.<Operation>`).
 *
 * Symmetric keys encrypt with AES-256-GCM under per-key material. A ciphertext blob carries the id
 * of its key, so `Decrypt` needs no `KeyId`; the blob header and the encryption context are the
 * GCM additional data, so a different context (or a tampered blob) fails with
 * `InvalidCiphertextException`. HMAC keys do `GenerateMac` / `VerifyMac`.
 *
 * The ciphertext format is this emulator's own: blobs from real KMS do not decrypt here and the
 * other way round. Key material lives in memory, or in `dataFile` (JSON, written atomically with
 * mode 0600) when one is given, so data encrypted before a restart still decrypts after it.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  randomBytes,
  randomUUID,
  timingSafeEqual,
} from 'node:crypto';
import { z } from 'zod';
import {
  AwsServiceError,
  base64Blob,
  type ListenOptions,
  operation,
  startAwsJsonServer,
  toEpochSeconds,
} from './aws-json-protocol.js';
import { JsonFileStore } from './json-file-store.js';

export const KMS_KEY_STATES = {
  enabled: 'Enabled',
  disabled: 'Disabled',
  pendingDeletion: 'PendingDeletion',
} as const;
export type KmsKeyState = (typeof KMS_KEY_STATES)[keyof typeof KMS_KEY_STATES];

/** Key specs this emulator can create; asymmetric specs are not supported. */
export const KMS_KEY_SPECS = ['SYMMETRIC_DEFAULT', 'HMAC_224', 'HMAC_256', 'HMAC_384', 'HMAC_512'] as const;
export type KmsKeySpec = (typeof KMS_KEY_SPECS)[number];

export const KMS_KEY_USAGES = ['ENCRYPT_DECRYPT', 'GENERATE_VERIFY_MAC'] as const;
export type KmsKeyUsage = (typeof KMS_KEY_USAGES)[number];

/** What an HMAC key spec computes, and how long its generated material is. */
const HMAC_SPECS = {
  HMAC_224: { macAlgorithm: 'HMAC_SHA_224', digest: 'sha224', materialBytes: 28 },
  HMAC_256: { macAlgorithm: 'HMAC_SHA_256', digest: 'sha256', materialBytes: 32 },
  HMAC_384: { macAlgorithm: 'HMAC_SHA_384', digest: 'sha384', materialBytes: 48 },
  HMAC_512: { macAlgorithm: 'HMAC_SHA_512', digest: 'sha512', materialBytes: 64 },
} as const;
type HmacKeySpec = keyof typeof HMAC_SPECS;

const SYMMETRIC_MATERIAL_BYTES = 32;
const MAX_PLAINTEXT_BYTES = 4096;

/** A key to create with a fixed id (seeding), e.g. the stack key whose ARN other config names. */
export interface KmsKeyImport {
  /** Bare key id (`1234abcd-...`) or full key ARN; an ARN must name this emulator's region and account. */
  keyId: string;
  /**
   * @default 'SYMMETRIC_DEFAULT'
   */
  keySpec?: KmsKeySpec;
  /**
   * Must fit the spec; derived from it when absent.
   * @default 'ENCRYPT_DECRYPT' for SYMMETRIC_DEFAULT, 'GENERATE_VERIFY_MAC' for HMAC specs
   */
  keyUsage?: KmsKeyUsage;
  /**
   * @default ''
   */
  description?: string;
  /**
   * Raw key material (32 bytes for SYMMETRIC_DEFAULT). Random when absent. When the key already
   * exists (a persisted keyring), its material is kept, and a different `material` is an error.
   */
  material?: Buffer;
  /**
   * Aliases (`alias/name`) to point at this key, created or re-pointed.
   * @default []
   */
  aliases?: string[];
  /**
   * @default {}
   */
  tags?: Record<string, string>;
}

export interface KmsEmulatorOptions extends ListenOptions {
  /**
   * Region in key ARNs.
   * @default 'us-east-1'
   */
  region?: string;
  /**
   * Account in key ARNs.
   * @default '000000000000'
   */
  accountId?: string;
  /**
   * JSON file that keeps the keyring across restarts; in memory only when absent.
   * @default undefined
   */
  dataFile?: string;
  /**
   * Keys to ensure at start (see {@link KmsKeyImport}).
   * @default []
   */
  keys?: KmsKeyImport[];
}

/** The `KeyMetadata` of `DescribeKey`, as this emulator reports it. */
export interface KmsKeyMetadata {
  AWSAccountId: string;
  KeyId: string;
  Arn: string;
  CreationDate: number;
  Enabled: boolean;
  Description: string;
  KeyUsage: KmsKeyUsage;
  KeyState: KmsKeyState;
  DeletionDate?: number;
  PendingDeletionWindowInDays?: number;
  Origin: 'AWS_KMS' | 'EXTERNAL';
  KeyManager: 'CUSTOMER';
  CustomerMasterKeySpec: KmsKeySpec;
  KeySpec: KmsKeySpec;
  EncryptionAlgorithms?: string[];
  MacAlgorithms?: string[];
  MultiRegion: false;
}

export interface KmsEmulator {
  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_KMS` or a client's `endpoint`. */
  endpoint: string;
  region: string;
  accountId: string;
  /** Creates a key with a fixed id, or confirms an existing one (idempotent; see {@link KmsKeyImport}). */
  importKey(key: KmsKeyImport): Promise<KmsKeyMetadata>;
  /** The ARN a key id has in this emulator. */
  keyArn(keyId: string): string;
  /** The ARN of the key an id, key ARN, alias name or alias ARN names; undefined when it names none. */
  resolveKeyArn(reference: string): string | undefined;
  /** Waits for pending writes of the data file, then stops the server. */
  stop(): Promise<void>;
}

/** `importKey` was given material for a key that already exists with other material. */
export class KmsKeyMaterialMismatchError extends Error {
  readonly keyId: string;

  constructor(keyId: string) {
    super(`Key ${keyId} already exists with different key material; refusing to replace it.`);
    this.name = 'KmsKeyMaterialMismatchError';
    this.keyId = keyId;
  }
}

const storedKeySchema = z.object({
  keyId: z.string(),
  keySpec: z.enum(KMS_KEY_SPECS),
  keyUsage: z.enum(KMS_KEY_USAGES),
  description: z.string(),
  state: z.enum([KMS_KEY_STATES.enabled, KMS_KEY_STATES.disabled, KMS_KEY_STATES.pendingDeletion]),
  origin: z.enum(['AWS_KMS', 'EXTERNAL']),
  creationDate: z.number(),
  deletionDate: z.number().optional(),
  pendingWindowInDays: z.number().optional(),
  rotationEnabled: z.boolean(),
  tags: z.record(z.string(), z.string()),
  material: z.string(),
});
type StoredKey = z.infer<typeof storedKeySchema>;

const keyringFileSchema = z.object({
  format: z.literal('local-kms/1'),
  keys: z.array(storedKeySchema),
  aliases: z.array(z.object({ aliasName: z.string(), targetKeyId: z.string(), creationDate: z.number() })),
});
type KeyringFile = z.infer<typeof keyringFileSchema>;

interface StoredAlias {
  aliasName: string;
  targetKeyId: string;
  creationDate: number;
}

const CIPHERTEXT_MAGIC = Buffer.from('LKMS', 'ascii');
const CIPHERTEXT_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

const keyIdSchema = z.string().min(1).max(2048);
const encryptionContextSchema = z.record(z.string(), z.string()).optional();
const encryptionAlgorithmSchema = z.literal('SYMMETRIC_DEFAULT').optional();
const plaintextSchema = base64Blob.refine(
  (bytes) => bytes.length >= 1 && bytes.length <= MAX_PLAINTEXT_BYTES,
  `Member must have length between 1 and ${MAX_PLAINTEXT_BYTES}`,
);
const tagsSchema = z.array(z.object({ TagKey: z.string().min(1), TagValue: z.string() })).optional();
const paginationSchema = {
  Limit: z.number().int().min(1).max(1000).optional(),
  Marker: z.string().optional(),
};
const aliasNameSchema = z
  .string()
  .regex(/^alias\/[a-zA-Z0-9/_-]{1,250}$/, 'Member must match alias/[a-zA-Z0-9/_-]+')
  .refine((name) => !name.startsWith('alias/aws/'), 'alias/aws/ is reserved for AWS managed keys');

/** Starts the KMS emulator. */
export async function startKmsEmulator(options: KmsEmulatorOptions = {}): Promise<KmsEmulator> {
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '000000000000';
  const arnPrefix = `arn:aws:kms:${region}:${accountId}:`;
  const store = options.dataFile ? new JsonFileStore(options.dataFile, keyringFileSchema) : undefined;

  const keys = new Map<string, StoredKey>();
  const aliases = new Map<string, StoredAlias>();
  const persisted = await store?.load();
  for (const key of persisted?.keys ?? []) keys.set(key.keyId, key);
  for (const alias of persisted?.aliases ?? []) aliases.set(alias.aliasName, alias);

  const keyArn = (keyId: string) => `${arnPrefix}key/${keyId}`;

  function snapshot(): KeyringFile {
    return { format: 'local-kms/1', keys: [...keys.values()], aliases: [...aliases.values()] };
  }
  async function persist(): Promise<void> {
    await store?.save(snapshot);
  }

  /** Keys whose deletion date has passed are gone, as in KMS. */
  function liveKey(keyId: string): StoredKey | undefined {
    const key = keys.get(keyId);
    if (key?.deletionDate !== undefined && key.deletionDate <= Date.now()) {
      keys.delete(keyId);
      for (const [name, alias] of aliases) if (alias.targetKeyId === keyId) aliases.delete(name);
      void persist();
      return undefined;
    }
    return key;
  }

  function resolveKey(reference: string): StoredKey {
    let local = reference;
    if (reference.startsWith('arn:')) {
      if (!reference.startsWith(arnPrefix)) {
        throw new AwsServiceError(
          'NotFoundException',
          `Invalid arn or not in ${region}/${accountId}: ${reference}`,
        );
      }
      local = reference.slice(arnPrefix.length);
      if (local.startsWith('key/')) local = local.slice('key/'.length);
      else if (!local.startsWith('alias/'))
        throw new AwsServiceError('InvalidArnException', `Invalid arn ${reference}`);
    }
    if (local.startsWith('alias/')) {
      const alias = aliases.get(local);
      const target = alias ? liveKey(alias.targetKeyId) : undefined;
      if (!target) throw new AwsServiceError('NotFoundException', `Alias ${arnPrefix}${local} is not found.`);
      return target;
    }
    const key = liveKey(local);
    if (!key) throw new AwsServiceError('NotFoundException', `Key '${keyArn(local)}' does not exist`);
    return key;
  }

  /** A key that can do `usage` right now, or the error KMS gives for why it cannot. */
  function usableKey(reference: string, usage: KmsKeyUsage): StoredKey {
    const key = resolveKey(reference);
    if (key.state === KMS_KEY_STATES.disabled) {
      throw new AwsServiceError('DisabledException', `${keyArn(key.keyId)} is disabled.`);
    }
    if (key.state === KMS_KEY_STATES.pendingDeletion) {
      throw new AwsServiceError('KMSInvalidStateException', `${keyArn(key.keyId)} is pending deletion.`);
    }
    if (key.keyUsage !== usage) {
      throw new AwsServiceError(
        'InvalidKeyUsageException',
        `${keyArn(key.keyId)} key usage is ${key.keyUsage} which is not valid for this operation.`,
      );
    }
    return key;
  }

  function metadata(key: StoredKey): KmsKeyMetadata {
    const hmac = key.keySpec === 'SYMMETRIC_DEFAULT' ? undefined : HMAC_SPECS[key.keySpec];
    return {
      AWSAccountId: accountId,
      KeyId: key.keyId,
      Arn: keyArn(key.keyId),
      CreationDate: toEpochSeconds(key.creationDate),
      Enabled: key.state === KMS_KEY_STATES.enabled,
      Description: key.description,
      KeyUsage: key.keyUsage,
      KeyState: key.state,
      DeletionDate: key.deletionDate === undefined ? undefined : toEpochSeconds(key.deletionDate),
      PendingDeletionWindowInDays: key.pendingWindowInDays,
      Origin: key.origin,
      KeyManager: 'CUSTOMER',
      CustomerMasterKeySpec: key.keySpec,
      KeySpec: key.keySpec,
      EncryptionAlgorithms: hmac ? undefined : ['SYMMETRIC_DEFAULT'],
      MacAlgorithms: hmac ? [hmac.macAlgorithm] : undefined,
      MultiRegion: false,
    };
  }

  function encrypt(key: StoredKey, plaintext: Buffer, context: Record<string, string> | undefined): Buffer {
    const header = ciphertextHeader(key.keyId);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(key.material, 'base64'), iv);
    cipher.setAAD(Buffer.concat([header, canonicalContext(context)]));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([header, iv, cipher.getAuthTag(), body]);
  }

  function decrypt(
    blob: Buffer,
    context: Record<string, string> | undefined,
    requestedKeyId: string | undefined,
  ): { key: StoredKey; plaintext: Buffer } {
    const parsed = parseCiphertext(blob);
    if (requestedKeyId !== undefined) {
      const requested = resolveKey(requestedKeyId);
      if (requested.keyId !== parsed.keyId) {
        throw new AwsServiceError(
          'IncorrectKeyException',
          'The key ID in the request does not identify a KMS key that can perform this operation.',
        );
      }
    }
    const key = usableKey(parsed.keyId, 'ENCRYPT_DECRYPT');
    try {
      const decipher = createDecipheriv('aes-256-gcm', Buffer.from(key.material, 'base64'), parsed.iv);
      decipher.setAAD(Buffer.concat([parsed.header, canonicalContext(context)]));
      decipher.setAuthTag(parsed.tag);
      return { key, plaintext: Buffer.concat([decipher.update(parsed.body), decipher.final()]) };
    } catch (error) {
      throw new AwsServiceError(
        'InvalidCiphertextException',
        'The ciphertext or its encryption context is invalid.',
        {
          cause: error,
        },
      );
    }
  }

  function computeMac(key: StoredKey, macAlgorithm: string, message: Buffer): Buffer {
    const spec = HMAC_SPECS[key.keySpec as HmacKeySpec];
    if (spec.macAlgorithm !== macAlgorithm) {
      throw new AwsServiceError(
        'InvalidKeyUsageException',
        `${keyArn(key.keyId)} (${key.keySpec}) does not support MAC algorithm ${macAlgorithm}.`,
      );
    }
    return createHmac(spec.digest, Buffer.from(key.material, 'base64')).update(message).digest();
  }

  function tagsOf(input: { TagKey: string; TagValue: string }[] | undefined): Record<string, string> {
    return Object.fromEntries((input ?? []).map((tag) => [tag.TagKey, tag.TagValue]));
  }

  async function importKey(input: KmsKeyImport): Promise<KmsKeyMetadata> {
    const keyArnPrefix = `${arnPrefix}key/`;
    const keyId = input.keyId.startsWith(keyArnPrefix) ? input.keyId.slice(keyArnPrefix.length) : input.keyId;
    if (!/^[A-Za-z0-9-]{1,128}$/.test(keyId)) {
      throw new RangeError(`Cannot import ${input.keyId}: expected a key id or a key ARN under ${arnPrefix}`);
    }
    const keySpec = input.keySpec ?? 'SYMMETRIC_DEFAULT';
    const keyUsage = input.keyUsage ?? defaultUsage(keySpec);
    checkSpecAndUsage(keySpec, keyUsage);
    const existing = keys.get(keyId);
    if (existing) {
      if (existing.keySpec !== keySpec) {
        throw new RangeError(`Key ${keyId} already exists with spec ${existing.keySpec}, not ${keySpec}`);
      }
      if (input.material && !input.material.equals(Buffer.from(existing.material, 'base64'))) {
        throw new KmsKeyMaterialMismatchError(keyId);
      }
    } else {
      if (input.material && input.material.length !== materialBytes(keySpec)) {
        throw new RangeError(`Key material of ${keySpec} must be ${materialBytes(keySpec)} bytes`);
      }
      keys.set(keyId, {
        keyId,
        keySpec,
        keyUsage,
        description: input.description ?? '',
        state: KMS_KEY_STATES.enabled,
        origin: input.material ? 'EXTERNAL' : 'AWS_KMS',
        creationDate: Date.now(),
        rotationEnabled: false,
        tags: { ...input.tags },
        material: (input.material ?? randomBytes(materialBytes(keySpec))).toString('base64'),
      });
    }
    for (const aliasName of input.aliases ?? []) {
      if (!aliasNameSchema.safeParse(aliasName).success)
        throw new RangeError(`Invalid alias name ${aliasName}`);
      const alias = aliases.get(aliasName);
      aliases.set(aliasName, {
        aliasName,
        targetKeyId: keyId,
        creationDate: alias?.creationDate ?? Date.now(),
      });
    }
    await persist();
    return metadata(resolveKey(keyId));
  }

  function setState(reference: string, allowed: readonly KmsKeyState[], next: KmsKeyState): StoredKey {
    const key = resolveKey(reference);
    if (!allowed.includes(key.state)) {
      throw new AwsServiceError('KMSInvalidStateException', `${keyArn(key.keyId)} is ${key.state}.`);
    }
    key.state = next;
    return key;
  }

  function page<T>(items: T[], limit: number | undefined, marker: string | undefined) {
    const start = marker === undefined ? 0 : Number.parseInt(marker, 10);
    if (!Number.isInteger(start) || start < 0 || start > items.length) {
      throw new AwsServiceError('InvalidMarkerException', 'The marker is not valid.');
    }
    const end = start + (limit ?? 100);
    const truncated = end < items.length;
    return {
      items: items.slice(start, end),
      Truncated: truncated,
      NextMarker: truncated ? String(end) : undefined,
    };
  }

  const operations = {
    CreateKey: operation(
      z.object({
        KeySpec: z.string().optional(),
        CustomerMasterKeySpec: z.string().optional(),
        KeyUsage: z.string().optional(),
        Description: z.string().max(8192).optional(),
        Origin: z.string().optional(),
        MultiRegion: z.boolean().optional(),
        Tags: tagsSchema,
      }),
      async (input) => {
        const keySpec = input.KeySpec ?? input.CustomerMasterKeySpec ?? 'SYMMETRIC_DEFAULT';
        if (!isSupportedSpec(keySpec)) {
          throw new AwsServiceError(
            'UnsupportedOperationException',
            `KeySpec ${keySpec} is not supported by the local KMS emulator (only ${KMS_KEY_SPECS.join(', ')}).`,
          );
        }
        if ((input.Origin ?? 'AWS_KMS') !== 'AWS_KMS' || input.MultiRegion) {
          throw new AwsServiceError(
            'UnsupportedOperationException',
            'Only single-Region keys with Origin AWS_KMS can be created through the API of the local KMS emulator.',
          );
        }
        const keyUsage = input.KeyUsage ?? defaultUsage(keySpec);
        if (!isKeyUsage(keyUsage))
          throw new AwsServiceError('ValidationException', `Invalid KeyUsage ${keyUsage}`);
        checkSpecAndUsage(keySpec, keyUsage);
        const key: StoredKey = {
          keyId: randomUUID(),
          keySpec,
          keyUsage,
          description: input.Description ?? '',
          state: KMS_KEY_STATES.enabled,
          origin: 'AWS_KMS',
          creationDate: Date.now(),
          rotationEnabled: false,
          tags: tagsOf(input.Tags),
          material: randomBytes(materialBytes(keySpec)).toString('base64'),
        };
        keys.set(key.keyId, key);
        await persist();
        return { KeyMetadata: metadata(key) };
      },
    ),

    DescribeKey: operation(z.object({ KeyId: keyIdSchema }), (input) => ({
      KeyMetadata: metadata(resolveKey(input.KeyId)),
    })),

    ListKeys: operation(z.object(paginationSchema), (input) => {
      const live = [...keys.keys()].map(liveKey).filter((key): key is StoredKey => key !== undefined);
      const { items, ...rest } = page(live, input.Limit, input.Marker);
      return { Keys: items.map((key) => ({ KeyId: key.keyId, KeyArn: keyArn(key.keyId) })), ...rest };
    }),

    UpdateKeyDescription: operation(
      z.object({ KeyId: keyIdSchema, Description: z.string().max(8192) }),
      async (input) => {
        resolveKey(input.KeyId).description = input.Description;
        await persist();
        return {};
      },
    ),

    EnableKey: operation(z.object({ KeyId: keyIdSchema }), async (input) => {
      setState(input.KeyId, [KMS_KEY_STATES.enabled, KMS_KEY_STATES.disabled], KMS_KEY_STATES.enabled);
      await persist();
      return {};
    }),

    DisableKey: operation(z.object({ KeyId: keyIdSchema }), async (input) => {
      setState(input.KeyId, [KMS_KEY_STATES.enabled, KMS_KEY_STATES.disabled], KMS_KEY_STATES.disabled);
      await persist();
      return {};
    }),

    ScheduleKeyDeletion: operation(
      z.object({ KeyId: keyIdSchema, PendingWindowInDays: z.number().int().min(7).max(30).optional() }),
      async (input) => {
        const key = setState(
          input.KeyId,
          [KMS_KEY_STATES.enabled, KMS_KEY_STATES.disabled],
          KMS_KEY_STATES.pendingDeletion,
        );
        key.pendingWindowInDays = input.PendingWindowInDays ?? 30;
        key.deletionDate = Date.now() + key.pendingWindowInDays * 86_400_000;
        await persist();
        return {
          KeyId: keyArn(key.keyId),
          DeletionDate: toEpochSeconds(key.deletionDate),
          KeyState: key.state,
          PendingWindowInDays: key.pendingWindowInDays,
        };
      },
    ),

    CancelKeyDeletion: operation(z.object({ KeyId: keyIdSchema }), async (input) => {
      // KMS leaves a key whose deletion was cancelled disabled.
      const key = setState(input.KeyId, [KMS_KEY_STATES.pendingDeletion], KMS_KEY_STATES.disabled);
      key.deletionDate = undefined;
      key.pendingWindowInDays = undefined;
      await persist();
      return { KeyId: keyArn(key.keyId) };
    }),

    Encrypt: operation(
      z.object({
        KeyId: keyIdSchema,
        Plaintext: plaintextSchema,
        EncryptionContext: encryptionContextSchema,
        EncryptionAlgorithm: encryptionAlgorithmSchema,
        DryRun: z.boolean().optional(),
      }),
      (input) => {
        const key = usableKey(input.KeyId, 'ENCRYPT_DECRYPT');
        rejectDryRun(input.DryRun);
        return {
          CiphertextBlob: encrypt(key, input.Plaintext, input.EncryptionContext).toString('base64'),
          KeyId: keyArn(key.keyId),
          EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
        };
      },
    ),

    Decrypt: operation(
      z.object({
        CiphertextBlob: base64Blob,
        KeyId: keyIdSchema.optional(),
        EncryptionContext: encryptionContextSchema,
        EncryptionAlgorithm: encryptionAlgorithmSchema,
        DryRun: z.boolean().optional(),
      }),
      (input) => {
        const { key, plaintext } = decrypt(input.CiphertextBlob, input.EncryptionContext, input.KeyId);
        rejectDryRun(input.DryRun);
        return {
          KeyId: keyArn(key.keyId),
          Plaintext: plaintext.toString('base64'),
          EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
        };
      },
    ),

    GenerateDataKey: operation(dataKeyRequestSchema(), (input) => {
      const key = usableKey(input.KeyId, 'ENCRYPT_DECRYPT');
      rejectDryRun(input.DryRun);
      const plaintext = randomBytes(dataKeyBytes(input.KeySpec, input.NumberOfBytes));
      return {
        CiphertextBlob: encrypt(key, plaintext, input.EncryptionContext).toString('base64'),
        Plaintext: plaintext.toString('base64'),
        KeyId: keyArn(key.keyId),
      };
    }),

    GenerateDataKeyWithoutPlaintext: operation(dataKeyRequestSchema(), (input) => {
      const key = usableKey(input.KeyId, 'ENCRYPT_DECRYPT');
      rejectDryRun(input.DryRun);
      const plaintext = randomBytes(dataKeyBytes(input.KeySpec, input.NumberOfBytes));
      return {
        CiphertextBlob: encrypt(key, plaintext, input.EncryptionContext).toString('base64'),
        KeyId: keyArn(key.keyId),
      };
    }),

    GenerateRandom: operation(z.object({ NumberOfBytes: z.number().int().min(1).max(1024) }), (input) => ({
      Plaintext: randomBytes(input.NumberOfBytes).toString('base64'),
    })),

    GenerateMac: operation(
      z.object({
        KeyId: keyIdSchema,
        Message: plaintextSchema,
        MacAlgorithm: z.string(),
        DryRun: z.boolean().optional(),
      }),
      (input) => {
        const key = usableKey(input.KeyId, 'GENERATE_VERIFY_MAC');
        const mac = computeMac(key, input.MacAlgorithm, input.Message);
        rejectDryRun(input.DryRun);
        return { Mac: mac.toString('base64'), MacAlgorithm: input.MacAlgorithm, KeyId: keyArn(key.keyId) };
      },
    ),

    VerifyMac: operation(
      z.object({
        KeyId: keyIdSchema,
        Message: plaintextSchema,
        MacAlgorithm: z.string(),
        Mac: base64Blob,
        DryRun: z.boolean().optional(),
      }),
      (input) => {
        const key = usableKey(input.KeyId, 'GENERATE_VERIFY_MAC');
        const expected = computeMac(key, input.MacAlgorithm, input.Message);
        rejectDryRun(input.DryRun);
        if (expected.length !== input.Mac.length || !timingSafeEqual(expected, input.Mac)) {
          // KMS answers an invalid MAC with an exception, never with MacValid: false.
          throw new AwsServiceError(
            'KMSInvalidMacException',
            'The MAC is not valid for the message and key.',
          );
        }
        return { KeyId: keyArn(key.keyId), MacValid: true, MacAlgorithm: input.MacAlgorithm };
      },
    ),

    CreateAlias: operation(
      z.object({ AliasName: aliasNameSchema, TargetKeyId: keyIdSchema }),
      async (input) => {
        if (aliases.has(input.AliasName)) {
          throw new AwsServiceError(
            'AlreadyExistsException',
            `An alias with the name ${arnPrefix}${input.AliasName} already exists`,
          );
        }
        const key = resolveTargetKey(input.TargetKeyId);
        aliases.set(input.AliasName, {
          aliasName: input.AliasName,
          targetKeyId: key.keyId,
          creationDate: Date.now(),
        });
        await persist();
        return {};
      },
    ),

    UpdateAlias: operation(
      z.object({ AliasName: aliasNameSchema, TargetKeyId: keyIdSchema }),
      async (input) => {
        const alias = aliases.get(input.AliasName);
        if (!alias)
          throw new AwsServiceError(
            'NotFoundException',
            `Alias ${arnPrefix}${input.AliasName} is not found.`,
          );
        alias.targetKeyId = resolveTargetKey(input.TargetKeyId).keyId;
        await persist();
        return {};
      },
    ),

    DeleteAlias: operation(z.object({ AliasName: aliasNameSchema }), async (input) => {
      if (!aliases.delete(input.AliasName)) {
        throw new AwsServiceError('NotFoundException', `Alias ${arnPrefix}${input.AliasName} is not found.`);
      }
      await persist();
      return {};
    }),

    ListAliases: operation(z.object({ KeyId: keyIdSchema.optional(), ...paginationSchema }), (input) => {
      const keyId = input.KeyId === undefined ? undefined : resolveKey(input.KeyId).keyId;
      const matching = [...aliases.values()].filter(
        (alias) => (keyId === undefined || alias.targetKeyId === keyId) && liveKey(alias.targetKeyId),
      );
      const { items, ...rest } = page(matching, input.Limit, input.Marker);
      return {
        Aliases: items.map((alias) => ({
          AliasName: alias.aliasName,
          AliasArn: `${arnPrefix}${alias.aliasName}`,
          TargetKeyId: alias.targetKeyId,
          CreationDate: toEpochSeconds(alias.creationDate),
        })),
        ...rest,
      };
    }),

    TagResource: operation(
      z.object({
        KeyId: keyIdSchema,
        Tags: z.array(z.object({ TagKey: z.string().min(1), TagValue: z.string() })),
      }),
      async (input) => {
        const key = resolveKey(input.KeyId);
        Object.assign(key.tags, tagsOf(input.Tags));
        await persist();
        return {};
      },
    ),

    UntagResource: operation(
      z.object({ KeyId: keyIdSchema, TagKeys: z.array(z.string()) }),
      async (input) => {
        const key = resolveKey(input.KeyId);
        for (const tagKey of input.TagKeys) delete key.tags[tagKey];
        await persist();
        return {};
      },
    ),

    ListResourceTags: operation(z.object({ KeyId: keyIdSchema, ...paginationSchema }), (input) => {
      const tags = Object.entries(resolveKey(input.KeyId).tags).map(([TagKey, TagValue]) => ({
        TagKey,
        TagValue,
      }));
      const { items, ...rest } = page(tags, input.Limit, input.Marker);
      return { Tags: items, ...rest };
    }),

    EnableKeyRotation: operation(z.object({ KeyId: keyIdSchema }), async (input) => {
      // Rotation is recorded, not performed: old ciphertexts must keep decrypting either way.
      usableKey(input.KeyId, 'ENCRYPT_DECRYPT').rotationEnabled = true;
      await persist();
      return {};
    }),

    DisableKeyRotation: operation(z.object({ KeyId: keyIdSchema }), async (input) => {
      usableKey(input.KeyId, 'ENCRYPT_DECRYPT').rotationEnabled = false;
      await persist();
      return {};
    }),

    GetKeyRotationStatus: operation(z.object({ KeyId: keyIdSchema }), (input) => {
      const key = resolveKey(input.KeyId);
      return { KeyRotationEnabled: key.rotationEnabled, KeyId: keyArn(key.keyId) };
    }),
  };

  /** Alias targets must be keys, not other aliases (KMS rule). */
  function resolveTargetKey(reference: string): StoredKey {
    if (reference.startsWith('alias/') || reference.startsWith(`${arnPrefix}alias/`)) {
      throw new AwsServiceError(
        'ValidationException',
        'TargetKeyId must be a key id or key ARN, not an alias.',
      );
    }
    return resolveKey(reference);
  }

  for (const key of options.keys ?? []) await importKey(key);

  const server = await startAwsJsonServer(
    {
      serviceTarget: 'TrentService',
      jsonVersion: '1.1',
      operations,
      validationErrorCode: 'ValidationException',
    },
    options,
  );

  return {
    endpoint: server.endpoint,
    region,
    accountId,
    importKey,
    keyArn,
    resolveKeyArn(reference) {
      try {
        return keyArn(resolveKey(reference).keyId);
      } catch {
        return undefined;
      }
    },
    async stop() {
      await store?.flush();
      await server.stop();
    },
  };
}

function dataKeyRequestSchema() {
  return z.object({
    KeyId: keyIdSchema,
    KeySpec: z.enum(['AES_256', 'AES_128']).optional(),
    NumberOfBytes: z.number().int().min(1).max(1024).optional(),
    EncryptionContext: encryptionContextSchema,
    DryRun: z.boolean().optional(),
  });
}

function dataKeyBytes(keySpec: 'AES_256' | 'AES_128' | undefined, numberOfBytes: number | undefined): number {
  if ((keySpec === undefined) === (numberOfBytes === undefined)) {
    throw new AwsServiceError('ValidationException', 'Specify exactly one of KeySpec or NumberOfBytes.');
  }
  if (numberOfBytes !== undefined) return numberOfBytes;
  return keySpec === 'AES_128' ? 16 : 32;
}

function rejectDryRun(dryRun: boolean | undefined): void {
  if (dryRun)
    throw new AwsServiceError('DryRunOperationException', 'The request would have succeeded.', {
      statusCode: 412,
    });
}

function isSupportedSpec(value: string): value is KmsKeySpec {
  return (KMS_KEY_SPECS as readonly string[]).includes(value);
}

function isKeyUsage(value: string): value is KmsKeyUsage {
  return (KMS_KEY_USAGES as readonly string[]).includes(value);
}

function defaultUsage(keySpec: string): KmsKeyUsage {
  return keySpec.startsWith('HMAC_') ? 'GENERATE_VERIFY_MAC' : 'ENCRYPT_DECRYPT';
}

function checkSpecAndUsage(keySpec: KmsKeySpec, keyUsage: KmsKeyUsage): void {
  if (defaultUsage(keySpec) !== keyUsage) {
    throw new AwsServiceError(
      'ValidationException',
      `KeyUsage ${keyUsage} is not compatible with KeySpec ${keySpec}.`,
    );
  }
}

function materialBytes(keySpec: KmsKeySpec): number {
  return keySpec === 'SYMMETRIC_DEFAULT' ? SYMMETRIC_MATERIAL_BYTES : HMAC_SPECS[keySpec].materialBytes;
}

function ciphertextHeader(keyId: string): Buffer {
  const id = Buffer.from(keyId, 'utf8');
  return Buffer.concat([CIPHERTEXT_MAGIC, Buffer.from([CIPHERTEXT_VERSION, id.length]), id]);
}

function parseCiphertext(blob: Buffer): {
  keyId: string;
  header: Buffer;
  iv: Buffer;
  tag: Buffer;
  body: Buffer;
} {
  const invalid = () =>
    new AwsServiceError('InvalidCiphertextException', 'The ciphertext is not a local KMS ciphertext.');
  const fixed = CIPHERTEXT_MAGIC.length + 2;
  if (blob.length < fixed || !blob.subarray(0, CIPHERTEXT_MAGIC.length).equals(CIPHERTEXT_MAGIC))
    throw invalid();
  if (blob[CIPHERTEXT_MAGIC.length] !== CIPHERTEXT_VERSION) throw invalid();
  const idLength = blob[CIPHERTEXT_MAGIC.length + 1] ?? 0;
  const headerLength = fixed + idLength;
  if (idLength === 0 || blob.length < headerLength + IV_BYTES + TAG_BYTES) throw invalid();
  return {
    keyId: blob.subarray(fixed, headerLength).toString('utf8'),
    header: blob.subarray(0, headerLength),
    iv: blob.subarray(headerLength, headerLength + IV_BYTES),
    tag: blob.subarray(headerLength + IV_BYTES, headerLength + IV_BYTES + TAG_BYTES),
    body: blob.subarray(headerLength + IV_BYTES + TAG_BYTES),
  };
}

/** Order-independent bytes of an encryption context: KMS treats `{a,b}` and `{b,a}` as the same. */
function canonicalContext(context: Record<string, string> | undefined): Buffer {
  const entries = Object.entries(context ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Buffer.from(JSON.stringify(entries), 'utf8');
}
