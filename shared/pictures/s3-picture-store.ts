import { GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { awsRequestHandler } from '../aws/request-timeouts.js';
import type { PictureStore } from './picture-store.js';

/**
 * Deployed adapter: the stack's private, encrypted bucket; the API streams pictures out. Region
 * and credentials from the SDK's default chain; `endpoint` (path-style) only for tests.
 */
export class S3PictureStore implements PictureStore {
  readonly #client: S3Client;

  constructor(
    private readonly bucket: string,
    options: { endpoint?: string } = {},
  ) {
    this.#client = new S3Client({
      ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
      requestHandler: awsRequestHandler(),
    });
  }

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await this.#client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentType: contentType }),
    );
  }

  async get(key: string) {
    try {
      const object = await this.#client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!object.Body) return undefined;
      return {
        bytes: await object.Body.transformToByteArray(),
        contentType: object.ContentType ?? 'application/octet-stream',
      };
    } catch (error) {
      if (error instanceof NoSuchKey) return undefined;
      throw error;
    }
  }
}
