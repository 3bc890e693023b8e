import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/**
 * CPU time (user + system, ms) a process has used so far, from Linux's /proc; undefined elsewhere.
 * The bench reads it around a round to split a request's CPU between the server and DynamoDB Local.
 */
export const processCpuMillis = (pid: number | undefined): number | undefined => {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return undefined;
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK']).toString()) || 100;
  // Fields after the command name, which may hold spaces: utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
};
