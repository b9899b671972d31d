/**
 * How large a file `POST /v3/assets` can take, and why. The multipart body travels whole through API
 * Gateway into one synchronous Lambda invocation, so the binding limit deployed is Lambda's, not API
 * Gateway's 10 MiB: multipart is one of the API's binary media types (lib/stack/service-api.ts), so
 * API Gateway base64-encodes the body into the invoke event, and Lambda refuses an event of more than
 * its synchronous request payload limit (the whole event JSON: body, both copies of the headers, the
 * request context). A body that does not fit fails at the integration, before any code of ours runs,
 * with API Gateway's own answer instead of the service's envelope. The deployed cap is therefore set
 * below that, here, once: the stack's default and the largest value synth accepts are both this.
 */

/**
 * Lambda's synchronous invocation request payload limit, in bytes: "6 MB" in the Lambda quotas, which
 * Lambda enforces as 6 MiB (its error reads "Request must be smaller than 6291456 bytes").
 */
export const LAMBDA_SYNC_REQUEST_PAYLOAD_BYTES = 6 * 1024 * 1024;

/**
 * Room left in the invoke event for everything but the body. API Gateway caps the request line and
 * headers together at 10 KiB; a REST proxy event carries the headers twice (`headers` and
 * `multiValueHeaders`), the query string twice, the request context and the authorizer's context,
 * all JSON-escaped. 64 KiB is well above that worst case.
 */
export const LAMBDA_EVENT_ENVELOPE_HEADROOM_BYTES = 64 * 1024;

/**
 * Room in a multipart body for everything but the file's bytes: the boundary lines and the part's
 * headers (its name, file name and type). A file name is short next to this; a body larger than the
 * file cap plus this allowance cannot hold a file within the cap.
 */
export const MULTIPART_FRAMING_ALLOWANCE_BYTES = 16 * 1024;

/** The largest body, in bytes, whose base64 encoding plus `headroomBytes` fits `payloadLimitBytes`. */
function largestBodyForPayload(payloadLimitBytes: number, headroomBytes: number): number {
  // Base64 writes 4 characters for every 3 bytes (the last group padded to 4).
  return Math.floor((payloadLimitBytes - headroomBytes) / 4) * 3;
}

/**
 * The largest file `POST /v3/assets` can take through API Gateway and a synchronous Lambda invoke:
 * the body that fits the payload limit after base64 expansion and the event's headroom, less the
 * multipart framing, rounded down to whole KiB. With Lambda's limit: 4,653,056 bytes (4,544 KiB, about
 * 4.4 MiB).
 */
export function largestMultipartFileForLambda(
  payloadLimitBytes = LAMBDA_SYNC_REQUEST_PAYLOAD_BYTES,
  headroomBytes = LAMBDA_EVENT_ENVELOPE_HEADROOM_BYTES,
): number {
  const fileBytes =
    largestBodyForPayload(payloadLimitBytes, headroomBytes) - MULTIPART_FRAMING_ALLOWANCE_BYTES;
  return Math.floor(fileBytes / 1024) * 1024;
}

/** The deployed default of `MAX_MULTIPART_UPLOAD_BYTES`, and the most synth accepts (context `maxMultipartUploadBytes`). */
export const DEPLOYED_MAX_MULTIPART_UPLOAD_BYTES = largestMultipartFileForLambda();

/**
 * The largest multipart body that can hold a file of at most `maxFileBytes`: anything longer is
 * refused before it is parsed.
 */
export function maxMultipartBodyBytes(maxFileBytes: number): number {
  return maxFileBytes + MULTIPART_FRAMING_ALLOWANCE_BYTES;
}

/** A byte count as people read it: `4.4 MiB`, `256 KiB`, `900 bytes`. */
export function describeBytes(bytes: number): string {
  const units: [number, string][] = [
    [1024 * 1024 * 1024, 'GiB'],
    [1024 * 1024, 'MiB'],
    [1024, 'KiB'],
  ];
  for (const [size, unit] of units) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}
