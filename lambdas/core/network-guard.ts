/**
 * Server-side request forgery guard for every URL the service calls on a client's behalf (webhook
 * deliveries, media downloads). Only public HTTPS targets pass; private, loopback, link-local,
 * cloud-metadata and reserved addresses are refused, both when a URL is accepted and again after DNS
 * resolution at call time (DNS rebinding). A local-development setting may allow loopback and plain
 * HTTP so receivers on the same machine can be tested; it never allows other private ranges.
 */
import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { config } from './config.js';

export const ADDRESS_KINDS = { public: 'public', loopback: 'loopback', restricted: 'restricted' } as const;
export type AddressKind = (typeof ADDRESS_KINDS)[keyof typeof ADDRESS_KINDS];

/**
 * What an address in a special-purpose range is. `loopback`: this host (allowed only by the
 * development setting). `embeds-ipv4`: the IPv4-mapped form, which the socket layer connects to as the
 * IPv4 address it carries, so it is judged as that address. Every other range is refused, including the
 * forms that embed an IPv4 address but reach it through a translator or tunnel (SIIT, NAT64, 6to4,
 * Teredo): the guard cannot see where the translator delivers, and the service has no reason to call one.
 */
type RangeRule = 'loopback' | 'embeds-ipv4' | 'restricted';

/**
 * Every range the guard does not treat as public, once: the IANA IPv4 and IPv6 Special-Purpose Address
 * Registries in full (each entry by its registry name, including the ones the registry marks globally
 * reachable, such as AS112 and AMT, which no webhook receiver or media host lives on), plus multicast and
 * the older reserved ranges the registries no longer list. IPv6 outside 2000::/3 (global unicast) is
 * refused besides, so a range IANA has not allocated yet is not public by omission.
 */
const SPECIAL_PURPOSE_RANGES: readonly (readonly [network: string, prefix: number, rule: RangeRule])[] = [
  // IANA IPv4 Special-Purpose Address Registry
  ['0.0.0.0', 8, 'restricted'], // "This network" (0.0.0.0/32 "This host on this network" within it)
  ['10.0.0.0', 8, 'restricted'], // Private-Use
  ['100.64.0.0', 10, 'restricted'], // Shared Address Space (carrier-grade NAT)
  ['127.0.0.0', 8, 'loopback'], // Loopback
  ['169.254.0.0', 16, 'restricted'], // Link Local, including the instance metadata service
  ['172.16.0.0', 12, 'restricted'], // Private-Use
  ['192.0.0.0', 24, 'restricted'], // IETF Protocol Assignments (Service Continuity, PCP, TURN, NAT64 discovery anycasts within it)
  ['192.0.2.0', 24, 'restricted'], // Documentation (TEST-NET-1)
  ['192.31.196.0', 24, 'restricted'], // AS112-v4
  ['192.52.193.0', 24, 'restricted'], // AMT
  ['192.88.99.0', 24, 'restricted'], // Deprecated (6to4 Relay Anycast)
  ['192.168.0.0', 16, 'restricted'], // Private-Use
  ['192.175.48.0', 24, 'restricted'], // Direct Delegation AS112 Service
  ['198.18.0.0', 15, 'restricted'], // Benchmarking
  ['198.51.100.0', 24, 'restricted'], // Documentation (TEST-NET-2)
  ['203.0.113.0', 24, 'restricted'], // Documentation (TEST-NET-3)
  ['240.0.0.0', 4, 'restricted'], // Reserved
  ['255.255.255.255', 32, 'restricted'], // Limited Broadcast (within Reserved; listed on its own by the registry)
  // IANA IPv4 Multicast Address Space Registry
  ['224.0.0.0', 4, 'restricted'], // Multicast
  // IANA IPv6 Special-Purpose Address Registry
  ['::1', 128, 'loopback'], // Loopback Address
  ['::', 128, 'restricted'], // Unspecified Address
  ['::ffff:0:0', 96, 'embeds-ipv4'], // IPv4-mapped Address
  ['64:ff9b::', 96, 'restricted'], // IPv4-IPv6 Translat. (NAT64 well-known prefix)
  ['64:ff9b:1::', 48, 'restricted'], // IPv4-IPv6 Translat. (local-use NAT64)
  ['100::', 64, 'restricted'], // Discard-Only Address Block
  ['100:0:0:1::', 64, 'restricted'], // Dummy IPv6 Prefix
  ['2001::', 23, 'restricted'], // IETF Protocol Assignments (every 2001:0::/23 entry below lies within it)
  ['2001::', 32, 'restricted'], // TEREDO (embeds the server's and the obfuscated client's IPv4)
  ['2001:1::1', 128, 'restricted'], // Port Control Protocol Anycast
  ['2001:1::2', 128, 'restricted'], // Traversal Using Relays around NAT Anycast
  ['2001:1::3', 128, 'restricted'], // DNS-SD Service Registration Protocol Anycast
  ['2001:2::', 48, 'restricted'], // Benchmarking
  ['2001:3::', 32, 'restricted'], // AMT
  ['2001:4:112::', 48, 'restricted'], // AS112-v6
  ['2001:10::', 28, 'restricted'], // Deprecated (previously ORCHID)
  ['2001:20::', 28, 'restricted'], // ORCHIDv2
  ['2001:30::', 28, 'restricted'], // Drone Remote ID Protocol Entity Tags (DETs) Prefix
  ['2001:db8::', 32, 'restricted'], // Documentation
  ['2002::', 16, 'restricted'], // 6to4 (embeds any IPv4 address, private ones included)
  ['2620:4f:8000::', 48, 'restricted'], // Direct Delegation AS112 Service
  ['3fff::', 20, 'restricted'], // Documentation
  ['5f00::', 16, 'restricted'], // Segment Routing (SRv6) SIDs
  ['fc00::', 7, 'restricted'], // Unique-Local, including fd00:ec2::254 (the metadata service over IPv6)
  ['fe80::', 10, 'restricted'], // Link-Local Unicast
  // Outside the registry: ranges the RFCs reserve or deprecated
  ['::', 96, 'restricted'], // IPv4-compatible (deprecated, RFC 4291): ::127.0.0.1 is no public host
  ['::ffff:0:0:0', 96, 'restricted'], // IPv4-translated (SIIT, RFC 2765): ::ffff:0:a9fe:a9fe is 169.254.169.254 behind a translator
  ['fec0::', 10, 'restricted'], // Site-local (deprecated, RFC 3879)
  ['ff00::', 8, 'restricted'], // Multicast (IANA IPv6 Multicast Address Space Registry)
];

interface ParsedAddress {
  family: 4 | 6;
  value: bigint;
}

/** An IP literal as a number (IPv4: 32 bits, IPv6: 128 bits), or undefined when it is not one. */
function parseAddress(address: string): ParsedAddress | undefined {
  const family = isIP(address);
  if (family === 4) {
    return { family: 4, value: address.split('.').reduce((sum, part) => (sum << 8n) | BigInt(part), 0n) };
  }
  if (family !== 6) return undefined;
  // Zone ids (`fe80::1%eth0`) name an interface, not part of the address.
  let text = address.replace(/%.*$/, '').toLowerCase();
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/)?.[1];
  if (dotted) {
    const v4 = parseAddress(dotted)?.value ?? 0n;
    text = `${text.slice(0, -dotted.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups =
    tail === undefined
      ? headGroups
      : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return { family: 6, value: groups.reduce((sum, group) => (sum << 16n) | BigInt(`0x${group}`), 0n) };
}

interface CompiledRange {
  family: 4 | 6;
  first: bigint;
  last: bigint;
  rule: RangeRule;
}

const COMPILED_RANGES: readonly CompiledRange[] = SPECIAL_PURPOSE_RANGES.map(([network, prefix, rule]) => {
  const parsed = parseAddress(network);
  if (!parsed) throw new Error(`not an address: ${network}`);
  const hostBits = BigInt((parsed.family === 4 ? 32 : 128) - prefix);
  const first = (parsed.value >> hostBits) << hostBits;
  return { family: parsed.family, first, last: first | ((1n << hostBits) - 1n), rule };
});

/** The most specific range holding the address: `::ffff:0:0/96` wins over `::/96` around it. */
function rangeOf(address: ParsedAddress): CompiledRange | undefined {
  let found: CompiledRange | undefined;
  for (const range of COMPILED_RANGES) {
    if (range.family !== address.family || address.value < range.first || address.value > range.last)
      continue;
    if (!found || range.last - range.first < found.last - found.first) found = range;
  }
  return found;
}

const GLOBAL_UNICAST_V6 = { first: 0x2n << 124n, last: (0x4n << 124n) - 1n }; // 2000::/3

function classifyParsed(address: ParsedAddress): AddressKind {
  const range = rangeOf(address);
  if (range?.rule === 'loopback') return ADDRESS_KINDS.loopback;
  if (range?.rule === 'embeds-ipv4')
    return classifyParsed({ family: 4, value: address.value & 0xffff_ffffn });
  if (range) return ADDRESS_KINDS.restricted;
  if (
    address.family === 6 &&
    (address.value < GLOBAL_UNICAST_V6.first || address.value > GLOBAL_UNICAST_V6.last)
  ) {
    return ADDRESS_KINDS.restricted;
  }
  return ADDRESS_KINDS.public;
}

/** Whether an IP literal (bare or bracketed) is public, this host, or refused; a non-literal is refused. */
export function classifyAddress(address: string): AddressKind {
  const parsed = parseAddress(address.replace(/^\[|\]$/g, ''));
  return parsed ? classifyParsed(parsed) : ADDRESS_KINDS.restricted;
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
  if (isIP(host) !== 0) {
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
