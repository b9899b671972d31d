/**
 * Server-side request forgery guard for every URL the service calls on a client's behalf (webhook
 * deliveries, media downloads). Only public HTTPS targets pass; private, loopback, link-local,
 * cloud-metadata and reserved addresses are refused, both when a URL is accepted and again after DNS
 * resolution at call time (DNS rebinding). A local-development setting may allow loopback and plain
 * HTTP so receivers on the same machine can be tested; it never allows other private ranges.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { config } from './config.js';

export const ADDRESS_KINDS = { public: 'public', loopback: 'loopback', restricted: 'restricted' } as const;
export type AddressKind = (typeof ADDRESS_KINDS)[keyof typeof ADDRESS_KINDS];

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** Everything that is not a public unicast address, loopback aside. */
const restricted = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['169.254.0.0', 16], // link-local, including the instance metadata service
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  restricted.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified and IPv4-compatible (::127.0.0.1)
  ['64:ff9b::', 96], // NAT64 can reach private IPv4
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64],
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4 embeds any IPv4 address
  ['fc00::', 7], // unique local, including fd00:ec2::254 (metadata over IPv6)
  ['fe80::', 10],
  ['fec0::', 10], // deprecated site-local
  ['ff00::', 8],
] as const) {
  restricted.addSubnet(network, prefix, 'ipv6');
}

/** `::ffff:10.0.0.1` is 10.0.0.1. */
function unmapIpv4(address: string): string {
  const mapped = address.toLowerCase().match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
  return mapped?.[1] ?? address;
}

export function classifyAddress(address: string): AddressKind {
  const ip = unmapIpv4(address.replace(/^\[|\]$/g, ''));
  const family = isIP(ip);
  if (family === 0) return ADDRESS_KINDS.restricted;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (loopback.check(ip, type)) return ADDRESS_KINDS.loopback;
  if (restricted.check(ip, type)) return ADDRESS_KINDS.restricted;
  return ADDRESS_KINDS.public;
}

export class OutboundUrlError extends Error {}

export interface OutboundPolicy {
  /** Allow `http://` and loopback targets: the local-development setting, off in deployments. */
  allowLoopback: boolean;
}

const LOOPBACK_NAMES = /^(localhost|localhost\.localdomain)$|\.localhost$/i;
const INTERNAL_NAMES = /\.(internal|local|localdomain|home\.arpa|intranet|corp|lan)$/i;

function addressAllowed(kind: AddressKind, policy: OutboundPolicy): boolean {
  return kind === ADDRESS_KINDS.public || (kind === ADDRESS_KINDS.loopback && policy.allowLoopback);
}

/** The deployment's policy: public HTTPS only, unless the local-development switch allows loopback. */
export function outboundPolicy(): OutboundPolicy {
  return { allowLoopback: config().allowLoopbackUrls };
}

/** Checks what can be known without DNS; returns the parsed URL. */
export function checkOutboundUrl(raw: string, policy: OutboundPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundUrlError('must be an absolute URL');
  }
  const schemes = policy.allowLoopback ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) throw new OutboundUrlError('must use https');
  if (url.username || url.password) throw new OutboundUrlError('must not contain credentials');
  // `localhost.` is `localhost`: judge the name without its root dot.
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (isIP(unmapIpv4(host)) !== 0) {
    if (!addressAllowed(classifyAddress(host), policy)) {
      throw new OutboundUrlError('must point to a public address');
    }
  } else if (LOOPBACK_NAMES.test(host)) {
    if (!policy.allowLoopback) throw new OutboundUrlError('must point to a public address');
  } else if (INTERNAL_NAMES.test(host) || !host.includes('.')) {
    throw new OutboundUrlError('must name a public host');
  }
  if (
    url.protocol === 'http:' &&
    !LOOPBACK_NAMES.test(host) &&
    classifyAddress(host) !== ADDRESS_KINDS.loopback
  ) {
    throw new OutboundUrlError('must use https');
  }
  return url;
}

/**
 * Resolves the URL's host and checks every address; returns the address to connect to, so the
 * caller pins the connection to what was checked.
 */
export async function resolveOutboundAddress(
  url: URL,
  policy: OutboundPolicy,
): Promise<{ address: string; family: number }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host)
    ? [{ address: host, family: isIP(host) }]
    : await lookup(host, { all: true, verbatim: true });
  if (addresses.length === 0) throw new OutboundUrlError('host did not resolve');
  for (const { address } of addresses) {
    if (!addressAllowed(classifyAddress(address), policy)) {
      throw new OutboundUrlError(`host resolves to a non-public address (${address})`);
    }
  }
  const [first] = addresses;
  if (!first) throw new OutboundUrlError('host did not resolve');
  return first;
}

/**
 * A `lookup` for `http(s).request` that answers with the address `resolveOutboundAddress` checked,
 * so the connection goes where the guard looked (no second DNS answer, no rebinding) while the URL's
 * host name is kept for `Host` and TLS SNI/certificate checks. Answers both the single-address and
 * the `all: true` form (Node 20's happy-eyeballs connect asks for a list).
 */
export function pinnedLookup(pinned: { address: string; family: number }): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
}

const CERTIFICATE_CODES =
  /^(CERT_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_|ERR_TLS_CERT_ALTNAME_INVALID$|HOSTNAME_MISMATCH$)/;
/** Whether an outbound request failed on the remote host's certificate (not on the network). */
export function isCertificateError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && CERTIFICATE_CODES.test(code);
}

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|EPROTO$)/;

/**
 * A network error of an outbound request (media download, webhook delivery), phrased so the owner
 * of the remote host can act on it: `the host x does not resolve (ENOTFOUND)`.
 */
export function describeNetworkError(error: unknown, host: string): string {
  const code = (error as { code?: unknown }).code;
  const tag = typeof code === 'string' ? ` (${code})` : '';
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NODATA':
    case 'EAI_NONAME':
      return `the host ${host} does not resolve${tag}`;
    case 'ECONNREFUSED':
      return `${host} refused the connection${tag}`;
    case 'ECONNRESET':
    case 'EPIPE':
      return `${host} closed the connection before answering${tag}`;
    case 'ETIMEDOUT':
      return `the connection to ${host} timed out${tag}`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${host} is unreachable${tag}`;
  }
  if (typeof code === 'string' && CERTIFICATE_CODES.test(code)) {
    return `the TLS certificate of ${host} is not valid for it${tag}`;
  }
  if (typeof code === 'string' && TLS_CODES.test(code)) return `the TLS handshake with ${host} failed${tag}`;
  if (typeof code === 'string' && code.startsWith('HPE_'))
    return `${host} sent an invalid HTTP response${tag}`;
  return `the request to ${host} failed${tag}`;
}
