/**
 * Loopback emulators of the AWS services the stack uses, for the local stack and the tests.
 * DynamoDB (dynalite) and S3 (s3rver) come from npm; these cover the rest. See README.md here.
 */
export type { JsonObject, JsonPrimitive, JsonValue, ListenOptions } from './aws-json-protocol.js';
export * from './event-bridge.js';
export * from './event-pattern.js';
export { CorruptStateFileError } from './json-file-store.js';
export * from './kms.js';
export * from './sqs.js';
export * from './sqs-poller.js';
export * from './step-functions.js';
