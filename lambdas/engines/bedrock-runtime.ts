/**
 * What the Amazon Bedrock engines (text generation's Converse, image and video generation's Nova
 * models) share: the runtime client, made through `configuredClient`, and what a Bedrock error means
 * for a job, before each capability names its code.
 */
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { configuredClient } from '../core/aws-clients.js';
import { onProcessReset } from '../core/process-state.js';

let client: BedrockRuntimeClient | undefined;

/** The process's Bedrock Runtime client, created on first use. */
export function bedrockRuntimeClient(): BedrockRuntimeClient {
  client ??= configuredClient(new BedrockRuntimeClient({}));
  return client;
}

export function resetBedrockRuntimeClient(): void {
  client = undefined;
}
onProcessReset(resetBedrockRuntimeClient);

export const BEDROCK_FAILURES = {
  /** Model access not granted, model unknown here, throttled, quota, credentials: not this request's fault. */
  unavailable: 'unavailable',
  /** Bedrock refused the request itself (ValidationException). */
  invalidInput: 'invalid_input',
  /** The model ran and failed or timed out. */
  failed: 'failed',
} as const;
export type BedrockFailure = (typeof BEDROCK_FAILURES)[keyof typeof BEDROCK_FAILURES];

/** How a Bedrock Runtime error reads for a job. */
export function bedrockFailureOf(error: unknown): BedrockFailure {
  const name = (error as { name?: string }).name ?? '';
  if (name === 'ValidationException') return BEDROCK_FAILURES.invalidInput;
  if (
    /AccessDenied|ResourceNotFound|Throttl|ServiceUnavailable|ServiceQuotaExceeded|ModelNotReady|Credential|ExpiredToken|Unrecognized/i.test(
      name,
    )
  ) {
    return BEDROCK_FAILURES.unavailable;
  }
  return BEDROCK_FAILURES.failed;
}

/** `Name: message` of an SDK error, for messages. */
export const describeBedrockError = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);
