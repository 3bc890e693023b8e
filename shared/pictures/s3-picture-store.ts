import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import type { PictureStore } from './picture-store.js';

/** SHA-256 and HMAC-SHA-256 for the request signer, on node:crypto. */
class NodeSha256 {
  #hash: Hash | Hmac;

  constructor(private readonly secret?: string | ArrayBuffer | ArrayBufferView) {
    this.#hash = this.#fresh();
  }

  #fresh(): Hash | Hmac {
    if (this.secret === undefined) return createHash('sha256');
    const key =
      typeof this.secret === 'string'
        ? this.secret
        : ArrayBuffer.isView(this.secret)
          ? Buffer.from(this.secret.buffer, this.secret.byteOffset, this.secret.byteLength)
          : Buffer.from(this.secret);
    return createHmac('sha256', key);
  }

  update(data: string | Uint8Array): void {
    this.#hash.update(data);
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.#hash.digest());
  }

  reset(): void {
    this.#hash = this.#fresh();
  }
}

/** Lambda hands every function its role's temporary credentials in these variables. */
const credentialsFromEnvironment = async () => {
  const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN } = process.env;
  if (!AWS_ACCESS_KEY_ID || !AWS_SECRET_ACCESS_KEY) throw new Error('No AWS credentials in the environment');
  return {
    accessKeyId: AWS_ACCESS_KEY_ID,
    secretAccessKey: AWS_SECRET_ACCESS_KEY,
    ...(AWS_SESSION_TOKEN ? { sessionToken: AWS_SESSION_TOKEN } : {}),
  };
};

/**
 * Deployed adapter: the stack's private, encrypted bucket; the API streams pictures out. It
 * sends S3's two REST calls (PutObject, GetObject) with fetch, signed by the AWS SDK's own
 * SigV4 signer, instead of through the S3 client: that client is about 150 KB of the function's
 * bundle for two requests (README, "Lambda settings and bundles").
 */
export class S3PictureStore implements PictureStore {
  readonly #origin: string;
  readonly #signer: SignatureV4;

  constructor(bucket: string, options: { region?: string; endpoint?: string } = {}) {
    const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
    this.#origin = options.endpoint
      ? `${options.endpoint}/${bucket}`
      : `https://${bucket}.s3.${region}.amazonaws.com`;
    this.#signer = new SignatureV4({
      service: 's3',
      region,
      sha256: NodeSha256,
      credentials: credentialsFromEnvironment,
      // S3 signs the path as sent, without encoding it a second time.
      uriEscapePath: false,
    });
  }

  async #send(method: 'GET' | 'PUT', key: string, body?: Uint8Array, contentType?: string) {
    const url = new URL(`${this.#origin}/${key.split('/').map(encodeURIComponent).join('/')}`);
    const signed = await this.#signer.sign({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: {},
      headers: { host: url.host, ...(contentType ? { 'content-type': contentType } : {}) },
      body,
    });
    // fetch sets Host itself, to the same value.
    const { host: _host, ...headers } = signed.headers;
    return fetch(url, { method, headers, ...(body ? { body } : {}) });
  }

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    const response = await this.#send('PUT', key, bytes, contentType);
    if (!response.ok) throw new Error(`S3 PutObject answered ${response.status}`);
  }

  async get(key: string) {
    const response = await this.#send('GET', key);
    if (response.status === 404) return undefined;
    if (!response.ok) throw new Error(`S3 GetObject answered ${response.status}`);
    return {
      bytes: new Uint8Array(await response.arrayBuffer()),
      contentType: response.headers.get('content-type') ?? 'application/octet-stream',
    };
  }
}
