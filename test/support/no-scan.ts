import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, expect } from 'vitest';

/**
 * Every test file runs with this watch on both DynamoDB clients (the document client sends
 * through its own prototype): the service must never Scan, so any Scan fails that file.
 */
const scans: string[] = [];
for (const client of [DynamoDBClient, DynamoDBDocumentClient]) {
  const send = client.prototype.send;
  client.prototype.send = function recordScans(
    this: unknown,
    command: { constructor: { name: string } },
    ...rest: unknown[]
  ) {
    if (command.constructor.name === 'ScanCommand') scans.push(command.constructor.name);
    return (send as (...args: unknown[]) => unknown).call(this, command, ...rest);
  } as typeof send;
}

afterAll(() => {
  expect(scans, 'no operation may issue a Scan').toEqual([]);
});
