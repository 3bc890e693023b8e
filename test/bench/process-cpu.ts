import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/**
 * A process's parent and the CPU time (user + system, ms) it has used so far, from Linux's /proc;
 * undefined elsewhere or once it has ended. The bench reads it around a round to split a request's
 * CPU between the server and DynamoDB Local; `npm run test:profile` reads every process of a run.
 */
export const processStat = (pid: number): { parent: number; cpuMillis: number } | undefined => {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK']).toString()) || 100;
  // Fields after the command name, which may hold spaces: ppid is the 2nd, utime and stime the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    parent: Number(fields[1]),
    cpuMillis: ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond,
  };
};

/** CPU time (user + system, ms) a process has used so far; undefined elsewhere. */
export const processCpuMillis = (pid: number | undefined): number | undefined =>
  pid === undefined ? undefined : processStat(pid)?.cpuMillis;
