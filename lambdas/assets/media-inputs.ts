/**
 * Media inputs of every create that takes media (video backgrounds, lipsync audio, translation
 * sources, avatar photos, HyperFrames zips, SRT files...). A request field holds one of:
 *
 * - `{type: "asset_id", asset_id}`: a ready asset of the caller's workspace;
 * - `{type: "url", url}`: a public HTTPS URL, downloaded once under the outbound SSRF guard
 *   (docs/architecture.md, "Events and webhooks"): checked before and after DNS, the connection pinned to the checked
 *   address, redirects never followed, with a deadline and a size cap;
 * - `{type: "base64", media_type, data}`: the file inline, decoded strictly and size-capped.
 *
 * Handlers validate the shape with `mediaInputSchema` (zod); `resolveMediaInput` does the rest: it
 * decides the type from the bytes, checks the kind the field accepts, and stores downloaded or inline
 * media in the workspace's media prefix (with the workspace's encryption). Every refusal is 400
 * `invalid_parameter` naming the field path (`background.url`) and saying what was expected and what
 * arrived. Errors of our own storage and encryption propagate unchanged.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { z } from 'zod';
import { InvalidParameterError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import {
  checkOutboundUrl,
  describeNetworkError,
  isCertificateError,
  type OutboundPolicy,
  OutboundUrlError,
  outboundPolicy,
  pinnedLookup,
  resolveOutboundAddress,
} from '../core/network-guard.js';
import { parseInput } from '../core/validation.js';
import { mediaKeys } from '../media/media-keys.js';
import { putMediaObject } from '../media/media-store.js';
import {
  ACCEPTED_MEDIA_TYPES,
  type AcceptedMimeType,
  type DetectedMedia,
  detectMediaType,
  type MediaKind,
  normaliseMimeType,
  SNIFF_BYTES,
} from '../media/media-types.js';
import { ASSET_STATUS, getAsset } from './assets.js';

const MiB = 1024 * 1024;

/** Limits of a media input; every one can be overridden per field through the resolver's options. */
export const MEDIA_INPUT_DEFAULTS = {
  /** Largest download from a URL, in bytes. */
  maxUrlBytes: 200 * MiB,
  /**
   * Largest decoded inline file, in bytes. Request bodies are at most 10 MiB through API Gateway, so
   * this only matters for callers that are not behind it.
   */
  maxBase64Bytes: 20 * MiB,
  /** DNS, connect and response headers of a download, and the longest pause between body chunks (ms). */
  timeoutMs: 15_000,
  /** The whole download, headers to last byte (ms). */
  downloadTimeoutMs: 120_000,
} as const;

/** Longest URL accepted. */
export const MAX_MEDIA_URL_LENGTH = 2048;

export const MEDIA_INPUT_TYPES = ['url', 'asset_id', 'base64'] as const;

/** A media input of a request body; strict objects discriminated by `type`. */
export const mediaInputSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({
      type: z.literal('url'),
      url: z
        .string()
        .min(1, { error: 'must not be empty' })
        .max(MAX_MEDIA_URL_LENGTH, { error: `must be at most ${MAX_MEDIA_URL_LENGTH} characters` }),
    }),
    z.strictObject({
      type: z.literal('asset_id'),
      asset_id: z.string().min(1, { error: 'must not be empty' }).max(64, { error: 'is not an asset id' }),
    }),
    z.strictObject({
      type: z.literal('base64'),
      media_type: z
        .string()
        .min(1, { error: 'must not be empty' })
        .max(255, { error: 'must be at most 255 characters' }),
      data: z.string().min(1, { error: 'must not be empty' }),
    }),
  ],
  {
    error: (issue) =>
      issue.code === 'invalid_union' ? `must be one of: ${MEDIA_INPUT_TYPES.join(', ')}` : undefined,
  },
);
export type MediaInput = z.output<typeof mediaInputSchema>;

export interface MediaInputOptions {
  /** The field's path in the request (`background`, `scenes[2].audio`); errors name `${param}.url` etc. */
  param: string;
  /**
   * Field paths of a request that spreads the input over flat fields (`audio_url`, `audio_asset_id`).
   * @default `${param}.url`, `${param}.asset_id`, ...
   */
  fields?: Partial<Record<'url' | 'asset_id' | 'data' | 'media_type', string>>;
  /** The kinds the field takes. */
  accept: readonly MediaKind[];
  /**
   * Largest file the field takes, in bytes, whatever the source (an asset larger than this is refused
   * too). @default MEDIA_INPUT_DEFAULTS.maxUrlBytes for URLs, maxBase64Bytes for base64, none for assets
   */
  maxBytes?: number;
  /** URL downloads: see `MEDIA_INPUT_DEFAULTS.timeoutMs`. */
  timeoutMs?: number;
  /** URL downloads: see `MEDIA_INPUT_DEFAULTS.downloadTimeoutMs`. */
  downloadTimeoutMs?: number;
}

export interface ResolvedMedia {
  source: 'asset' | 'url' | 'base64';
  /** Where the bytes are in the media bucket: the asset's object, or a new input object. */
  objectKey: string;
  mimeType: AcceptedMimeType;
  kind: MediaKind;
  sizeBytes: number;
  /** Set when `source` is `asset`. */
  assetId?: string;
}

/** Resolves a media input of `workspaceId`: validates, downloads or decodes, type-checks, stores. */
export async function resolveMediaInput(
  workspaceId: string,
  input: unknown,
  options: MediaInputOptions,
): Promise<ResolvedMedia> {
  const parsed = parseInput(mediaInputSchema, input, options.param);
  switch (parsed.type) {
    case 'asset_id':
      return resolveAsset(workspaceId, parsed.asset_id, options);
    case 'url':
      return resolveUrl(workspaceId, parsed.url, options);
    case 'base64':
      return resolveBase64(workspaceId, parsed.media_type, parsed.data, options);
  }
}

// ---------------------------------------------------------------------------------------------
// Messages

const KIND_NOUNS: Record<MediaKind, string> = {
  image: 'an image',
  video: 'a video',
  audio: 'audio',
  document: 'a document',
  subtitle: 'subtitles',
  archive: 'a zip archive',
  font: 'a font',
};

/** `an image (png, jpg, webp) or a video (mp4, mov, webm)`. */
export function describeAccepted(accept: readonly MediaKind[]): string {
  const parts = accept.map((kind) => {
    const extensions = Object.values(ACCEPTED_MEDIA_TYPES)
      .filter((type) => type.kind === kind)
      .map((type) => type.extension);
    return `${KIND_NOUNS[kind]} (${extensions.join(', ')})`;
  });
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}`;
}

function formatBytes(bytes: number): string {
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes} bytes (${bytes / MiB} MiB)`;
  if (bytes >= MiB) return `${bytes} bytes (${(bytes / MiB).toFixed(1)} MiB)`;
  return `${bytes} bytes`;
}

// ---------------------------------------------------------------------------------------------
// Type checks

/** Detects the type of received bytes and checks its kind; throws 400 naming `field`. */
async function detectAccepted(
  bytes: Uint8Array,
  field: string,
  accept: readonly MediaKind[],
): Promise<DetectedMedia> {
  if (bytes.length === 0) {
    throw new InvalidParameterError(`\`${field}\` is empty; expected ${describeAccepted(accept)}.`, field);
  }
  const detected = await detectMediaType(bytes.subarray(0, SNIFF_BYTES));
  if (!detected) {
    throw new InvalidParameterError(
      `\`${field}\` is not a file of a supported type; expected ${describeAccepted(accept)}.`,
      field,
    );
  }
  checkKind(detected.kind, detected.mimeType, field, accept);
  return detected;
}

function checkKind(kind: MediaKind, mimeType: string, field: string, accept: readonly MediaKind[]): void {
  if (!accept.includes(kind)) {
    throw new InvalidParameterError(
      `\`${field}\` is ${KIND_NOUNS[kind]} (${mimeType}); expected ${describeAccepted(accept)}.`,
      field,
    );
  }
}

/**
 * Stores downloaded or inline bytes under a new input key, with the workspace's encryption (its
 * errors propagate). The type is checked before: a refused file is never stored.
 */
async function storeInput(
  workspaceId: string,
  source: 'url' | 'base64',
  bytes: Uint8Array,
  detected: DetectedMedia,
): Promise<ResolvedMedia> {
  const objectKey = mediaKeys.input(workspaceId, newId());
  await putMediaObject(workspaceId, objectKey, bytes, detected.mimeType);
  return { source, objectKey, mimeType: detected.mimeType, kind: detected.kind, sizeBytes: bytes.length };
}

// ---------------------------------------------------------------------------------------------
// asset_id

async function resolveAsset(
  workspaceId: string,
  assetId: string,
  options: MediaInputOptions,
): Promise<ResolvedMedia> {
  const field = options.fields?.asset_id ?? `${options.param}.asset_id`;
  // Another workspace's asset is not found either: the answer says nothing about other workspaces.
  const asset = await getAsset(workspaceId, assetId);
  if (!asset) {
    throw new InvalidParameterError(`\`${field}\`: no asset ${assetId} exists in this workspace.`, field);
  }
  if (asset.status === ASSET_STATUS.pendingUpload) {
    throw new InvalidParameterError(
      `\`${field}\`: asset ${assetId} is still pending upload; upload its file and complete it before using it.`,
      field,
    );
  }
  if (asset.status !== ASSET_STATUS.ready || !asset.kind) {
    const reason = asset.failure_message ? ` (${asset.failure_message})` : '';
    throw new InvalidParameterError(
      `\`${field}\`: the upload of asset ${assetId} failed${reason}; it cannot be used.`,
      field,
    );
  }
  checkKind(asset.kind, asset.mime_type, field, options.accept);
  if (options.maxBytes !== undefined && asset.size_bytes > options.maxBytes) {
    throw new InvalidParameterError(
      `\`${field}\`: asset ${assetId} has ${formatBytes(asset.size_bytes)}; at most ${formatBytes(options.maxBytes)} are accepted here.`,
      field,
    );
  }
  return {
    source: 'asset',
    objectKey: asset.object_key,
    mimeType: asset.mime_type,
    kind: asset.kind,
    sizeBytes: asset.size_bytes,
    assetId,
  };
}

// ---------------------------------------------------------------------------------------------
// base64

const BASE64_ALPHABET = /^[A-Za-z0-9+/]*={0,2}$/;

/** The decoded size of standard, padded base64 of this length (without looking at the characters). */
function base64DecodedLength(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return (data.length / 4) * 3 - padding;
}

/**
 * Decodes standard base64 (RFC 4648 §4, `=`-padded, no whitespace, no `data:` prefix) strictly:
 * anything `Buffer.from` would silently skip or accept loosely is a 400 naming `field`. The size is
 * checked from the length before anything is decoded.
 */
export function decodeBase64Strict(data: string, maxBytes: number, field: string): Buffer {
  if (/^data:/i.test(data)) {
    throw new InvalidParameterError(
      `\`${field}\` must be bare base64, without a \`data:\` URL prefix; put the type in \`media_type\`.`,
      field,
    );
  }
  const invalid = () =>
    new InvalidParameterError(
      `\`${field}\` is not valid base64: expected standard base64 (A-Z, a-z, 0-9, +, /) padded with = to a multiple of 4 characters, without whitespace.`,
      field,
    );
  if (data.length % 4 !== 0) throw invalid();
  const size = base64DecodedLength(data);
  if (size > maxBytes) {
    throw new InvalidParameterError(
      `\`${field}\` decodes to ${formatBytes(size)}; at most ${formatBytes(maxBytes)} are accepted inline. Upload larger files as an asset.`,
      field,
    );
  }
  if (!BASE64_ALPHABET.test(data)) throw invalid();
  // Non-zero bits in the last character's unused part mean the text is not canonical base64.
  const tail = data.slice(-4);
  if (tail && Buffer.from(tail, 'base64').toString('base64') !== tail) throw invalid();
  const bytes = Buffer.from(data, 'base64');
  if (bytes.length !== size) throw invalid();
  return bytes;
}

async function resolveBase64(
  workspaceId: string,
  mediaType: string,
  data: string,
  options: MediaInputOptions,
): Promise<ResolvedMedia> {
  const dataField = options.fields?.data ?? `${options.param}.data`;
  const typeField = options.fields?.media_type ?? `${options.param}.media_type`;
  const declared = normaliseMimeType(mediaType);
  if (!declared) {
    throw new InvalidParameterError(
      `\`${typeField}\` ${JSON.stringify(mediaType)} is not a supported media type; expected ${describeAccepted(options.accept)}.`,
      typeField,
    );
  }
  const bytes = decodeBase64Strict(data, options.maxBytes ?? MEDIA_INPUT_DEFAULTS.maxBase64Bytes, dataField);
  const detected = await detectAccepted(bytes, dataField, options.accept);
  if (detected.mimeType !== declared) {
    throw new InvalidParameterError(
      `\`${typeField}\` says ${declared}, but \`${dataField}\` is ${detected.mimeType}.`,
      typeField,
    );
  }
  return storeInput(workspaceId, 'base64', bytes, detected);
}

// ---------------------------------------------------------------------------------------------
// url

/** Why a download failed, phrased to follow the field name: "`background.url` <message>." */
class DownloadProblem extends Error {}

/** A network error of a download, as the client can act on it. */
function networkProblem(error: unknown, host: string): DownloadProblem {
  const hint = isCertificateError(error)
    ? '; media hosts need a certificate from a public CA for their name'
    : '';
  return new DownloadProblem(`could not be downloaded: ${describeNetworkError(error, host)}${hint}`);
}

interface DownloadLimits {
  maxBytes: number;
  timeoutMs: number;
  downloadTimeoutMs: number;
}

async function resolveUrl(
  workspaceId: string,
  raw: string,
  options: MediaInputOptions,
): Promise<ResolvedMedia> {
  const field = options.fields?.url ?? `${options.param}.url`;
  const policy = outboundPolicy();
  let bytes: Buffer;
  try {
    bytes = await download(raw, policy, {
      maxBytes: options.maxBytes ?? MEDIA_INPUT_DEFAULTS.maxUrlBytes,
      timeoutMs: options.timeoutMs ?? MEDIA_INPUT_DEFAULTS.timeoutMs,
      downloadTimeoutMs: options.downloadTimeoutMs ?? MEDIA_INPUT_DEFAULTS.downloadTimeoutMs,
    });
  } catch (error) {
    if (error instanceof OutboundUrlError) {
      throw new InvalidParameterError(
        `\`${field}\` ${error.message}: media URLs must be public HTTPS URLs.`,
        field,
        { cause: error },
      );
    }
    if (error instanceof DownloadProblem) {
      throw new InvalidParameterError(`\`${field}\` ${error.message}.`, field, { cause: error });
    }
    throw error;
  }
  const detected = await detectAccepted(bytes, field, options.accept);
  return storeInput(workspaceId, 'url', bytes, detected);
}

/** Rejects with a DownloadProblem after `ms`; `cancel` stops the timer. */
function deadline(ms: number, message: string): { promise: Promise<never>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DownloadProblem(message)), ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

/**
 * Downloads a URL under the outbound guard. Throws OutboundUrlError (refused by the guard) or
 * DownloadProblem (everything the client's URL did wrong); nothing else is expected.
 *
 * The body is buffered up to the cap: `putMediaObject` takes bytes, and a streaming multipart upload
 * needs `@aws-sdk/lib-storage`, which is not a dependency. The function's memory must allow the cap.
 */
async function download(raw: string, policy: OutboundPolicy, limits: DownloadLimits): Promise<Buffer> {
  const url = checkOutboundUrl(raw, policy);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const startedAt = Date.now();
  // DNS counts toward the response deadline; a lookup that never answers cannot hold the caller.
  const dnsDeadline = deadline(limits.timeoutMs, `did not answer within ${limits.timeoutMs} ms`);
  let pinned: { address: string; family: number };
  try {
    pinned = await Promise.race([resolveOutboundAddress(url, policy), dnsDeadline.promise]);
  } catch (error) {
    if (error instanceof OutboundUrlError || error instanceof DownloadProblem) throw error;
    throw networkProblem(error, host);
  } finally {
    dnsDeadline.cancel();
  }
  const elapsed = Date.now() - startedAt;
  return fetchPinned(url, host, pinned, {
    ...limits,
    headersWithinMs: Math.max(1, limits.timeoutMs - elapsed),
    finishWithinMs: Math.max(1, limits.downloadTimeoutMs - elapsed),
  });
}

function fetchPinned(
  url: URL,
  host: string,
  pinned: { address: string; family: number },
  limits: DownloadLimits & { headersWithinMs: number; finishWithinMs: number },
): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const settle = () => {
      settled = true;
      for (const timer of timers) clearTimeout(timer);
    };
    const fail = (problem: DownloadProblem) => {
      if (settled) return;
      settle();
      request.destroy();
      reject(problem);
    };
    const after = (ms: number, message: string) => {
      const timer = setTimeout(() => fail(new DownloadProblem(message)), ms);
      timers.push(timer);
      return timer;
    };

    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send({
      protocol: url.protocol,
      host,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: {
        Accept: '*/*',
        'Accept-Encoding': 'identity',
        'User-Agent': 'video-creation-service/media-input',
      },
      // Connect to the address the guard checked; Host and TLS (SNI, certificate name) stay the URL's.
      lookup: pinnedLookup(pinned),
      ...(url.protocol === 'https:' && isIP(host) === 0 ? { servername: host } : {}),
      // No pooled sockets: a connection is only ever used for the address checked for it.
      agent: false,
    });
    const headersTimer = after(limits.headersWithinMs, `did not answer within ${limits.timeoutMs} ms`);
    after(limits.finishWithinMs, `did not finish downloading within ${limits.downloadTimeoutMs} ms`);
    request.on('error', (error) => fail(networkProblem(error, host)));
    request.on('response', (response: IncomingMessage) => {
      clearTimeout(headersTimer);
      // After the headers, any error means the body was cut short (`aborted`, ECONNRESET).
      const cutShort = new DownloadProblem(
        `could not be downloaded: ${host} closed the connection before the whole file arrived`,
      );
      response.on('error', () => fail(cutShort));
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        const location = response.headers.location;
        const target = location
          ? ` to ${location.length > 200 ? `${location.slice(0, 200)}...` : location}`
          : '';
        fail(
          new DownloadProblem(
            `answered with a redirect (HTTP ${status}${target}); redirects are not followed, so give the file's final URL`,
          ),
        );
        return;
      }
      if (status < 200 || status >= 300) {
        const text = response.statusMessage ? ` ${response.statusMessage}` : '';
        fail(new DownloadProblem(`answered HTTP ${status}${text}; expected 200 with the file`));
        return;
      }
      const declared = response.headers['content-length'];
      if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limits.maxBytes) {
        fail(
          new DownloadProblem(
            `is too large: the server declares ${formatBytes(Number(declared))} (Content-Length); at most ${formatBytes(limits.maxBytes)} are accepted`,
          ),
        );
        return;
      }
      const idleTimer = after(limits.timeoutMs, `stalled: no data arrived for ${limits.timeoutMs} ms`);
      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        if (settled) return;
        received += chunk.length;
        if (received > limits.maxBytes) {
          fail(
            new DownloadProblem(
              `is too large: the server sent more than ${formatBytes(limits.maxBytes)}, the most accepted`,
            ),
          );
          return;
        }
        chunks.push(chunk);
        idleTimer.refresh();
      });
      response.on('end', () => {
        if (settled) return;
        if (!response.complete) {
          fail(cutShort);
          return;
        }
        settle();
        resolve(Buffer.concat(chunks, received));
      });
      response.on('close', () => {
        if (!settled) fail(cutShort);
      });
    });
    request.end();
  });
}
