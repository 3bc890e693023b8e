import { describe, expect, it } from 'vitest';
import { addressBlock } from '../../shared/domain/address-block.js';

describe('the address block per-address limits count', () => {
  it('is an IPv4 address itself', () => {
    expect(addressBlock('203.0.113.7')).toBe('203.0.113.7');
    expect(addressBlock('203.0.113.8')).toBe('203.0.113.8');
  });

  it("is an IPv6 address's /64, however the address is written", () => {
    const block = '2001:db8:0:1::/64';
    for (const address of [
      '2001:db8:0:1::1',
      '2001:db8:0:1:ffff:ffff:ffff:ffff',
      '2001:0DB8:0000:0001:0000:0000:0000:0002',
      '2001:db8::1:0:0:0:3',
    ])
      expect(addressBlock(address), address).toBe(block);
    expect(addressBlock('2001:db8:0:2::1')).toBe('2001:db8:0:2::/64');
    expect(addressBlock('::1')).toBe('0:0:0:0::/64');
  });

  it('is the IPv4 address of an IPv4-mapped IPv6 address', () => {
    expect(addressBlock('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressBlock('::ffff:cb00:7107')).toBe('203.0.113.7');
  });

  it('is anything else as it is', () => {
    expect(addressBlock('not an address')).toBe('not an address');
    expect(addressBlock('')).toBe('');
  });
});
