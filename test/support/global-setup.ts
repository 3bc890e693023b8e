import { createServer } from 'node:net';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../bin/local/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbEndpoint: string;
  }
}

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/**
 * A test run lasts minutes and keeps both cores busy: Java's optimizing compiler would spend more
 * CPU than its code saves, so only the quick compiler, and the single-threaded collector. Measured
 * on the integration files: about 55 s of Java CPU instead of about 75 s. The `npm start` test's
 * own DynamoDB Local starts use them too (a Java start costs seconds of CPU either way).
 */
export const TEST_RUN_JAVA_OPTIONS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';

/**
 * Starts one in-memory DynamoDB Local for the run and stops it after the last project is done:
 * each project of vitest.config.ts runs this setup, in the same process.
 */
const shared = globalThis as {
  idpDynamoDbLocal?: { started: ReturnType<typeof startDynamoDbLocal>; users: number };
};

export default async function setup(project: TestProject) {
  shared.idpDynamoDbLocal ??= {
    started: freePort().then((port) => startDynamoDbLocal({ port, javaOptions: TEST_RUN_JAVA_OPTIONS })),
    users: 0,
  };
  const run = shared.idpDynamoDbLocal;
  run.users += 1;
  const dynamo = await run.started;
  project.provide('dynamoDbEndpoint', dynamo.endpoint);
  return async () => {
    run.users -= 1;
    if (run.users === 0) await dynamo.stop();
  };
}
