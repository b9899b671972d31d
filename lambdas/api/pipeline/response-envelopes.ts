/**
 * The response envelopes of the API as zod schemas, for the endpoints' declared responses
 * (`endpoint(..., { response })`): the shapes `respond` (http.ts) sends, around a resource's schema.
 */
import { z } from 'zod';

/** `{ data }`: `respond.ok`, `created`, `accepted`. */
export const dataEnvelope = <Data extends z.ZodType>(data: Data) => z.object({ data });

/** `{ error: null, data }`: `respond.okWithNullError`. */
export const dataWithNullErrorEnvelope = <Data extends z.ZodType>(data: Data) =>
  z.object({ error: z.null(), data });

/** `{ code: 100, data, msg: null, message: null }`: `respond.okV1`, the hosted API's `/v1` success. */
export const v1Envelope = <Data extends z.ZodType>(data: Data) =>
  z.object({
    code: z.literal(100).meta({ description: 'The `/v1` success code.' }),
    data,
    msg: z.null(),
    message: z.null(),
  });

/** `{ data: [...], has_more, next_token }`: `respond.list`. */
export const listEnvelope = <Item extends z.ZodType>(item: Item) =>
  z.object({
    data: z.array(item),
    has_more: z.boolean(),
    next_token: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `token` for the next page; null on the last.' }),
  });

/** Unix time in seconds. */
export const unixSeconds = z.number().int().nonnegative();
