import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BuildOptions } from 'esbuild';
import { bundleFunction, bundleSizes } from '../../lib/bundling.js';
import { schemasBuiltAtLoad } from './schemas-at-load.js';

const BASELINE = 'test/bench/baselines/bare-get-item.ts';

const bundle = async (entry: string, outdir: string, options: BuildOptions = {}) => {
  const directory = join(outdir, entry.replace(/\W+/g, '_'));
  const { metafile } = await bundleFunction(entry, directory, options);
  if (!metafile) throw new Error(`esbuild wrote no metafile for ${entry}`);
  return { file: join(directory, 'index.mjs'), ...bundleSizes(metafile) };
};

/** CPU time (user + system) a fresh Node process spends importing the bundle, as a cold start does. */
export const loadCpuMillis = (file: string): number => {
  const script = `const before = process.cpuUsage(); await import(${JSON.stringify(pathToFileURL(file).href)});
const spent = process.cpuUsage(before); process.stdout.write(String((spent.user + spent.system) / 1000));`;
  return Number(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      env: {
        ...process.env,
        IDP_TABLE_NAME: 'bench',
        IDP_ISSUER: 'https://idp.example',
        AWS_REGION: 'us-east-1',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
    }),
  );
};

export const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0).padStart(4)} KB`;

/**
 * Every function's bundle against the bare baseline: bytes (printed, not budgeted), and
 * module-load CPU measured in pairs (the baseline, then the function, each in a fresh process), so
 * drift of the machine's speed hits both sides of a ratio alike; each function's ratio is the
 * median over the rounds. Also measured, for the decision it backs (lib/bundling.ts): the users
 * function loading the AWS SDK from node_modules, as from the Lambda runtime's copy, instead of
 * its bundle.
 */
export const benchBundles = async (rounds: number) => {
  const outdir = mkdtempSync(join(tmpdir(), 'idp-bundles-'));
  const entries = readdirSync('functions').map((file) => `functions/${file}`);
  const baseline = await bundle(BASELINE, outdir);
  const bundles = new Map<string, Awaited<ReturnType<typeof bundle>>>();
  for (const entry of entries) bundles.set(entry, await bundle(entry, outdir));
  // Inside the project, so that the SDK left out is found in its node_modules.
  const runtimeSdk = await bundle('functions/users.ts', join('.tmp', 'bench-runtime-sdk'), {
    external: ['@aws-sdk/*', '@smithy/*'],
  });
  const baseCpu: number[] = [];
  const samples = new Map<string, { cpu: number[]; ratios: number[] }>(
    [...entries, 'runtime-sdk'].map((entry) => [entry, { cpu: [], ratios: [] }]),
  );
  const files = new Map([
    ...[...bundles].map(([entry, { file }]) => [entry, file] as const),
    ['runtime-sdk', runtimeSdk.file],
  ]);
  for (let round = 0; round < rounds; round++) {
    for (const [entry, file] of files) {
      const base = loadCpuMillis(baseline.file);
      const cpu = loadCpuMillis(file);
      baseCpu.push(base);
      samples.get(entry)?.cpu.push(cpu);
      samples.get(entry)?.ratios.push(cpu / base);
    }
  }
  console.log(
    `bundle baseline (bare GetItem handler): ${kb(baseline.loaded)} loaded, load ${median(baseCpu).toFixed(1)} ms CPU`,
  );
  const schemas = await schemasBuiltAtLoad(entries);
  const results = entries.map((entry) => {
    const { loaded, total } = bundles.get(entry) ?? { loaded: 0, total: 0 };
    const { cpu, ratios } = samples.get(entry) ?? { cpu: [], ratios: [] };
    const result = { entry, loaded, total, loadCpu: median(cpu), cpuRatio: median(ratios) };
    console.log(
      `bundle ${entry.padEnd(27)} ${kb(loaded)} loaded (${(loaded / baseline.loaded).toFixed(2)}x), ${kb(total)} in all  load ${result.loadCpu.toFixed(1).padStart(5)} ms CPU ${result.cpuRatio.toFixed(2)}x, ${String(schemas.get(entry)).padStart(3)} Zod schemas built`,
    );
    return result;
  });
  const runtime = samples.get('runtime-sdk') ?? { cpu: [], ratios: [] };
  const bundledUsers = results.find((result) => result.entry === 'functions/users.ts');
  console.log(
    `bundle users with the SDK from node_modules (the runtime's copy): load ${median(runtime.cpu).toFixed(1)} ms CPU ${median(runtime.ratios).toFixed(2)}x, bundled ${bundledUsers?.loadCpu.toFixed(1)} ms`,
  );
  return { functions: results, runtimeSdkRatio: median(runtime.ratios) };
};
