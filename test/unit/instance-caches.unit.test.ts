import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../shared/cache/bounded-map.js';
import { ExpiringCache } from '../../shared/cache/expiring-cache.js';

/** A load that counts its calls and answers the count. */
const counting = () => {
  let loads = 0;
  return { load: async () => ++loads, loads: () => loads };
};

describe('ExpiringCache', () => {
  it('answers the remembered value within its age, loads again after it', async () => {
    const cache = new ExpiringCache<string, number>();
    const { load, loads } = counting();
    expect(await cache.get('k', 1000, load, 0)).toBe(1);
    expect(await cache.get('k', 1000, load, 999)).toBe(1);
    expect(await cache.get('k', 1000, load, 1000)).toBe(2);
    expect(loads()).toBe(2);
  });

  it('a maximum age of 0 loads every time, whatever the clock says', async () => {
    const cache = new ExpiringCache<string, number>();
    const { load } = counting();
    await cache.get('k', 0, load, 10_000);
    // A clock that goes back (a caller's own `now`) does not make the cached value young.
    expect(await cache.get('k', 0, load, 5_000)).toBe(2);
  });

  it('forget with the value judged out of date leaves a value loaded again meanwhile', async () => {
    const cache = new ExpiringCache<string, number>();
    const { load, loads } = counting();
    const judged = cache.get('k', 1000, load, 0);
    cache.forget('k', judged);
    const reloaded = cache.get('k', 1000, load, 0);
    // A second caller that judged the same old value must not throw away the new one.
    cache.forget('k', judged);
    expect(await cache.get('k', 1000, load, 0)).toBe(await reloaded);
    expect(loads()).toBe(2);
    cache.forget('k');
    expect(await cache.get('k', 1000, load, 0)).toBe(3);
  });
});

describe('BoundedMap', () => {
  it('forgets the entry set longest ago beyond its size; setting again makes an entry new', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.set('a', 3);
    map.set('c', 4);
    expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([3, undefined, 4]);
  });
});
