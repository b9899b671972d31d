import { describe, expect, it } from 'vitest';
import {
  DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES,
  describeBytes,
  LAMBDA_EVENT_ENVELOPE_HEADROOM_BYTES,
  LAMBDA_SYNC_REQUEST_PAYLOAD_BYTES,
  largestMultipartFileForLambda,
  maxMultipartBodyBytes,
} from '../../lambdas/assets/upload-limits.js';
import { multipartBody } from '../support/sample-media.js';

/** What API Gateway puts in the invoke event for a binary body of `bytes` bytes. */
const base64Length = (bytes: number) => 4 * Math.ceil(bytes / 3);

describe('the deployed multipart cap', () => {
  it("keeps the largest body it allows, base64-encoded, within Lambda's payload limit with room for the event", () => {
    // The pre-parse limit: the largest body the handler itself reads (and answers 413 above the cap).
    const largestBody = maxMultipartBodyBytes(DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES);
    expect(base64Length(largestBody) + LAMBDA_EVENT_ENVELOPE_HEADROOM_BYTES).toBeLessThanOrEqual(
      LAMBDA_SYNC_REQUEST_PAYLOAD_BYTES,
    );
    // An actual multipart body of a file at the cap, with a long file name, fits too.
    const { body } = multipartBody(
      'file',
      `${'a'.repeat(255)}.mp4`,
      'video/mp4',
      Buffer.alloc(DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES),
    );
    expect(body.length).toBeLessThanOrEqual(largestBody);
  });

  it('is about 4.4 MiB: Lambda, not the 10 MiB of API Gateway, is the limit', () => {
    expect(DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES).toBe(4_653_056);
    expect(describeBytes(DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES)).toBe('4.4 MiB');
    expect(DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES).toBe(largestMultipartFileForLambda());
    // Within a KiB of the most the payload limit allows: headroom, not waste.
    const unrounded =
      Math.floor((LAMBDA_SYNC_REQUEST_PAYLOAD_BYTES - LAMBDA_EVENT_ENVELOPE_HEADROOM_BYTES) / 4) * 3;
    expect(maxMultipartBodyBytes(DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES)).toBeGreaterThan(unrounded - 1024);
  });

  it('follows the payload limit and the headroom it is computed from', () => {
    expect(largestMultipartFileForLambda(1024 * 1024, 0)).toBeLessThan(1024 * 1024 * 0.75);
    expect(largestMultipartFileForLambda(LAMBDA_SYNC_REQUEST_PAYLOAD_BYTES, 1024 * 1024)).toBeLessThan(
      DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES,
    );
  });
});

describe('describeBytes', () => {
  it.each([
    [900, '900 bytes'],
    [256 * 1024, '256 KiB'],
    [32 * 1024 * 1024, '32 MiB'],
    [1024 * 1024 * 1024, '1 GiB'],
  ])('%i bytes read as %s', (bytes, text) => {
    expect(describeBytes(bytes)).toBe(text);
  });
});
