import { describe, expect, it } from 'vitest';
import { pictureKey, pictureStore } from '../../../shared/pictures/picture-store.js';
import { getUser, updateUserAttributes } from '../../../shared/store/user-repository.js';
import {
  concat,
  contains,
  exifWithGps,
  JPEG_END,
  JPEG_START,
  jfif,
  jpegExif,
  jpegFrame,
  jpegTablesAndScan,
} from '../../support/picture-bytes.js';
import type { ApiUser } from '../../support/service.js';
import { uploadPicture, useService } from '../../support/service.js';

/**
 * A picture uploaded before uploads were cleaned was stored as sent (Exif GPS included); it is
 * cleaned when served. One uploaded now is served as stored.
 */
const service = useService();

const PHOTO = concat(JPEG_START, jfif, jpegExif, jpegFrame(1, 1), jpegTablesAndScan, JPEG_END);
const CLEANED = concat(JPEG_START, jfif, jpegFrame(1, 1), jpegTablesAndScan, JPEG_END);

const fetchPicture = async (id: string) => {
  const { body } = await service.call<ApiUser>('GET', `/idp/users/${id}`, { token: service.admin.token });
  return fetch(body.picture as string, { headers: { authorization: `Bearer ${service.admin.token}` } });
};
const served = async (id: string) => {
  const response = await fetchPicture(id);
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
};

/** What the upload did before: the bytes as sent, and the record naming them (not as cleaned). */
const storeAsBefore = async (bytes: Uint8Array) => {
  const id = await service.createUser();
  const store = await pictureStore();
  const version = await store.put(pictureKey(service.organizationId, id), bytes, 'image/jpeg');
  await updateUserAttributes(service.organizationId, id, {
    pictureContentType: 'image/jpeg',
    pictureUpdatedAt: Date.now(),
    pictureVersion: version,
  });
  return id;
};

describe('a picture stored by the version before cleaning', () => {
  it('control: one uploaded now is recorded as cleaned and served as stored', async () => {
    const id = await service.createUser();
    expect(contains(PHOTO, exifWithGps)).toBe(true);
    expect((await uploadPicture(service, id, { token: service.admin.token, bytes: PHOTO })).status).toBe(204);
    const record = await getUser(service.organizationId, id, true);
    expect(record?.pictureCleaned).toBe(true);
    const stored = await (await pictureStore()).get(
      pictureKey(service.organizationId, id),
      record?.pictureVersion,
    );
    expect(await served(id)).toEqual(new Uint8Array(stored?.bytes ?? []));
  });

  it('is served without its GPS position (the stored bytes left as they are)', async () => {
    const id = await storeAsBefore(PHOTO);
    expect(await served(id)).toEqual(CLEANED);
  });

  it('is not served (404, as without a picture) if it does not walk: the person uploads again', async () => {
    const id = await storeAsBefore(concat(JPEG_START, jfif, jpegExif));
    expect((await fetchPicture(id)).status).toBe(404);
  });
});
