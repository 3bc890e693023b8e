/**
 * What the console's bundle has instead of `node:net` (shared/console/console-build.ts aliases it):
 * the API's client schema checks `remoteAddresses` with Node's `isIP`. In the browser an address
 * is judged by its shape only, so the form says at once what is plainly not an address and never
 * refuses one the API takes; the API, with Node's `isIP`, decides the rest.
 */
export const isIP = (address: string): 0 | 4 | 6 => {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(address)) return 4;
  return address.includes(':') && /^[0-9A-Fa-f:.]+$/.test(address) ? 6 : 0;
};

export class BlockList {
  constructor() {
    throw new Error('Address ranges are checked by the API, not in the browser');
  }
}
