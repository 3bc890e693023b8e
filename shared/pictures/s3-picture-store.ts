import {
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
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

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<string> {
    const stored = await this.#client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentType: contentType }),
    );
    // The stack's bucket is versioned; S3 names the version of an unversioned bucket's object "null".
    return stored.VersionId ?? 'null';
  }

  async get(key: string, version?: string) {
    try {
      const object = await this.#client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, ...(version ? { VersionId: version } : {}) }),
      );
      if (!object.Body) return undefined;
      return {
        bytes: await object.Body.transformToByteArray(),
        contentType: object.ContentType ?? 'application/octet-stream',
      };
    } catch (error) {
      // A version gone (expired) is S3's NoSuchVersion, which the SDK has no class for.
      if (error instanceof NoSuchKey || (error as Error).name === 'NoSuchVersion') return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }
}
