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

/** Starts one in-memory DynamoDB Local for the run and stops it afterwards. */
export default async function setup(project: TestProject) {
  const dynamo = await startDynamoDbLocal({ port: await freePort() });
  project.provide('dynamoDbEndpoint', dynamo.endpoint);
  return () => dynamo.stop();
}
