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
 * The run's DynamoDB Local serves about 40,000 requests over minutes: Java's optimizing compiler
 * pays for itself (a full `npm run test:profile` on 2026-11-27: 311 s of its CPU against 419 s
 * with the quick compiler alone). The single-threaded collector, as both cores are busy.
 */
export const TEST_RUN_JAVA_OPTIONS = '-XX:+UseSerialGC';

/**
 * A DynamoDB Local that lives seconds (the `npm start` test's own): the quick compiler alone, as
 * the optimizing one would not earn back its compiling.
 */
export const SHORT_RUN_JAVA_OPTIONS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';

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
