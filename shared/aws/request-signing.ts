import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * AWS calls the functions send with fetch, signed by the AWS SDK's own SigV4 signer, where a
 * service's SDK client would cost the bundle far more than the few requests need (README,
 * "Lambda settings and bundles"): S3 for pictures, Secrets Manager for secrets.
 */

/** SHA-256 and HMAC-SHA-256 for the request signer, on node:crypto. */
export class NodeSha256 {
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
export const credentialsFromEnvironment = async () => {
  const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN } = process.env;
  if (!AWS_ACCESS_KEY_ID || !AWS_SECRET_ACCESS_KEY) throw new Error('No AWS credentials in the environment');
  return {
    accessKeyId: AWS_ACCESS_KEY_ID,
    secretAccessKey: AWS_SECRET_ACCESS_KEY,
    ...(AWS_SESSION_TOKEN ? { sessionToken: AWS_SESSION_TOKEN } : {}),
  };
};

/** A SigV4 signer for one service in the function's region, with the role's credentials. */
export const signerFor = (service: string, region: string, options: { uriEscapePath?: boolean } = {}) =>
  new SignatureV4({
    service,
    region,
    sha256: NodeSha256,
    credentials: credentialsFromEnvironment,
    ...options,
  });

/** Signs and sends one request; fetch sets `Host` itself, to the value signed. */
export const signedFetch = async (
  signer: SignatureV4,
  url: URL,
  request: { method: string; headers?: Record<string, string>; body?: string | Uint8Array },
): Promise<Response> => {
  const signed = await signer.sign({
    method: request.method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query: {},
    headers: { host: url.host, ...request.headers },
    body: request.body,
  });
  const { host: _host, ...headers } = signed.headers;
  return fetch(url, { method: request.method, headers, ...(request.body ? { body: request.body } : {}) });
};
