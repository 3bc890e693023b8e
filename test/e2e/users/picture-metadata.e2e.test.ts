import { describe, expect, it } from 'vitest';
import { MAX_PICTURE_SIDE } from '../../../shared/api/routes/user-pictures.js';
import {
  concat,
  EXIF_HEADER,
  JPEG,
  JPEG_START,
  jpegExif,
  PNG,
  PNG_SIGNATURE,
  png,
  pngData,
  pngEnd,
  pngHeader,
} from '../../support/picture-bytes.js';
import type { ApiUser } from '../../support/service.js';
import { uploadPicture, useService } from '../../support/service.js';

/**
 * What an uploaded picture carries to everyone who may read it (any authenticated caller of the
 * organization): not the metadata of the device that took it, and not a size no viewer can open.
 */
const service = useService();

const pictureUrl = async (id: string) =>
  (await service.call<ApiUser>('GET', `/idp/users/${id}`, { token: service.admin.token })).body.picture;

const upload = async (bytes: Uint8Array) => {
  const id = await service.createUser();
  return { id, response: await uploadPicture(service, id, { token: service.admin.token, bytes }) };
};

const served = async (id: string) => {
  const response = await fetch((await pictureUrl(id)) as string, {
    headers: { authorization: `Bearer ${service.admin.token}` },
  });
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
};

describe('a picture is served without the metadata of the device that took it', () => {
  it('positive control: a JPEG without metadata is served byte for byte', async () => {
    const { id, response } = await upload(JPEG);
    expect(response.status).toBe(204);
    expect(await served(id)).toEqual(JPEG);
  });

  it('a JPEG with an Exif GPS segment is accepted and served without it, every other byte kept', async () => {
    // A phone photo's shape: SOI, APP1 "Exif" (IFD0 pointing to a GPS IFD), then the picture.
    const photo = concat(JPEG_START, jpegExif, JPEG.slice(2));
    const { id, response } = await upload(photo);
    expect(response.status).toBe(204);
    const bytes = await served(id);
    expect(Buffer.from(bytes).indexOf(Buffer.from(EXIF_HEADER))).toBe(-1);
    expect(bytes).toEqual(JPEG);
  });
});

describe(`a picture is at most ${MAX_PICTURE_SIDE} pixels on each side`, () => {
  it(`accepts ${MAX_PICTURE_SIDE} x ${MAX_PICTURE_SIDE} and a 1 x 1 PNG`, async () => {
    for (const picture of [png(pngHeader(MAX_PICTURE_SIDE, MAX_PICTURE_SIDE), pngData, pngEnd), PNG]) {
      const { id, response } = await upload(picture);
      expect(response.status).toBe(204);
      expect(await served(id)).toEqual(picture);
    }
  });

  it.each([
    [1_000_000, 1_000_000],
    [MAX_PICTURE_SIDE + 1, 1],
    [1, MAX_PICTURE_SIDE + 1],
  ])('refuses a PNG declaring %i x %i pixels with 400, keeping no picture', async (width, height) => {
    const { id, response } = await upload(png(pngHeader(width, height), pngData, pngEnd));
    expect(response.status).toBe(400);
    expect(response.body?.message).toBe(
      `The picture must be 1 to ${MAX_PICTURE_SIDE} pixels on each side; this one is ${width} x ${height}`,
    );
    expect(await pictureUrl(id)).toBeNull();
  });

  it('refuses a PNG that is only a signature and a header with 415, naming what is wrong', async () => {
    const { id, response } = await upload(concat(PNG_SIGNATURE, pngHeader(1_000_000, 1_000_000)));
    expect(response.status).toBe(415);
    expect(response.body?.message).toBe(
      'The picture must be a well-formed PNG, JPEG, GIF or WebP image: the PNG ends before its IEND chunk',
    );
    expect(await pictureUrl(id)).toBeNull();
  });
});
