import { type ChildProcess, fork } from 'node:child_process';

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts a server (an instance of the service, a bench peer) in its own process (its own event loop and core, as a Lambda instance
 * has) and resolves with what it announces once it serves (`announce`). Its standard output
 * (the access log) goes nowhere, as a deployed function's goes to CloudWatch.
 */
export const startServer = <T>(
  script: string,
  env: Record<string, string> = {},
): Promise<T & { pid: number | undefined; stop(): void; ask(message: object): Promise<unknown> }> =>
  new Promise((resolve, reject) => {
    const child = fork(script, [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, ...env, NODE_NO_WARNINGS: '1' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    running.add(child);
    const stop = () => {
      running.delete(child);
      child.kill();
    };
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before serving`)));
    // A message for the server, answered by its next message (e.g. a clock pinned).
    const ask = (message: object) =>
      new Promise<unknown>((answered) => {
        child.once('message', answered);
        child.send(message);
      });
    child.once('message', (message) => resolve({ ...(message as T), pid: child.pid, stop, ask }));
  });

/** What a child server calls once it serves. */
export const announce = (details: Record<string, unknown>) => process.send?.(details);
