import { describe, expect, it } from 'vitest';
import {
  checkOutboundUrl,
  classifyAddress,
  OutboundUrlError,
  resolveOutboundAddress,
} from '../../lambdas/core/network-guard.js';

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
