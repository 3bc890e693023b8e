import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3PictureStore } from '../../shared/pictures/s3-picture-store.js';

/**
 * The S3 adapter against a stand-in for S3 that checks every request's SigV4 signature the way
 * S3 does: it signs the request it received again (same credentials, date and signed headers)
 * and compares, so a header fetch changed or a body that is not the one signed is refused.
 */
const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const objects = new Map<string, { bytes: Buffer; contentType: string }>();
const seen: { method: string; path: string; authorization: string }[] = [];

const bodyOf = (request: IncomingMessage) =>
  new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
  });

const signatureValid = async (request: IncomingMessage, body: Buffer) => {
  const authorization = String(request.headers.authorization);
  const signedHeaders = authorization.match(/SignedHeaders=([^,]+)/)?.[1]?.split(';') ?? [];
  const amzDate = String(request.headers['x-amz-date']);
  const signingDate = new Date(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13)}`,
  );
  const resigned = await new SignatureV4({
    service: 's3',
    region: 'eu-west-1',
    credentials,
    sha256: class {
      #hash;
      constructor(secret?: Uint8Array | string) {
        this.#hash = secret === undefined ? createHash('sha256') : createHmac('sha256', secret);
      }
      update(data: Uint8Array | string) {
        this.#hash.update(data);
      }
      async digest() {
        return new Uint8Array(this.#hash.digest());
      }
    } as never,
    uriEscapePath: false,
  }).sign(
    {
      method: request.method ?? 'GET',
      protocol: 'http:',
      hostname: '127.0.0.1',
      path: request.url ?? '/',
      query: {},
      headers: Object.fromEntries(signedHeaders.map((name) => [name, String(request.headers[name])])),
      ...(body.length > 0 ? { body } : {}),
    },
    { signingDate },
  );
  return resigned.headers.authorization === authorization;
};

let endpoint = '';
const server = createServer(async (request, response) => {
  const body = await bodyOf(request);
  seen.push({
    method: request.method ?? '',
    path: request.url ?? '',
    authorization: String(request.headers.authorization),
  });
  if (!(await signatureValid(request, body))) return response.writeHead(403).end('SignatureDoesNotMatch');
  const key = request.url ?? '';
  if (request.method === 'PUT') {
    objects.set(key, { bytes: body, contentType: String(request.headers['content-type']) });
    return response.writeHead(200).end();
  }
  const object = objects.get(key);
  if (!object) return response.writeHead(404).end('NoSuchKey');
  response.writeHead(200, { 'content-type': object.contentType }).end(object.bytes);
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
  });
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('S3 picture store (SigV4-signed fetch)', () => {
  it('puts and gets a picture with signed requests, and answers undefined for a missing one', async () => {
    const store = new S3PictureStore('pictures-bucket', { region: 'eu-west-1', endpoint });
    const bytes = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    await store.put('pictures/org-1/user 1', bytes, 'image/png');
    expect(await store.get('pictures/org-1/user 1')).toEqual({ bytes, contentType: 'image/png' });
    expect(await store.get('pictures/org-1/nobody')).toBeUndefined();
    expect(seen.map(({ method, path }) => `${method} ${path}`)).toEqual([
      'PUT /pictures-bucket/pictures/org-1/user%201',
      'GET /pictures-bucket/pictures/org-1/user%201',
      'GET /pictures-bucket/pictures/org-1/nobody',
    ]);
    expect(seen[0]?.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request, SignedHeaders=[^,]*x-amz-content-sha256[^,]*, Signature=[0-9a-f]{64}$/,
    );
  });

  it('fails naming the call when S3 refuses it', async () => {
    process.env.AWS_SECRET_ACCESS_KEY = 'not-the-key';
    try {
      const store = new S3PictureStore('pictures-bucket', { region: 'eu-west-1', endpoint });
      await expect(store.put('pictures/a/b', Uint8Array.from([1]), 'image/png')).rejects.toThrow(
        'S3 PutObject answered 403',
      );
    } finally {
      process.env.AWS_SECRET_ACCESS_KEY = credentials.secretAccessKey;
    }
  });
});
