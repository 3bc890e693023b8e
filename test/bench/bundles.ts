import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleBytes } from '../../lib/bundling.js';

const BASELINE = 'test/bench/baselines/bare-get-item.ts';

const bundle = async (entry: string, outdir: string) => {
  const outfile = join(outdir, `${entry.replace(/\W+/g, '_')}.mjs`);
  writeFileSync(outfile, await bundleBytes(entry));
  return outfile;
};

/** CPU time (user + system) a fresh Node process spends importing the bundle, as a cold start does. */
const loadCpuMillis = (file: string): number => {
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

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * Every function's bundle against the bare baseline: bytes, and module-load CPU measured in pairs
 * (the baseline, then the function, each in a fresh process), so drift of the machine's speed hits
 * both sides of a ratio alike; each function's ratio is the median over the rounds.
 */
export const benchBundles = async (rounds: number) => {
  const outdir = mkdtempSync(join(tmpdir(), 'idp-bundles-'));
  const entries = readdirSync('functions').map((file) => `functions/${file}`);
  const baseline = await bundle(BASELINE, outdir);
  const files = new Map<string, string>();
  for (const entry of entries) files.set(entry, await bundle(entry, outdir));
  const baseCpu: number[] = [];
  const samples = new Map<string, { cpu: number[]; ratios: number[] }>(
    entries.map((entry) => [entry, { cpu: [], ratios: [] }]),
  );
  for (let round = 0; round < rounds; round++) {
    for (const [entry, file] of files) {
      const base = loadCpuMillis(baseline);
      const cpu = loadCpuMillis(file);
      baseCpu.push(base);
      samples.get(entry)?.cpu.push(cpu);
      samples.get(entry)?.ratios.push(cpu / base);
    }
  }
  const baseBytes = statSync(baseline).size;
  console.log(
    `bundle baseline (bare GetItem handler): ${(baseBytes / 1024).toFixed(0)} KB, load ${median(baseCpu).toFixed(1)} ms CPU`,
  );
  return entries.map((entry) => {
    const bytes = statSync(files.get(entry) ?? '').size;
    const { cpu, ratios } = samples.get(entry) ?? { cpu: [], ratios: [] };
    const result = {
      entry,
      bytes,
      bytesRatio: bytes / baseBytes,
      loadCpu: median(cpu),
      cpuRatio: median(ratios),
    };
    console.log(
      `bundle ${entry.padEnd(26)} ${(bytes / 1024).toFixed(0).padStart(4)} KB ${result.bytesRatio.toFixed(2)}x  load ${result.loadCpu.toFixed(1).padStart(5)} ms CPU ${result.cpuRatio.toFixed(2)}x`,
    );
    return result;
  });
};
