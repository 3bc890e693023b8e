import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, expect } from 'vitest';

/**
 * Every test file runs with this watch on the DynamoDB client: the service must never Scan, so
 * any Scan issued while a test runs fails that file.
 */
const scans: string[] = [];
const send = DynamoDBClient.prototype.send;
DynamoDBClient.prototype.send = function recordScans(
  this: DynamoDBClient,
  command: unknown,
  ...rest: unknown[]
) {
  if (command instanceof ScanCommand) scans.push(String(command.input.TableName));
  return (send as (...args: unknown[]) => unknown).call(this, command, ...rest);
} as typeof send;

afterAll(() => {
  expect(scans, 'no operation may issue a Scan').toEqual([]);
});
