import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';

/**
 * How the hosted pages' script (browser/passkeys.ts with @simplewebauthn/browser) is bundled for
 * browsers: by lib/bundling.ts into the deployed function, and on first request by a local run.
 */
export const PASSKEY_SCRIPT_BUILD = {
  entryPoints: [fileURLToPath(new URL('./browser/passkeys.ts', import.meta.url))],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2020',
  minify: true,
  write: false,
  legalComments: 'none',
  logLevel: 'error',
} satisfies BuildOptions;

export const buildPasskeyScript = async (): Promise<string> => {
  const { build } = await import('esbuild');
  const { outputFiles } = await build(PASSKEY_SCRIPT_BUILD);
  return outputFiles[0]?.text ?? '';
};
