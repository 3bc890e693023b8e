import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsRequestHandler } from '../aws/request-timeouts.js';
import { type StoreConfig, storeConfig } from '../config.js';

let clients: { settings: StoreConfig; raw: DynamoDBClient; document: DynamoDBDocumentClient } | undefined;

export const SCAN_REFUSED = 'The service never scans the table (one Query per page): a Scan is a defect';

/**
 * No operation of the service scans: deployed, IAM refuses a Scan; everywhere (the local server,
 * the CLI, every test) the client refuses one before sending it, so a Scan fails where it is made.
 */
const refuseScans = (client: DynamoDBClient) =>
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'ScanCommand') throw new Error(SCAN_REFUSED);
      return next(args);
    },
    { step: 'initialize', name: 'refuseScans' },
  );

/**
 * The item actions IAM authorizes, each on an item's partition: a transaction's items are each a
 * put, update, delete or condition check (a read, which IAM still checks per item), a
 * TransactGetItems' each a GetItem.
 */
export type TableItemAction =
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'BatchWriteItem'
  | 'ConditionCheckItem'
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query';

/** What the function running now may do to the table; set only where one process runs several. */
interface TableGrant {
  functionName: string;
  allows: (action: TableItemAction, partition: string) => boolean;
  /** Whether it may Query the index (IAM grants indexes by name). */
  queriesIndex: (index: string) => boolean;
}
const runningGrant = new AsyncLocalStorage<TableGrant>();

/**
 * Runs `invoke` as a function whose table requests `grant` allows: the local gateway runs every
 * function in one process, and this refuses there, before sending, a read or write IAM would
 * refuse the deployed function (lib/table-grants.ts), so a missing grant fails every test that
 * makes it.
 */
export const withTableGrant = <T>(grant: TableGrant, invoke: () => T): T => runningGrant.run(grant, invoke);

/** What IAM answers a function writing outside its grants. */
export class AccessDeniedException extends Error {
  override name = 'AccessDeniedException';
}

type Input = Record<string, unknown>;
/** A string attribute as the document client or the raw client holds it. */
const stringOf = (value: unknown): string =>
  typeof value === 'string' ? value : String((value as { S?: string } | undefined)?.S);
const partitionOf = (item: unknown): string => stringOf((item as Input | undefined)?.pk);

/** The partition a Query of the table names: the value its key condition compares `pk` with. */
const queriedPartition = (input: Input): string => {
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as Input;
  for (const [, name = '', value = ''] of String(input.KeyConditionExpression).matchAll(
    /(#?\w+)\s*=\s*(:\w+)/g,
  ))
    if ((names[name] ?? name) === 'pk') return stringOf(values[value]);
  return 'UNKNOWN';
};

/** What IAM authorizes in a request: item actions, each on a partition, and index Queries. */
type TableRequest = [TableItemAction, string] | ['QueryIndex', string];

const tableRequests = (commandName: string, input: Input): TableRequest[] => {
  switch (commandName) {
    case 'GetItemCommand':
      return [['GetItem', partitionOf(input.Key)]];
    case 'BatchGetItemCommand':
      return Object.values(input.RequestItems as Record<string, { Keys: Input[] }>).flatMap(({ Keys }) =>
        Keys.map((key): TableRequest => ['BatchGetItem', partitionOf(key)]),
      );
    case 'TransactGetItemsCommand':
      return (input.TransactItems as { Get: Input }[]).map(({ Get }) => ['GetItem', partitionOf(Get.Key)]);
    case 'QueryCommand':
      return input.IndexName
        ? [['QueryIndex', String(input.IndexName)]]
        : [['Query', queriedPartition(input)]];
    case 'PutItemCommand':
      return [['PutItem', partitionOf(input.Item)]];
    case 'UpdateItemCommand':
      return [['UpdateItem', partitionOf(input.Key)]];
    case 'DeleteItemCommand':
      return [['DeleteItem', partitionOf(input.Key)]];
    case 'BatchWriteItemCommand':
      return Object.values(input.RequestItems as Record<string, Input[]>)
        .flat()
        .map((request) => [
          'BatchWriteItem',
          partitionOf(
            (request.PutRequest as Input | undefined)?.Item ?? (request.DeleteRequest as Input)?.Key,
          ),
        ]);
    case 'TransactWriteItemsCommand':
      return (input.TransactItems as Input[]).flatMap((item): [TableItemAction, string][] => {
        if (item.Put) return [['PutItem', partitionOf((item.Put as Input).Item)]];
        if (item.Update) return [['UpdateItem', partitionOf((item.Update as Input).Key)]];
        if (item.Delete) return [['DeleteItem', partitionOf((item.Delete as Input).Key)]];
        return [['ConditionCheckItem', partitionOf((item.ConditionCheck as Input | undefined)?.Key)]];
      });
    default:
      return [];
  }
};

const refuseUngrantedRequests = (client: DynamoDBClient) =>
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const grant = runningGrant.getStore();
      if (!grant) return next(args);
      for (const [action, target] of tableRequests(String(context.commandName), args.input as Input)) {
        if (action === 'QueryIndex' ? !grant.queriesIndex(target) : !grant.allows(action, target))
          throw new AccessDeniedException(
            action === 'QueryIndex'
              ? `${grant.functionName} is not authorized to perform dynamodb:Query on index ${target}`
              : `${grant.functionName} is not authorized to perform dynamodb:${action} on an item of ${target}`,
          );
      }
      return next(args);
    },
    { step: 'initialize', name: 'refuseUngrantedRequests' },
  );

const current = () => {
  const settings = storeConfig();
  // A deployed function reads its settings once; the operator CLI and tests re-point the store
  // (`reloadConfig()`), and the clients follow.
  if (clients?.settings !== settings) {
    const { dynamoDbEndpoint } = settings;
    const raw = new DynamoDBClient({
      ...(dynamoDbEndpoint ? { endpoint: dynamoDbEndpoint } : {}),
      requestHandler: awsRequestHandler(),
    });
    refuseScans(raw);
    refuseUngrantedRequests(raw);
    clients = {
      settings,
      raw,
      document: DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } }),
    };
  }
  return clients;
};

/**
 * The process's one DynamoDB client, created on first use rather than at import, so a cold start
 * does only what its first request needs. Region and credentials come from the SDK's default
 * chain; the endpoint is set only locally (DynamoDB Local), through `storeConfig()`.
 */
export const dynamoDbClient = (): DynamoDBClient => current().raw;

/** The document client over it: items in and out as plain objects, undefined attributes left out. */
export const db = (): DynamoDBDocumentClient => current().document;

export const tableName = (): string => storeConfig().tableName;
