/**
 * The spec's encryption errors. Messages name no key ARN or KMS detail: they reach API clients of
 * the workspace, while the admin CLI (`encryption show`) gives the operator the full picture.
 */
import { ConflictError, type ErrorDetail, ForbiddenError, ServiceError } from '../core/errors.js';

export const ENCRYPTION_ERROR_CODES = {
  invalidKey: 'invalid_encryption_key',
  setupPending: 'encryption_setup_pending',
  setupFailed: 'encryption_setup_failed',
  disabled: 'encryption_disabled',
  crossTreeTransfer: 'encryption_cross_tree_transfer',
  temporarilyUnavailable: 'encryption_temporarily_unavailable',
} as const;

/** 400: the key reference is not a full KMS key ARN in the stack's region. */
export class InvalidEncryptionKeyError extends ServiceError {
  constructor(message: string, param = 'key_arn') {
    super(400, ENCRYPTION_ERROR_CODES.invalidKey, message, { param });
  }
}

/** 409: the workspace's key is being set up; media writes wait for it. */
export class EncryptionSetupPendingError extends ConflictError {
  constructor() {
    super(
      "This workspace's customer-managed encryption key is still being set up; media cannot be written until the setup completes. Retry later.",
      ENCRYPTION_ERROR_CODES.setupPending,
    );
  }
}

/** 409: the setup failed; `errors` is its per-step report. */
export class EncryptionSetupFailedError extends ConflictError {
  constructor(report: ErrorDetail[]) {
    super(
      "The setup of this workspace's customer-managed encryption key failed, so media cannot be written. The per-step report is in `errors`; an administrator must fix the key and set it again.",
      ENCRYPTION_ERROR_CODES.setupFailed,
      { errors: report },
    );
  }
}

/** 403: the workspace's key exists but cannot be used (disabled, scheduled for deletion, deleted, denied). */
export class EncryptionDisabledError extends ForbiddenError {
  constructor(reason: string) {
    super(
      `Media cannot be written: ${reason} Customer-managed encryption is required for this workspace.`,
      ENCRYPTION_ERROR_CODES.disabled,
    );
  }
}

/** 409: media would move between workspaces encrypted under different keys. */
export class EncryptionCrossTreeTransferError extends ConflictError {
  constructor() {
    super(
      'Media cannot be moved or copied between a workspace with a customer-managed encryption key and a workspace encrypted with another key.',
      ENCRYPTION_ERROR_CODES.crossTreeTransfer,
    );
  }
}

/** 503: whether (and how) to encrypt could not be decided right now; retryable. */
export class EncryptionTemporarilyUnavailableError extends ServiceError {
  // The message states a fact about availability and carries no internal detail: clients may read it.
  override readonly expose = true;

  constructor(retryAfterSeconds: number, cause?: unknown) {
    super(
      503,
      ENCRYPTION_ERROR_CODES.temporarilyUnavailable,
      "The workspace's encryption key requirement could not be determined right now. Retry with backoff.",
      { headers: { 'Retry-After': String(retryAfterSeconds) }, cause },
    );
  }
}
