import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * What `npm run mutation` ends with (docs/testing.md, "Mutation testing"): the mutation score of
 * each mutated module and overall, and every mutant no test killed, read from Stryker's JSON
 * report. Fails when the overall score is below the configuration's `thresholds.low`.
 */

type Status =
  | 'Killed'
  | 'Timeout'
  | 'Survived'
  | 'NoCoverage'
  | 'CompileError'
  | 'RuntimeError'
  | 'Ignored'
  | 'Pending';

interface Position {
  line: number;
  column: number;
}

interface Mutant {
  mutatorName: string;
  replacement?: string;
  status: Status;
  location: { start: Position; end: Position };
}

interface Report {
  thresholds: { low: number };
  files: Record<string, { source: string; mutants: Mutant[] }>;
}

const REPORT = fileURLToPath(new URL('../reports/mutation/mutation.json', import.meta.url));

interface Tally {
  detected: number;
  undetected: number;
}

const add = (tally: Tally, mutant: Mutant) => {
  if (mutant.status === 'Killed' || mutant.status === 'Timeout') tally.detected++;
  if (mutant.status === 'Survived' || mutant.status === 'NoCoverage') tally.undetected++;
};

/** Stryker's score: detected of the valid mutants (compile and runtime errors and ignored ones left out). */
const score = ({ detected, undetected }: Tally) =>
  detected + undetected === 0 ? 100 : (100 * detected) / (detected + undetected);

/** The mutated source text on one line, shortened for a terminal. */
const oneLine = (text: string, width = 60) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
};

/** The text a mutant replaced (lines and columns 1-based, the end column exclusive). */
const original = (source: string, { start, end }: Mutant['location']) => {
  const lines = source.split('\n').slice(start.line - 1, end.line);
  if (lines.length === 1) return (lines[0] ?? '').slice(start.column - 1, end.column - 1);
  lines[0] = (lines[0] ?? '').slice(start.column - 1);
  lines[lines.length - 1] = (lines.at(-1) ?? '').slice(0, end.column - 1);
  return lines.join('\n');
};

const report = JSON.parse(readFileSync(REPORT, 'utf8')) as Report;
const total: Tally = { detected: 0, undetected: 0 };
const rows: string[] = [];
const survivors: string[] = [];
const names = Object.keys(report.files).sort();
const width = Math.max(...names.map((name) => name.length), 'overall'.length);

for (const name of names) {
  const { source, mutants } = report.files[name] as Report['files'][string];
  const tally: Tally = { detected: 0, undetected: 0 };
  for (const mutant of mutants) {
    add(tally, mutant);
    add(total, mutant);
    if (mutant.status !== 'Survived' && mutant.status !== 'NoCoverage') continue;
    const { line, column } = mutant.location.start;
    const what = mutant.replacement === undefined ? '' : ` → ${oneLine(mutant.replacement)}`;
    const uncovered = mutant.status === 'NoCoverage' ? ' (no test runs it)' : '';
    survivors.push(
      `${name}:${line}:${column}  ${mutant.mutatorName}${uncovered}: ${oneLine(original(source, mutant.location))}${what}`,
    );
  }
  rows.push(
    `${name.padEnd(width)}  ${score(tally).toFixed(1).padStart(5)}%  ${String(tally.detected).padStart(4)} killed  ${String(tally.undetected).padStart(3)} survived`,
  );
}

console.log('\nMutation score per module\n');
for (const row of rows) console.log(row);
console.log(
  `${'overall'.padEnd(width)}  ${score(total).toFixed(1).padStart(5)}%  ${String(total.detected).padStart(4)} killed  ${String(total.undetected).padStart(3)} survived`,
);
console.log(`\nSurviving mutants (${survivors.length}; docs/testing.md lists the equivalent ones)\n`);
for (const survivor of survivors) console.log(survivor);

if (score(total) < report.thresholds.low) {
  console.error(`\nThe mutation score is below ${report.thresholds.low}%.`);
  process.exitCode = 1;
}
