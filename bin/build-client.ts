import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';
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
  const config = ts.getParsedCommandLineOfConfigFile(
    `${ROOT}tsconfig.json`,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.json could not be read');
  const program = ts.createProgram([ENTRY], {
    ...config.options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: ROOT,
    outDir: `${CLIENT_DIST}/types`,
  });
  const { diagnostics } = program.emit();
  if (diagnostics.length > 0) {
    throw new Error(
      ts.formatDiagnostics(diagnostics, {
        ...ts.sys,
        getCanonicalFileName: (name) => name,
        getCurrentDirectory: () => ROOT,
        getNewLine: () => '\n',
      }),
    );
  }
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildClient();
  // The admin console too (shared/console/console-build.ts): what `npm start` serves.
  await writeConsoleBuild(CONSOLE_DIST);
}
