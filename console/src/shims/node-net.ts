/**
 * What the console's bundle has instead of `node:net` (shared/console/console-build.ts aliases it):
 * the API's client schema checks `remoteAddresses` with Node's `isIP`, a field no console form
 * sends. Should one ever send it, the browser refuses it here and the API still decides.
 */
export const isIP = (): 0 => 0;

export class BlockList {
  constructor() {
    throw new Error('Address ranges are checked by the API, not in the browser');
  }
}
