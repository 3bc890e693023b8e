import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { bundleFunction } from '../../lib/bundling.js';

/** Zod's one constructor of every schema and check object (zod/v4/core/core.js). */
const CONSTRUCTOR = /^(\s*)function _\(def\) \{$/m;

/** Counts each construction into `globalThis.__idpSchemas`, in the bundle only. */
const countingZod: Plugin = {
  name: 'count-zod-schemas',
  setup(build) {
    build.onLoad({ filter: /zod[\\/]v4[\\/]core[\\/]core\.js$/ }, ({ path }) => {
      const source = readFileSync(path, 'utf8');
      if (!CONSTRUCTOR.test(source)) throw new Error(`Zod's constructor not found in ${path}`);
      return {
        contents: source.replace(
          CONSTRUCTOR,
          '$1function _(def) { globalThis.__idpSchemas = (globalThis.__idpSchemas ?? 0) + 1;',
        ),
        loader: 'js',
      };
    });
  },
};

/**
 * How many Zod schema (and check) objects each function builds while it loads: a count that does
 * not move with the machine's load, beside the load CPU `bundles.ts` measures. Building one costs
 * about 40 µs of CPU here at load, when nothing is compiled yet.
 */
export const schemasBuiltAtLoad = async (entries: readonly string[]): Promise<Map<string, number>> => {
  const outdir = mkdtempSync(join(tmpdir(), 'idp-schemas-'));
  const counts = new Map<string, number>();
  for (const entry of entries) {
    const directory = join(outdir, entry.replace(/\W+/g, '_'));
    await bundleFunction(entry, directory, { plugins: [countingZod], splitting: false });
    const file = join(directory, 'index.mjs');
    writeFileSync(
      `${file}.count.mjs`,
      `await import(${JSON.stringify(pathToFileURL(file).href)});\nprocess.stdout.write(String(globalThis.__idpSchemas ?? 0));`,
    );
    const count = execFileSync(process.execPath, [`${file}.count.mjs`], {
      env: {
        ...process.env,
        IDP_TABLE_NAME: 'bench',
        IDP_ISSUER: 'https://idp.example',
        AWS_REGION: 'us-east-1',
      },
    });
    counts.set(entry, Number(count.toString()));
  }
  return counts;
};
