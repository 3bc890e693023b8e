import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type {
  BatchGetCommandInput,
  BatchGetCommandOutput,
  BatchWriteCommandInput,
  BatchWriteCommandOutput,
  DeleteCommandInput,
  DeleteCommandOutput,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  QueryCommandInput,
  QueryCommandOutput,
  TransactWriteCommandInput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { SignatureV4 } from '@smithy/signature-v4';
import { signerFor } from '../aws/request-signing.js';
import { countMetric } from '../observability/metrics.js';

/**
 * The functions' DynamoDB client: the data-plane operations the store uses, sent as DynamoDB's
 * JSON protocol over a keep-alive connection, signed by the AWS SDK's SigV4 signer, items
 * converted by the SDK's own marshalling. Inputs and outputs have the document client's shapes.
 *
 * Written here rather than using the SDK's client, which was most of every request's CPU and of
 * every bundle (`npm run bench`, README "Performance"): a GetItem costs about 0.9-1.4 ms of CPU
 * through it and 0.3-0.5 ms here, and it was two thirds of a function's bytes. Like the SDK's
 * default, throttling, server errors and dropped connections are retried (3 attempts, jittered
 * exponential backoff); unlike it, the response's CRC32 is not checked (TLS guards the bytes).
 */

type Doc = Record<string, unknown>;
type AttributeMap = Record<string, unknown>;

interface Operations {
  GetItem: { input: GetCommandInput; output: Pick<GetCommandOutput, 'Item'> };
  PutItem: { input: PutCommandInput; output: object };
  UpdateItem: { input: UpdateCommandInput; output: Pick<UpdateCommandOutput, 'Attributes'> };
  DeleteItem: { input: DeleteCommandInput; output: Pick<DeleteCommandOutput, 'Attributes'> };
  Query: {
    input: QueryCommandInput;
    output: Pick<QueryCommandOutput, 'Items' | 'LastEvaluatedKey' | 'ConsumedCapacity'>;
  };
  BatchGetItem: {
    input: BatchGetCommandInput;
    output: Pick<BatchGetCommandOutput, 'Responses' | 'UnprocessedKeys'>;
  };
  BatchWriteItem: {
    input: BatchWriteCommandInput;
    output: Pick<BatchWriteCommandOutput, 'UnprocessedItems'>;
  };
  TransactWriteItems: { input: TransactWriteCommandInput; output: object };
}
export type OperationName = keyof Operations;
export type OutputOf<O extends OperationName> = Operations[O]['output'];

/** Undefined attributes are left out, as the store's document client did. */
const toWire = (item: Doc | undefined) =>
  item === undefined ? undefined : marshall(item, { removeUndefinedValues: true });
const fromWire = (item: AttributeMap | undefined) =>
  item === undefined ? undefined : unmarshall(item as Parameters<typeof unmarshall>[0]);
const mapValues = <T, U>(record: Record<string, T> | undefined, map: (value: T) => U) =>
  record === undefined
    ? undefined
    : Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));

/** An input with its keys, items and expression values in DynamoDB's attribute-value format. */
const withWireValues = <T extends { Key?: Doc; Item?: Doc; ExpressionAttributeValues?: Doc }>(input: T) => ({
  ...input,
  ...(input.Key ? { Key: toWire(input.Key) } : {}),
  ...(input.Item ? { Item: toWire(input.Item) } : {}),
  ...(input.ExpressionAttributeValues
    ? { ExpressionAttributeValues: toWire(input.ExpressionAttributeValues) }
    : {}),
});

type WireRequest = { Keys?: Doc[] } & Record<string, unknown>;
type WireWrite = { PutRequest?: { Item: Doc }; DeleteRequest?: { Key: Doc } };

const batchGetToWire = (requests: Record<string, WireRequest> | undefined) =>
  mapValues(requests, (request) => ({ ...request, Keys: request.Keys?.map(toWire) }));
const batchGetFromWire = (requests: Record<string, WireRequest> | undefined) =>
  mapValues(requests, (request) => ({ ...request, Keys: request.Keys?.map((key) => fromWire(key) as Doc) }));
const batchWritesVia =
  (convert: (item: Doc) => Doc | undefined) => (requests: Record<string, WireWrite[]> | undefined) =>
    mapValues(requests, (writes) =>
      writes.map((write) =>
        write.PutRequest
          ? { PutRequest: { Item: convert(write.PutRequest.Item) } }
          : { DeleteRequest: { Key: convert(write.DeleteRequest?.Key ?? {}) } },
      ),
    );

const requestToWire: { [O in OperationName]: (input: Operations[O]['input']) => object } = {
  GetItem: withWireValues,
  PutItem: withWireValues,
  UpdateItem: withWireValues,
  DeleteItem: withWireValues,
  Query: (input) => ({ ...withWireValues(input), ExclusiveStartKey: toWire(input.ExclusiveStartKey) }),
  BatchGetItem: (input) => ({ ...input, RequestItems: batchGetToWire(input.RequestItems as never) }),
  BatchWriteItem: (input) => ({
    ...input,
    RequestItems: batchWritesVia(toWire)(input.RequestItems as never),
  }),
  TransactWriteItems: (input) => ({
    ...input,
    TransactItems: input.TransactItems?.map((item) => mapValues(item as Record<string, Doc>, withWireValues)),
  }),
};

interface WireOutput {
  Item?: AttributeMap;
  Items?: AttributeMap[];
  Attributes?: AttributeMap;
  LastEvaluatedKey?: AttributeMap;
  Responses?: Record<string, AttributeMap[]>;
  UnprocessedKeys?: Record<string, WireRequest>;
  UnprocessedItems?: Record<string, WireWrite[]>;
}

const outputFromWire = (output: WireOutput) => ({
  ...output,
  ...(output.Item ? { Item: fromWire(output.Item) } : {}),
  ...(output.Items ? { Items: output.Items.map(fromWire) } : {}),
  ...(output.Attributes ? { Attributes: fromWire(output.Attributes) } : {}),
  ...(output.LastEvaluatedKey ? { LastEvaluatedKey: fromWire(output.LastEvaluatedKey) } : {}),
  ...(output.Responses ? { Responses: mapValues(output.Responses, (items) => items.map(fromWire)) } : {}),
  ...(output.UnprocessedKeys ? { UnprocessedKeys: batchGetFromWire(output.UnprocessedKeys) } : {}),
  ...(output.UnprocessedItems
    ? { UnprocessedItems: batchWritesVia(fromWire)(output.UnprocessedItems as never) }
    : {}),
});

/** Why a transaction was cancelled, per item; `Item` is what a failed condition met, when asked. */
export interface CancellationReason {
  Code?: string;
  Message?: string;
  Item?: Doc;
}

/**
 * An error DynamoDB answered. `name` is its type without the namespace
 * (`ConditionalCheckFailedException`, `TransactionCanceledException`, …), as the SDK names them.
 */
export class DynamoDbError extends Error {
  /** The item a failed condition met, when the write asked for it (`ALL_OLD`). */
  readonly Item?: Doc;
  readonly CancellationReasons?: CancellationReason[];

  constructor(
    name: string,
    message: string,
    readonly statusCode: number,
    details: { Item?: AttributeMap; CancellationReasons?: (CancellationReason & { Item?: AttributeMap })[] },
  ) {
    super(message);
    this.name = name;
    if (details.Item) this.Item = fromWire(details.Item);
    if (details.CancellationReasons)
      this.CancellationReasons = details.CancellationReasons.map((reason) => ({
        ...reason,
        Item: fromWire(reason.Item),
      }));
  }
}

const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'LimitExceededException',
]);
const DROPPED_CONNECTION = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);
const MAX_ATTEMPTS = 3;

const isRetryable = (error: unknown): boolean =>
  error instanceof DynamoDbError
    ? error.statusCode >= 500 || THROTTLING.has(error.name)
    : DROPPED_CONNECTION.has((error as { code?: string }).code ?? '');

const backOff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * 50 * 2 ** attempt));

const readBody = (response: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let body = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      body += chunk;
    });
    response.on('end', () => resolve(body));
    response.on('error', reject);
  });

/** An error body is JSON, unless something between us and DynamoDB answered instead. */
const parsedError = (text: string): { __type?: string; message?: string; Message?: string } => {
  try {
    return JSON.parse(text) as never;
  } catch {
    return {};
  }
};

export class DynamoDbClient {
  readonly #url: URL;
  readonly #signer: SignatureV4;
  readonly #send: typeof httpRequest;
  readonly #agent: HttpAgent;

  /** `endpoint`: DynamoDB Local's address; deployed functions use the region's endpoint. */
  constructor(options: { region: string; endpoint?: string | undefined }) {
    this.#url = new URL(options.endpoint ?? `https://dynamodb.${options.region}.amazonaws.com`);
    this.#signer = signerFor('dynamodb', options.region);
    const secure = this.#url.protocol === 'https:';
    this.#send = secure ? httpsRequest : httpRequest;
    this.#agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  }

  /** One operation, retried as the SDK would; DynamoDB's refusals throw a `DynamoDbError`. */
  async send<O extends OperationName>(
    operation: O,
    input: Operations[O]['input'],
  ): Promise<Operations[O]['output']> {
    const body = JSON.stringify(requestToWire[operation](input as never));
    for (let attempt = 1; ; attempt++) {
      try {
        return outputFromWire(JSON.parse(await this.#post(operation, body)) as WireOutput) as never;
      } catch (error) {
        if (attempt >= MAX_ATTEMPTS || !isRetryable(error)) throw error;
        countMetric('RecoveredFaults');
        await backOff(attempt);
      }
    }
  }

  async #post(operation: OperationName, body: string): Promise<string> {
    const url = this.#url;
    const signed = await this.#signer.sign({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: '/',
      query: {},
      headers: {
        host: url.host,
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `DynamoDB_20120810.${operation}`,
      },
      body,
    });
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = this.#send(
        {
          agent: this.#agent,
          hostname: url.hostname,
          port: url.port,
          method: 'POST',
          path: '/',
          headers: { ...signed.headers, 'content-length': Buffer.byteLength(body) },
        },
        resolve,
      );
      request.on('error', reject);
      request.end(body);
    });
    const text = await readBody(response);
    if (response.statusCode === 200) return text;
    const error = parsedError(text);
    throw new DynamoDbError(
      error.__type?.slice(error.__type.lastIndexOf('#') + 1) ?? `HTTP${response.statusCode}`,
      error.message ?? error.Message ?? `DynamoDB answered ${response.statusCode}`,
      response.statusCode ?? 0,
      error as never,
    );
  }
}
