/**
 * How media of a workspace is encrypted at rest. Every media write asks here first: by default the
 * stack's own customer-managed key; a workspace that brought its own key ("BYOK") gets SSE-KMS with
 * that key, and writes are refused while its setup is pending or failed, when the key cannot be
 * used, or when KMS cannot decide. Decisions fail closed: when the workspace's encryption cannot be
 * read, nothing is written.
 */
import { getWorkspace, type WorkspaceEncryption } from '../accounts/workspaces.js';
import { config } from '../core/config.js';
import {
  EncryptionCrossTreeTransferError,
  EncryptionDisabledError,
  EncryptionSetupFailedError,
  EncryptionSetupPendingError,
  EncryptionTemporarilyUnavailableError,
} from '../encryption/errors.js';
import { customerKeyUsability } from '../encryption/key-usability.js';

/** The SSE parameters of an S3 write. */
export interface ObjectEncryption {
  ServerSideEncryption: 'aws:kms';
  SSEKMSKeyId: string;
  BucketKeyEnabled: true;
}

function unavailable(cause?: unknown): EncryptionTemporarilyUnavailableError {
  return new EncryptionTemporarilyUnavailableError(config().encryptionRetryAfterSeconds, cause);
}

/** The workspace's customer key settings (consistent read); undefined = the stack key. */
async function workspaceEncryption(workspaceId: string): Promise<WorkspaceEncryption | undefined> {
  try {
    // A workspace that does not exist has no customer key; callers have authenticated it anyway.
    return (await getWorkspace(workspaceId, true))?.encryption;
  } catch (error) {
    throw unavailable(error);
  }
}

/** The encryption every media write of `workspaceId` must use; throws the spec's encryption errors. */
export async function encryptionForMediaWrite(workspaceId: string): Promise<ObjectEncryption> {
  const encryption = await workspaceEncryption(workspaceId);
  if (!encryption) {
    return { ServerSideEncryption: 'aws:kms', SSEKMSKeyId: config().stackKeyId, BucketKeyEnabled: true };
  }
  switch (encryption.state) {
    case 'pending':
      throw new EncryptionSetupPendingError();
    case 'failed':
      throw new EncryptionSetupFailedError(encryption.report);
    case 'active': {
      const usability = await customerKeyUsability(encryption.key_arn);
      if (usability.usable === 'unknown') throw unavailable(usability.cause);
      if (!usability.usable) throw new EncryptionDisabledError(usability.reason);
      return { ServerSideEncryption: 'aws:kms', SSEKMSKeyId: encryption.key_arn, BucketKeyEnabled: true };
    }
    default:
      // A state this code does not know (written by a newer version): refuse rather than guess a key.
      throw unavailable();
  }
}

/**
 * Refuses moving or copying media from one workspace to another when they are encrypted under
 * different keys: a customer-key workspace's media never leaves its key, and no other media enters
 * it. Two workspaces on the stack key, or on the same customer key, may exchange media.
 */
export async function assertSameEncryptionDomain(
  fromWorkspaceId: string,
  toWorkspaceId: string,
): Promise<void> {
  if (fromWorkspaceId === toWorkspaceId) return;
  const [from, to] = await Promise.all([
    workspaceEncryption(fromWorkspaceId),
    workspaceEncryption(toWorkspaceId),
  ]);
  // Any recorded customer key counts, whatever its state: a pending or failed setup still says
  // which key the workspace's media belongs under.
  if ((from?.key_arn ?? null) !== (to?.key_arn ?? null)) throw new EncryptionCrossTreeTransferError();
}
