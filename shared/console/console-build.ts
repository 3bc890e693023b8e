import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';

/**
 * How the console (console/, Preact) is bundled for browsers: one script and one stylesheet,
 * named by their content's hash so browsers may keep them for good. Built by `npm install`
 * (bin/build-client.ts), by lib/bundling.ts into the deployed console function, and on first
 * request by a local run when no build is there.
 */
export const CONSOLE_BUILD = {
  entryPoints: { app: fileURLToPath(new URL('../../console/src/main.tsx', import.meta.url)) },
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  // The one Node module the API's schemas reach (console/src/shims/node-net.ts says why).
  alias: { 'node:net': fileURLToPath(new URL('../../console/src/shims/node-net.ts', import.meta.url)) },
  minify: true,
  write: false,
  outdir: '/assets',
  entryNames: '[name]-[hash]',
  legalComments: 'none',
  logLevel: 'error',
} satisfies BuildOptions;

/** The console's files by their path under /console (`assets/app-<hash>.js`, …) and type. */
export type ConsoleFiles = Record<string, { type: string; body: string }>;

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

export const buildConsole = async (): Promise<ConsoleFiles> => {
  const { build } = await import('esbuild');
  const { outputFiles } = await build(CONSOLE_BUILD);
  return consoleFilesOf(outputFiles);
};

export const consoleFilesOf = (outputs: readonly { path: string; text: string }[]): ConsoleFiles =>
  Object.fromEntries(
    outputs.map((file) => [
      `assets/${file.path.split('/').pop()}`,
      { type: TYPES[file.path.split('.').pop() ?? ''] ?? 'application/octet-stream', body: file.text },
    ]),
  );

/** Where `npm install` leaves the built console: one JSON file of ConsoleFiles. */
export const CONSOLE_DIST = fileURLToPath(new URL('../../dist/console/files.json', import.meta.url));

export const writeConsoleBuild = async (file: string) => {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(await buildConsole()));
};
