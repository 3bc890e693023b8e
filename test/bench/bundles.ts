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
      },
    }),
  );
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * Every function's bundle against the bare baseline: bytes, and module-load CPU measured in
 * alternating rounds (the median of each), so machine noise hits both alike.
 */
export const benchBundles = async (rounds: number) => {
  const outdir = mkdtempSync(join(tmpdir(), 'idp-bundles-'));
  const entries = readdirSync('functions').map((file) => `functions/${file}`);
  const files = new Map<string, string>([['baseline', await bundle(BASELINE, outdir)]]);
  for (const entry of entries) files.set(entry, await bundle(entry, outdir));
  const cpu = new Map<string, number[]>([...files.keys()].map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, file] of files) cpu.get(name)?.push(loadCpuMillis(file));
  }
  const baseBytes = statSync(files.get('baseline') ?? '').size;
  const baseCpu = median(cpu.get('baseline') ?? []);
  console.log(
    `bundle baseline (bare GetItem handler): ${(baseBytes / 1024).toFixed(0)} KB, load ${baseCpu.toFixed(1)} ms CPU`,
  );
  const results = entries.map((entry) => {
    const bytes = statSync(files.get(entry) ?? '').size;
    const loadCpu = median(cpu.get(entry) ?? []);
    const result = { entry, bytes, bytesRatio: bytes / baseBytes, loadCpu, cpuRatio: loadCpu / baseCpu };
    console.log(
      `bundle ${entry.padEnd(26)} ${(bytes / 1024).toFixed(0).padStart(4)} KB ${result.bytesRatio.toFixed(2)}x  load ${loadCpu.toFixed(1).padStart(5)} ms CPU ${result.cpuRatio.toFixed(2)}x`,
    );
    return result;
  });
  return results;
};
