import { describe, expect, it, vi } from 'vitest';

// Names under `.example.test` answer what a test sets, as a rebinding resolver would at send time.
const dns = vi.hoisted(() => ({ answers: new Map<string, string>() }));
vi.mock('node:dns/promises', async (original) => {
  const real = await original<typeof import('node:dns/promises')>();
  return {
    ...real,
    lookup: async (host: string, options: unknown) => {
      const address = dns.answers.get(host);
      if (address) return [{ address, family: address.includes(':') ? 6 : 4 }];
      return real.lookup(host, options as never);
    },
  };
});

const { checkOutboundUrl, classifyAddress, OutboundUrlError, resolveOutboundAddress } = await import(
  '../../lambdas/core/network-guard.js'
);

const strict = { allowLoopback: false };
const development = { allowLoopback: true };

describe('outbound URL guard', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'restricted'],
    ['172.20.0.1', 'restricted'],
    ['192.168.1.1', 'restricted'],
    ['169.254.169.254', 'restricted'],
    ['100.64.0.1', 'restricted'],
    ['0.0.0.0', 'restricted'],
    ['fd00:ec2::254', 'restricted'],
    ['fe80::1', 'restricted'],
    ['::ffff:10.0.0.1', 'restricted'],
    ['::ffff:127.0.0.1', 'loopback'],
  ])('classifies %s as %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('accepts public HTTPS URLs', () => {
    expect(checkOutboundUrl('https://hooks.example.com/video', strict).hostname).toBe('hooks.example.com');
  });

  it.each([
    'http://hooks.example.com/',
    'https://127.0.0.1/',
    'https://localhost/',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/',
    'https://10.0.0.5/',
    'https://metadata.google.internal/',
    'https://user:pass@hooks.example.com/',
    'https://intranet/',
    'https://localhost./',
    'https://foo.localhost./',
    'https://metadata.google.internal./',
    'https://[::127.0.0.1]/',
    'https://[fec0::1]/',
    'https://[2002:7f00:1::]/',
    'https://2130706433/',
    'https://0x7f.1/',
    'https://169.254.169.254./',
    'ftp://hooks.example.com/',
    'not a url',
  ])('refuses %s', (url) => {
    expect(() => checkOutboundUrl(url, strict)).toThrow(OutboundUrlError);
  });

  it('allows loopback and plain HTTP only under the development setting, never other private ranges', () => {
    expect(checkOutboundUrl('http://127.0.0.1:8080/hook', development).port).toBe('8080');
    expect(checkOutboundUrl('http://localhost:8080/hook', development).hostname).toBe('localhost');
    expect(() => checkOutboundUrl('http://10.0.0.5/hook', development)).toThrow(OutboundUrlError);
    expect(() => checkOutboundUrl('http://hooks.example.com/', development)).toThrow(OutboundUrlError);
  });

  it('refuses a host that resolves to a private address at call time', async () => {
    await expect(resolveOutboundAddress(new URL('https://localhost/'), strict)).rejects.toThrow(
      OutboundUrlError,
    );
    await expect(resolveOutboundAddress(new URL('https://127.0.0.1/'), development)).resolves.toMatchObject({
      address: '127.0.0.1',
    });
  });
});

/**
 * The IANA IPv4 and IPv6 Special-Purpose Address Registries, multicast, and the deprecated and
 * translated forms, written out here independently of the guard's own table.
 */
const SPECIAL_RANGES: readonly [cidr: string, kind: 'loopback' | 'restricted'][] = [
  ['0.0.0.0/8', 'restricted'],
  ['10.0.0.0/8', 'restricted'],
  ['100.64.0.0/10', 'restricted'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'restricted'],
  ['172.16.0.0/12', 'restricted'],
  ['192.0.0.0/24', 'restricted'],
  ['192.0.2.0/24', 'restricted'],
  ['192.31.196.0/24', 'restricted'],
  ['192.52.193.0/24', 'restricted'],
  ['192.88.99.0/24', 'restricted'],
  ['192.168.0.0/16', 'restricted'],
  ['192.175.48.0/24', 'restricted'],
  ['198.18.0.0/15', 'restricted'],
  ['198.51.100.0/24', 'restricted'],
  ['203.0.113.0/24', 'restricted'],
  ['224.0.0.0/4', 'restricted'],
  ['240.0.0.0/4', 'restricted'],
  ['255.255.255.255/32', 'restricted'],
  ['::/128', 'restricted'],
  ['::1/128', 'loopback'],
  ['::/96', 'restricted'],
  ['::ffff:0:0:0/96', 'restricted'],
  ['64:ff9b::/96', 'restricted'],
  ['64:ff9b:1::/48', 'restricted'],
  ['100::/64', 'restricted'],
  ['100:0:0:1::/64', 'restricted'],
  ['2001::/23', 'restricted'],
  ['2001::/32', 'restricted'],
  ['2001:2::/48', 'restricted'],
  ['2001:3::/32', 'restricted'],
  ['2001:4:112::/48', 'restricted'],
  ['2001:10::/28', 'restricted'],
  ['2001:20::/28', 'restricted'],
  ['2001:30::/28', 'restricted'],
  ['2001:db8::/32', 'restricted'],
  ['2002::/16', 'restricted'],
  ['2620:4f:8000::/48', 'restricted'],
  ['3fff::/20', 'restricted'],
  ['5f00::/16', 'restricted'],
  ['fc00::/7', 'restricted'],
  ['fe80::/10', 'restricted'],
  ['fec0::/10', 'restricted'],
  ['ff00::/8', 'restricted'],
];

function toText(value: bigint, family: 4 | 6): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
  return [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n]
    .map((shift) => ((value >> shift) & 0xffffn).toString(16))
    .join(':');
}

function toValue(address: string, family: 4 | 6): bigint {
  if (family === 4) return address.split('.').reduce((sum, part) => (sum << 8n) | BigInt(part), 0n);
  const [head = '', tail = ''] = address.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups]
    : headGroups;
  return groups.reduce((sum, group) => (sum << 16n) | BigInt(`0x${group}`), 0n);
}

/** The first, a middle and the last address of a range. */
function samples(cidr: string): { address: string; family: 4 | 6 }[] {
  const [network = '', prefix = ''] = cidr.split('/');
  const family = network.includes(':') ? 6 : 4;
  const hostBits = BigInt((family === 4 ? 32 : 128) - Number(prefix));
  const first = (toValue(network, family) >> hostBits) << hostBits;
  const last = first | ((1n << hostBits) - 1n);
  return [first, first + (last - first) / 2n + 1n, last]
    .filter((value, index, all) => all.indexOf(value) === index && value <= last)
    .map((value) => ({ address: toText(value, family), family }));
}

const CASES = SPECIAL_RANGES.flatMap(([cidr, kind]) =>
  samples(cidr).map(({ address, family }) => ({ cidr, kind, address, family })),
);

/** A URL naming the address literally, as a client would register it. */
function literalUrl(address: string, family: 4 | 6): string {
  return family === 4 ? `https://${address}/hook` : `https://[${address}]/hook`;
}

describe('every special-purpose address range', () => {
  it.each(CASES)('$cidr: $address is $kind', ({ address, kind }) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each(CASES)('$cidr: refuses $address as a URL at registration', ({ address, family }) => {
    expect(() => checkOutboundUrl(literalUrl(address, family), strict)).toThrow(OutboundUrlError);
  });

  it.each(CASES)('$cidr: refuses a name resolving to $address at send time', async ({ address }) => {
    dns.answers.set('target.example.test', address);
    try {
      await expect(resolveOutboundAddress(new URL('https://target.example.test/'), strict)).rejects.toThrow(
        `resolves to a non-public address (${address})`,
      );
    } finally {
      dns.answers.delete('target.example.test');
    }
  });

  it.each(CASES.filter(({ family }) => family === 4))(
    '$cidr: refuses $address in the IPv4-mapped form, dotted and hexadecimal',
    async ({ address }) => {
      const value = toValue(address, 4);
      const hex = `::ffff:${(value >> 16n).toString(16)}:${(value & 0xffffn).toString(16)}`;
      for (const mapped of [`::ffff:${address}`, hex]) {
        expect(() => checkOutboundUrl(`https://[${mapped}]/`, strict), mapped).toThrow(OutboundUrlError);
        dns.answers.set('mapped.example.test', mapped);
        await expect(
          resolveOutboundAddress(new URL('https://mapped.example.test/'), strict),
          mapped,
        ).rejects.toThrow(OutboundUrlError);
      }
      dns.answers.delete('mapped.example.test');
    },
  );

  it.each([
    // The metadata service in every form that embeds its IPv4 address.
    'https://[::ffff:0:a9fe:a9fe]/',
    'https://[::ffff:0:169.254.169.254]/',
    'https://[::ffff:169.254.169.254]/',
    'https://[::169.254.169.254]/',
    'https://[64:ff9b::169.254.169.254]/',
    'https://[64:ff9b:1::a9fe:a9fe]/',
    'https://[2002:a9fe:a9fe::1]/',
    'https://[2001:0:a9fe:a9fe::1]/',
    // Translated and tunnelled forms are refused even when what they embed is public.
    'https://[::ffff:0:8.8.8.8]/',
    'https://[64:ff9b::8.8.8.8]/',
    'https://[2002:808:808::1]/',
    'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
  ])('refuses %s', (url) => {
    expect(() => checkOutboundUrl(url, strict)).toThrow(OutboundUrlError);
  });

  it.each([
    ['9.255.255.255', 'public'],
    ['11.0.0.0', 'public'],
    ['100.128.0.0', 'public'],
    ['172.32.0.0', 'public'],
    ['192.0.3.0', 'public'],
    ['223.255.255.255', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['2001:200::1', 'public'],
    ['2003::1', 'public'],
    ['2a00:1450:4001:81c::200e', 'public'],
    ['4000::1', 'restricted'], // not allocated for global unicast
  ])('the neighbours: %s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('keeps loopback, and nothing else, available to the development setting', async () => {
    for (const url of [
      'http://127.0.0.1/',
      'http://127.255.255.255/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      expect(checkOutboundUrl(url, development).protocol, url).toBe('http:');
    }
    for (const url of [
      'https://[::ffff:0:7f00:1]/',
      'https://[64:ff9b::127.0.0.1]/',
      'https://[2002:7f00:1::]/',
    ]) {
      expect(() => checkOutboundUrl(url, development), url).toThrow(OutboundUrlError);
    }
    dns.answers.set('loop.example.test', '127.0.0.2');
    await expect(resolveOutboundAddress(new URL('http://loop.example.test/'), development)).resolves.toEqual({
      address: '127.0.0.2',
      family: 4,
    });
    dns.answers.delete('loop.example.test');
  });
});
