import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { CONSOLE_DIST, writeConsoleBuild } from '../shared/console/console-build.js';

/**
 * Builds the `idp/client` export (package.json "exports"): one ESM file for Node 20+ and
 * browsers (no dependency: it uses fetch) and its type declarations, which carry the route
 * table's types. Runs on `npm install` (the `prepare` script) and in the client package test.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CLIENT_DIST = `${ROOT}dist`;
const ENTRY = `${ROOT}shared/client/index.ts`;

/** The client as one ESM file (also bundled in memory by the browser test). */
export const CLIENT_BUNDLE = {
  entryPoints: [ENTRY],
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  logLevel: 'error',
} as const;

export const buildClient = async () => {
  rmSync(CLIENT_DIST, { recursive: true, force: true });
  await build({ ...CLIENT_BUNDLE, entryPoints: [ENTRY], outfile: `${CLIENT_DIST}/client/index.js` });
  // The declarations, by TypeScript 7's native compiler (a fifth of TypeScript 6's CPU time):
  // tsconfig.client-types.json is the project's settings, emitting declarations only.
  await promisify(execFile)(process.execPath, [
    `${ROOT}node_modules/typescript-native/bin/tsc`,
    '-p',
    `${ROOT}tsconfig.client-types.json`,
  ]).catch((failure: { stdout?: string; stderr?: string }) => {
    throw new Error(
      `The client's type declarations did not build:\n${failure.stdout ?? ''}${failure.stderr ?? ''}`,
    );
  });
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildClient();
  // The admin console too (shared/console/console-build.ts): what `npm start` serves.
  await writeConsoleBuild(CONSOLE_DIST);
}
