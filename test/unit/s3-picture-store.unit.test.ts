import {
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { S3PictureStore } from '../../shared/pictures/s3-picture-store.js';

/** The S3 adapter's two calls, through the SDK's client (its protocol is the SDK's to keep right). */
const s3 = mockClient(S3Client);
afterAll(() => s3.restore());
beforeEach(() => s3.reset());

/** What the SDK's GetObject answers as its body, reduced to the one method the store reads. */
const body = (bytes: Uint8Array) => ({ transformToByteArray: async () => bytes }) as never;

describe('S3 picture store', () => {
  it('puts a picture with its content type and reads it back', async () => {
    const store = new S3PictureStore('pictures-bucket');
    const bytes = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    s3.on(PutObjectCommand).resolves({});
    await store.put('pictures/org-1/user 1', bytes, 'image/png');
    expect(s3.commandCalls(PutObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'pictures-bucket',
      Key: 'pictures/org-1/user 1',
      Body: bytes,
      ContentType: 'image/png',
    });

    s3.on(GetObjectCommand, { Bucket: 'pictures-bucket', Key: 'pictures/org-1/user 1' }).resolves({
      Body: body(bytes),
      ContentType: 'image/png',
    });
    expect(await store.get('pictures/org-1/user 1')).toEqual({
      bytes: new Uint8Array(bytes),
      contentType: 'image/png',
    });
  });

  it('answers the version a put stored, reads that version, and deletes a key', async () => {
    const store = new S3PictureStore('pictures-bucket');
    const bytes = Uint8Array.from([0x47, 0x49, 0x46]);
    s3.on(PutObjectCommand).resolves({ VersionId: 'v-2' });
    expect(await store.put('pictures/org-1/u', bytes, 'image/gif')).toBe('v-2');
    s3.on(GetObjectCommand, { Key: 'pictures/org-1/u', VersionId: 'v-1' }).resolves({
      Body: body(bytes),
      ContentType: 'image/gif',
    });
    expect(await store.get('pictures/org-1/u', 'v-1')).toEqual({ bytes, contentType: 'image/gif' });
    expect(s3.commandCalls(GetObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'pictures-bucket',
      Key: 'pictures/org-1/u',
      VersionId: 'v-1',
    });
    // A version S3 no longer has (expired): no picture.
    s3.on(GetObjectCommand, { VersionId: 'gone' }).rejects(
      new S3ServiceException({ name: 'NoSuchVersion', $fault: 'client', message: 'gone', $metadata: {} }),
    );
    expect(await store.get('pictures/org-1/u', 'gone')).toBeUndefined();
    s3.on(DeleteObjectCommand).resolves({});
    await store.delete('pictures/org-1/u');
    expect(s3.commandCalls(DeleteObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'pictures-bucket',
      Key: 'pictures/org-1/u',
    });
  });

  it('answers undefined for a missing picture, and fails on any other refusal', async () => {
    const store = new S3PictureStore('pictures-bucket');
    s3.on(GetObjectCommand, { Key: 'pictures/org-1/nobody' }).rejects(
      new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} }),
    );
    expect(await store.get('pictures/org-1/nobody')).toBeUndefined();

    const denied = new S3ServiceException({
      name: 'AccessDenied',
      $fault: 'client',
      message: 'Access Denied',
      $metadata: { httpStatusCode: 403 },
    });
    s3.on(GetObjectCommand, { Key: 'pictures/org-1/forbidden' }).rejects(denied);
    await expect(store.get('pictures/org-1/forbidden')).rejects.toBe(denied);
    s3.on(PutObjectCommand).rejects(denied);
    await expect(store.put('pictures/a/b', Uint8Array.from([1]), 'image/png')).rejects.toBe(denied);
  });

  it('speaks path-style to a given endpoint (a stand-in), with the SDK default chain otherwise', async () => {
    const local = new S3PictureStore('pictures-bucket', { endpoint: 'http://127.0.0.1:9' });
    s3.on(PutObjectCommand).resolves({});
    await local.put('k', Uint8Array.from([1]), 'image/png');
    const client = s3.commandCalls(PutObjectCommand)[0]?.thisValue as S3Client;
    expect(client.config.forcePathStyle).toBe(true);
  });
});
