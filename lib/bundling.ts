/**
 * The esbuild options every function is bundled with (lib/idp-function.ts), shared with
 * `npm run bench`, which bundles a bare handler the same way to compare against.
 */
export const BUNDLE_OPTIONS = {
  format: 'esm',
  platform: 'node',
  target: 'node24',
  mainFields: ['module', 'main'],
  minify: true,
  /** ESM bundles have no `require`; some CommonJS dependencies call it for Node built-ins. */
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  /** Marks deployed bundles, so code for local runs only (the file secret store) drops out of them. */
  define: { 'globalThis.IDP_LAMBDA_BUNDLE': 'true' },
} as const;

const buildInMemory = async (entry: string) => {
  const { build } = await import('esbuild');
  return build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    outfile: 'index.mjs',
    logLevel: 'error',
    ...BUNDLE_OPTIONS,
    mainFields: [...BUNDLE_OPTIONS.mainFields],
    banner: { js: BUNDLE_OPTIONS.banner },
    define: { ...BUNDLE_OPTIONS.define },
    metafile: true,
  });
};

/** Bundles one entry with those options, in memory: the bench and the bundle test compare against it. */
export const bundleBytes = async (entry: string): Promise<Uint8Array> => {
  const result = await buildInMemory(entry);
  const [output] = result.outputFiles;
  if (!output) throw new Error(`esbuild wrote nothing for ${entry}`);
  return output.contents;
};

/** The npm packages whose code a bundle of `entry` holds (from esbuild's metafile). */
export const bundledPackages = async (entry: string): Promise<Set<string>> => {
  const { metafile } = await buildInMemory(entry);
  const packages = Object.keys(metafile.inputs).map(
    (input) => input.match(/node_modules\/((@[^/]+\/)?[^/]+)/)?.[1],
  );
  return new Set(packages.filter((name): name is string => name !== undefined));
};
