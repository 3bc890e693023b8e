import type { SignatureV4 } from '@smithy/signature-v4';
import { signedFetch, signerFor } from '../aws/request-signing.js';
import type { PictureStore } from './picture-store.js';

/**
 * Deployed adapter: the stack's private, encrypted bucket; the API streams pictures out. It
 * sends S3's two REST calls (PutObject, GetObject) as signed fetches instead of through the S3
 * client: that client is about 150 KB of the function's bundle for two requests.
 */
export class S3PictureStore implements PictureStore {
  readonly #origin: string;
  readonly #signer: SignatureV4;

  constructor(bucket: string, options: { region?: string; endpoint?: string } = {}) {
    const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
    this.#origin = options.endpoint
      ? `${options.endpoint}/${bucket}`
      : `https://${bucket}.s3.${region}.amazonaws.com`;
    // S3 signs the path as sent, without encoding it a second time.
    this.#signer = signerFor('s3', region, { uriEscapePath: false });
  }

  async #send(method: 'GET' | 'PUT', key: string, body?: Uint8Array, contentType?: string) {
    const url = new URL(`${this.#origin}/${key.split('/').map(encodeURIComponent).join('/')}`);
    return signedFetch(this.#signer, url, {
      method,
      ...(contentType ? { headers: { 'content-type': contentType } } : {}),
      ...(body ? { body } : {}),
    });
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
