import { randomBytes } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { beforeAll, inject } from 'vitest';
import { ensureTable } from '../../bin/local/table.js';
import { reloadConfig } from '../../shared/config.js';

/**
 * One database per test process inside the shared DynamoDB Local (it keeps one per access key id,
 * letters and digits only), and a table of its own for each test file in it. DynamoDB Local runs
 * background jobs for every database and every table it holds, for as long as it runs: with a
 * database per file, a full run ended with about 150 of them, costing more and more CPU (about a
 * third of a core at the end).
 */
const PROCESS_DATABASE = `test${process.pid}`;

interface FileTable {
  database: string;
  table: string;
}

/** The tables this file was given, dropped once it is done (drop-file-tables.ts). */
const fileTables: FileTable[] = [];
let adminCliFile = false;

/**
 * For a file that runs the admin CLI, whose local target is always the table `idp`
 * (bin/admin/target.ts): each table `isolateDatabase` gives it is `idp`, in a database of its own.
 */
export const runsAdminCli = (): void => {
  adminCliFile = true;
};

/** Points this test file at a table of its own: the store follows at once. */
export const isolateDatabase = (): string => {
  const endpoint = inject('dynamoDbEndpoint');
  const given: FileTable = adminCliFile
    ? { database: `test${randomBytes(8).toString('hex')}`, table: 'idp' }
    : { database: PROCESS_DATABASE, table: `idp-${randomBytes(6).toString('hex')}` };
  fileTables.push(given);
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: given.database,
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: 'us-east-1',
    IDP_DYNAMODB_ENDPOINT: endpoint,
    IDP_TABLE_NAME: given.table,
  });
  // The store follows (shared/config.ts, perStoreSettings), even where something read the settings before.
  reloadConfig();
  return endpoint;
};

/** The table `isolateDatabase` gave this file last, for a test that points the store elsewhere and back. */
export const fileTable = (): string => {
  const given = fileTables.at(-1);
  if (!given) throw new Error('isolateDatabase was not called in this file');
  return given.table;
};

/** `startLocalService`'s database options, pointed at a table of this file's own. */
export const isolatedServiceDatabase = (): { dynamoDbEndpoint: string; tableName: string } => {
  const dynamoDbEndpoint = isolateDatabase();
  return { dynamoDbEndpoint, tableName: fileTable() };
};

/** For tests of the store modules without a service: this file's own table. */
export const useDatabase = (): void => {
  beforeAll(async () => {
    await ensureTable(new DynamoDBClient({ endpoint: isolateDatabase() }), fileTable());
  });
};

/** Drops the tables this file was given (after its own `afterAll` hooks: they stop its servers). */
export const dropFileTables = async (): Promise<void> => {
  const given = fileTables.splice(0);
  adminCliFile = false;
  await Promise.all(
    given.map(async ({ database, table }) => {
      const client = new DynamoDBClient({
        endpoint: inject('dynamoDbEndpoint'),
        region: 'us-east-1',
        credentials: { accessKeyId: database, secretAccessKey: 'local' },
      });
      try {
        await client.send(new DeleteTableCommand({ TableName: table }));
      } catch (error) {
        // A file that never created its table (it only needed the settings).
        if ((error as Error).name !== 'ResourceNotFoundException') throw error;
      } finally {
        client.destroy();
      }
    }),
  );
};
