import { createServer, type IncomingMessage, request } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What the proxy does with one request: pass it on, or lose DynamoDB's answer to it. */
export type ProxyFault = 'none' | 'lose-answer' | 'stall';

export interface DynamoDbProxy {
  endpoint: string;
  /** The operations (`TransactWriteItems`, …) and idempotency tokens of every request received. */
  readonly received: { operation: string; clientRequestToken?: string }[];
  /** The fault for the next requests of `operation`, one per request, then `none`. */
  faults(operation: string, ...faults: ProxyFault[]): void;
  close(): Promise<void>;
}

const bodyOf = (message: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => resolve(Buffer.concat(chunks)));
    message.on('error', reject);
  });

/**
 * An HTTP proxy in front of DynamoDB Local that can lose an answer after DynamoDB acted on the
 * request (the connection drops before the answer arrives, as when a network path fails), or
 * stall (accept the request and never answer), to test what the SDK client does then.
 */
export const startDynamoDbProxy = async (target: string): Promise<DynamoDbProxy> => {
  const planned = new Map<string, ProxyFault[]>();
  const received: DynamoDbProxy['received'] = [];
  const sockets = new Set<Socket>();
  const server = createServer(async (incoming, outgoing) => {
    const body = await bodyOf(incoming);
    const operation = String(incoming.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    const parsed = JSON.parse(body.toString('utf8') || '{}') as { ClientRequestToken?: string };
    received.push({
      operation,
      ...(parsed.ClientRequestToken ? { clientRequestToken: parsed.ClientRequestToken } : {}),
    });
    const fault = planned.get(operation)?.shift() ?? 'none';
    if (fault === 'stall') return;
    const forwarded = request(new URL(incoming.url ?? '/', target), {
      method: incoming.method,
      headers: incoming.headers,
    });
    forwarded.on('response', async (answer) => {
      const answered = await bodyOf(answer);
      if (fault === 'lose-answer') {
        incoming.socket.destroy();
        return;
      }
      outgoing.writeHead(answer.statusCode ?? 500, answer.headers).end(answered);
    });
    forwarded.on('error', () => incoming.socket.destroy());
    forwarded.end(body);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    faults: (operation, ...faults) => planned.set(operation, faults),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
};
