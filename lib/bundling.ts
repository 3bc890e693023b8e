import type { BuildOptions } from 'esbuild';
import { CONSOLE_BUILD, consoleFilesOf } from '../shared/console/console-build.js';
import { PASSKEY_SCRIPT_BUILD } from '../shared/passkeys/browser-build.js';

/**
 * How every function is bundled (lib/idp-function.ts), shared with `npm run bench` and the bundle
 * test, which bundle a bare handler the same way to compare against. One ESM entry, `index.mjs`,
 * minified with source maps, everything inside it (the AWS SDK too: its version is the lock
 * file's, not the runtime's, and loading the runtime's copy costs about three times the CPU:
 * `npm run bench`). Code split at dynamic imports: what only some requests need (the Lambda client of the mailer, S3 and
 * Secrets Manager clients, Powertools Idempotency) is a chunk of its own, read and compiled only
 * when a request first needs it, rather than by every cold start.
 */
export const BUNDLE_OPTIONS = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  mainFields: ['module', 'main'],
  minify: true,
  splitting: true,
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  sourcemap: true,
  // Stack traces need file names and lines, not the sources: keeps the bundle small.
  sourcesContent: false,
  /** ESM bundles have no `require`; some CommonJS dependencies call it for Node built-ins. */
  banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" },
  /** Marks deployed bundles, so code for local runs only (the file secret store) drops out of them. */
  define: { 'globalThis.IDP_LAMBDA_BUNDLE': 'true' },
  logLevel: 'error',
} satisfies BuildOptions;

/**
 * What browsers load, built for them and carried by the function that serves it: the hosted
 * pages' passkey script (shared/passkeys/browser-build.ts), a string the passkeys function
 * answers, and the console's files (shared/console/console-build.ts). `define` puts each wherever
 * `globalThis.IDP_PASSKEY_SCRIPT` or `IDP_CONSOLE_FILES` is read, so only that function carries
 * it. Built once per process.
 */
let browserDefines: Record<string, string> | undefined;
const scriptDefine = (buildSync: typeof import('esbuild').buildSync) => {
  browserDefines ??= {
    'globalThis.IDP_PASSKEY_SCRIPT': JSON.stringify(
      buildSync(PASSKEY_SCRIPT_BUILD).outputFiles[0]?.text ?? '',
    ),
    'globalThis.IDP_CONSOLE_FILES': JSON.stringify(consoleFilesOf(buildSync(CONSOLE_BUILD).outputFiles)),
  };
  return { define: { ...BUNDLE_OPTIONS.define, ...browserDefines } };
};

/** Bundles `entry` (relative to the project root) into `outdir`: `index.mjs`, its chunks and source maps. */
export const bundleFunction = async (entry: string, outdir: string, options: BuildOptions = {}) => {
  const { build, buildSync } = await import('esbuild');
  return build({
    ...BUNDLE_OPTIONS,
    ...scriptDefine(buildSync),
    entryPoints: { index: entry },
    outdir,
    metafile: true,
    ...options,
  });
};

type Metafile = NonNullable<Awaited<ReturnType<typeof bundleFunction>>['metafile']>;

/**
 * The bytes a cold start reads: `index.mjs` and the chunks it imports statically, not those
 * imported dynamically on first need; and all of them.
 */
export const bundleSizes = (metafile: Metafile): { loaded: number; total: number } => {
  const outputs = metafile.outputs;
  const entry = Object.keys(outputs).find((file) => file.endsWith('/index.mjs'));
  const loaded = new Set<string>();
  const visit = (file: string) => {
    if (loaded.has(file) || !outputs[file]) return;
    loaded.add(file);
    for (const imported of outputs[file].imports)
      if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
  };
  if (entry) visit(entry);
  const code = Object.entries(outputs).filter(([file]) => file.endsWith('.mjs'));
  const sum = (entries: [string, { bytes: number }][]) =>
    entries.reduce((total, [, { bytes }]) => total + bytes, 0);
  return { loaded: sum(code.filter(([file]) => loaded.has(file))), total: sum(code) };
};

/** The same, synchronously: CDK's local bundling cannot wait. */
export const bundleFunctionSync = (
  buildSync: typeof import('esbuild').buildSync,
  entry: string,
  outdir: string,
): void => {
  buildSync({ ...BUNDLE_OPTIONS, ...scriptDefine(buildSync), entryPoints: { index: entry }, outdir });
};
