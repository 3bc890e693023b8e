import { isIP } from 'node:net';

/**
 * The part of a client's address that per-address limits count. An IPv4 address as it is; an
 * IPv6 address by its /64, the block one subscriber or host is given (RFC 6177), since anyone
 * holding one can send from any of its 2^64 addresses; an IPv4-mapped IPv6 address as its IPv4
 * address. Anything else (never from API Gateway) as it is.
 */
export const addressBlock = (address: string): string => {
  if (isIP(address) !== 6) return address;
  let canonical: string;
  try {
    // The WHATWG URL parser writes an IPv6 host in RFC 5952's form, embedded IPv4 in hex.
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return address;
  }
  const [head = '', tail] = canonical.split('::');
  const leading = head ? head.split(':') : [];
  const trailing = tail ? tail.split(':') : [];
  const groups = [...leading, ...Array(8 - leading.length - trailing.length).fill('0'), ...trailing];
  if (groups.slice(0, 5).every((group) => group === '0') && groups[5] === 'ffff') {
    const low = Number.parseInt(`${groups[6]}`, 16) * 65536 + Number.parseInt(`${groups[7]}`, 16);
    return [24, 16, 8, 0].map((shift) => (low >>> shift) & 255).join('.');
  }
  return `${groups.slice(0, 4).join(':')}::/64`;
};
