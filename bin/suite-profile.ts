import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { processStat } from '../test/bench/process-cpu.js';

/**
 * `npm run test:profile [-- vitest arguments]`: runs the tests (all of them by default) and prints
 * where their CPU went: every process of the run by kind, read from /proc once a second (a process
 * that lives less than a second between two reads is missed), then each file's worker CPU and its
 * DynamoDB requests (test/support/suite-profile.ts). docs/testing.md explains what to do with it.
 */

interface Seen {
  kind: string;
  cpuMillis: number;
}

/** Where each test file's line goes (test/support/suite-profile.ts). */
const SUITE_PROFILE_FILES = '.tmp/suite-profile/files.jsonl';

const kindOf = (command: string): string => {
  if (command.includes('DynamoDBLocal')) return 'DynamoDB Local (Java)';
  if (command.includes('chromium') || command.includes('--type=')) return 'Chromium';
  if (command.includes('esbuild')) return 'esbuild (bundles)';
  if (/\btsc\b|typescript/.test(command)) return 'TypeScript compiler (type-check tests)';
  if (command.includes('vitest/vitest.mjs')) return 'vitest main process (transforms, reports)';
  if (command.includes('vitest')) return 'vitest workers (tests and the service they run)';
  return 'other processes the tests start (npm start, the CLI, linters)';
};

const readProcesses = () => {
  const processes = new Map<number, NonNullable<ReturnType<typeof processStat>>>();
  for (const entry of readdirSync('/proc')) {
    const stat = /^\d+$/.test(entry) ? processStat(Number(entry)) : undefined;
    if (stat) processes.set(Number(entry), stat);
  }
  return processes;
};

const descendsFrom = (pid: number, root: number, processes: ReturnType<typeof readProcesses>) => {
  for (let current: number | undefined = pid; current && current > 1; ) {
    if (current === root) return true;
    current = processes.get(current)?.parent;
  }
  return false;
};

const seen = new Map<number, Seen>();
const sample = (root: number) => {
  const processes = readProcesses();
  for (const [pid, { cpuMillis }] of processes) {
    if (!descendsFrom(pid, root, processes)) continue;
    const known = seen.get(pid);
    if (known) {
      known.cpuMillis = Math.max(known.cpuMillis, cpuMillis);
      continue;
    }
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      seen.set(pid, { kind: kindOf(command), cpuMillis });
    } catch {
      // Ended meanwhile.
    }
  }
};

const seconds = (value: number) => `${value.toFixed(1).padStart(7)} s`;

const printProcesses = () => {
  const byKind = new Map<string, number>();
  for (const { kind, cpuMillis } of seen.values())
    byKind.set(kind, (byKind.get(kind) ?? 0) + cpuMillis / 1000);
  const total = [...byKind.values()].reduce((sum, value) => sum + value, 0);
  console.log('\nCPU of the run by process kind:');
  for (const [kind, cpu] of [...byKind].sort((a, b) => b[1] - a[1])) console.log(`${seconds(cpu)}  ${kind}`);
  console.log(`${seconds(total)}  in all`);
};

interface FileLine {
  file: string;
  cpuSeconds: number;
  requests: Record<string, number>;
}

const printFiles = () => {
  if (!existsSync(SUITE_PROFILE_FILES)) return;
  const files: FileLine[] = readFileSync(SUITE_PROFILE_FILES, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const requestsOf = (line: FileLine) => Object.values(line.requests).reduce((sum, count) => sum + count, 0);
  const byOperation = new Map<string, number>();
  for (const line of files)
    for (const [operation, count] of Object.entries(line.requests))
      byOperation.set(operation, (byOperation.get(operation) ?? 0) + count);
  const cpu = files.reduce((sum, line) => sum + line.cpuSeconds, 0);
  const requests = files.reduce((sum, line) => sum + requestsOf(line), 0);
  console.log(
    `\n${files.length} files: ${cpu.toFixed(1)} s of worker CPU inside them (imports not counted), ${requests} DynamoDB requests:`,
  );
  console.log(
    [...byOperation]
      .sort((a, b) => b[1] - a[1])
      .map(([operation, count]) => `${operation} ${count}`)
      .join(', '),
  );
  const printTop = (title: string, measure: (line: FileLine) => number) => {
    console.log(`\nThe 15 files that ${title} (worker CPU, DynamoDB requests):`);
    for (const line of [...files].sort((a, b) => measure(b) - measure(a)).slice(0, 15))
      console.log(`${seconds(line.cpuSeconds)} ${String(requestsOf(line)).padStart(6)}  ${line.file}`);
  };
  printTop('send the most DynamoDB requests', requestsOf);
  printTop('use the most worker CPU', (line) => line.cpuSeconds);
};

rmSync(SUITE_PROFILE_FILES, { force: true });
const started = performance.now();
const vitest = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, IDP_SUITE_PROFILE: SUITE_PROFILE_FILES },
});
const sampler = setInterval(() => vitest.pid && sample(vitest.pid), 1000);
vitest.on('exit', (code) => {
  clearInterval(sampler);
  console.log(`\nvitest ended with ${code} after ${((performance.now() - started) / 1000).toFixed(0)} s`);
  printProcesses();
  printFiles();
  process.exitCode = code ?? 1;
});
