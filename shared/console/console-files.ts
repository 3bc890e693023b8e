import type { ConsoleFiles } from './console-build.js';

/**
 * The console's built files. A deployed function carries them as an object its bundler put in
 * (lib/bundling.ts defines `globalThis.IDP_CONSOLE_FILES`, and `IDP_LAMBDA_BUNDLE`, which drops
 * the local branch and esbuild with it); a local run reads `npm install`'s build in
 * dist/console, or builds on first request when there is none.
 */
let files: Promise<ConsoleFiles> | undefined;

export const consoleFiles = (): Promise<ConsoleFiles> => {
  if ((globalThis as { IDP_LAMBDA_BUNDLE?: true }).IDP_LAMBDA_BUNDLE) {
    files ??= Promise.resolve((globalThis as { IDP_CONSOLE_FILES?: ConsoleFiles }).IDP_CONSOLE_FILES ?? {});
  } else {
    files ??= import('./console-build.js').then(async ({ buildConsole, CONSOLE_DIST }) => {
      const { readFile } = await import('node:fs/promises');
      // `npm install`'s build; a fresh one when there is none (the client package test wipes dist/).
      return readFile(CONSOLE_DIST, 'utf8').then(JSON.parse, buildConsole) as Promise<ConsoleFiles>;
    });
  }
  return files;
};
