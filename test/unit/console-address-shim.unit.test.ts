import { isIP as nodeIsIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIP } from '../../console/src/shims/node-net.js';

/**
 * The console's stand-in for Node's `isIP` (console/src/shims/node-net.ts) judges addresses by
 * shape: it must never refuse an address Node takes (the form would block what the API allows),
 * and it refuses what is plainly not one. The API decides the rest with Node's own.
 */
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

describe("the console's address check", () => {
  it('takes every address Node takes (zone ids aside: the schema refuses "%"), as the same family', () => {
    console.log(`console address shim: seed ${SEED}`);
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (address) => {
        expect(isIP(address)).toBe(nodeIsIP(address));
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('refuses what is plainly not an address, and leaves near misses to the API', () => {
    for (const text of ['', 'example.com', 'not-an-address', '10.0.0', '1.2.3.4.5'])
      expect([text, isIP(text)]).toEqual([text, 0]);
    // Shaped like an address but not one: the browser lets it through, Node (the API) refuses it.
    for (const text of ['999.1.1.1', '1:2:3']) {
      expect(isIP(text)).not.toBe(0);
      expect(nodeIsIP(text)).toBe(0);
    }
  });
});
