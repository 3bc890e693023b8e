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
} as const;
