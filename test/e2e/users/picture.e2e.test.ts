import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_PICTURE_BYTES } from '../../../shared/api/routes/user-pictures.js';
import { getUser } from '../../../shared/store/user-repository.js';
import { auditRecordsOf, storedAuditText } from '../../support/audit-items.js';
import { beforeTransaction, type SentItems } from '../../support/interleave.js';
import { ascii, gif, png, pngChunk, pngEnd, pngHeader } from '../../support/picture-bytes.js';
import { connectDirectory, USER_SCHEMA } from '../../support/scim.js';
import type { ApiError, ApiUser } from '../../support/service.js';
import {
  errorFields,
  GIF,
  JPEG,
  nextMillisecond,
  PNG,
  uploadPicture,
  useFixture,
  useService,
  WEBP,
} from '../../support/service.js';

/** PUT /users/{id}/picture (multipart/form-data) and the URL it publishes in User.picture. */
const service = useService();

const pictureUrl = async (id: string) =>
  (await service.call<ApiUser>('GET', `/idp/users/${id}`, { token: service.admin.token })).body.picture;

/** Uploads a picture as the administrator unless `options.token` names another caller. */
const upload = (id: string, options: Parameters<typeof uploadPicture>[2]) =>
  uploadPicture(service, id, { token: service.admin.token, ...options });

/** GETs a picture URL as it is given (User.picture carries a `?v=` version). */
const download = async (url: string, as = service.admin.token) => {
  const response = await fetch(url, { headers: { authorization: `Bearer ${as}` } });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    bytes: new Uint8Array(await response.arrayBuffer()),
  };
};

/** A well-formed PNG of `size` bytes: its image data fills what the other chunks leave. */
const pngOfSize = (size: number) => {
  const overhead = png(pngHeader(1, 1), pngChunk('IDAT'), pngEnd).length;
  return png(pngHeader(1, 1), pngChunk('IDAT', new Uint8Array(size - overhead).fill(0x2a)), pngEnd);
};

const foreign = useFixture(() => service.freshOrganizationWithUser());

describe('PUT /users/{id}/picture', () => {
  it('stores a picture: 204, User.picture becomes a URL serving the exact bytes', async () => {
    const id = await service.createUser();
    expect(await pictureUrl(id)).toBeNull();
    const response = await upload(id, { bytes: PNG });
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();

    const url = (await pictureUrl(id)) as string;
    expect(url).toMatch(new RegExp(`^${service.baseUrl}/idp/users/${id}/picture\\?v=\\d+$`));
    const picture = await download(url);
    expect(picture.status).toBe(200);
    expect(picture.type).toBe('image/png');
    expect(picture.bytes).toEqual(PNG);
  });

  it('serves the picture at the exact URL User.picture names, query included', async () => {
    const id = await service.createUser();
    expect((await upload(id, { bytes: PNG })).status).toBe(204);
    const picture = await download((await pictureUrl(id)) as string, service.admin.token);
    expect(picture.status).toBe(200);
    expect(picture.bytes).toEqual(PNG);
  });

  it.each([
    ['JPEG', JPEG, 'image/jpeg'],
    ['GIF', GIF, 'image/gif'],
    ['WebP', WEBP, 'image/webp'],
    ['PNG', PNG, 'image/png'],
  ])('accepts %s and serves it with its content type', async (_label, bytes, type) => {
    const id = await service.createUser();
    expect(
      (await upload(id, { bytes, filename: 'upload.bin', type: 'application/octet-stream' })).status,
    ).toBe(204);
    const picture = await download((await pictureUrl(id)) as string);
    expect(picture.type).toBe(type);
    expect(picture.bytes).toEqual(bytes);
  });

  it('decides by content: a PNG named x.txt with type text/plain is accepted as image/png', async () => {
    const id = await service.createUser();
    const response = await upload(id, { bytes: PNG, filename: 'x.txt', type: 'text/plain' });
    expect(response.status).toBe(204);
    expect((await download((await pictureUrl(id)) as string)).type).toBe('image/png');
  });

  it('refuses a text file named x.png with 415 and keeps the previous picture', async () => {
    const id = await service.createUser();
    expect((await upload(id, { bytes: GIF })).status).toBe(204);
    const before = await pictureUrl(id);
    const text = new TextEncoder().encode('definitely not an image');
    const response = await upload(id, { bytes: text, filename: 'x.png', type: 'image/png' });
    expect(response.status).toBe(415);
    expect(response.body?.message).toBe('The picture must be a PNG, JPEG, GIF or WebP image');
    expect(await pictureUrl(id)).toBe(before);
    expect((await download(before as string)).bytes).toEqual(GIF);
  });

  it('refuses an empty file with 415', async () => {
    const id = await service.createUser();
    expect((await upload(id, { bytes: new Uint8Array(0) })).status).toBe(415);
    expect(await pictureUrl(id)).toBeNull();
  });

  it('accepts exactly 5 MiB and refuses one byte more with 413', async () => {
    const id = await service.createUser();
    const exact = pngOfSize(MAX_PICTURE_BYTES);
    expect((await upload(id, { bytes: exact })).status).toBe(204);
    expect((await download((await pictureUrl(id)) as string)).bytes.length).toBe(MAX_PICTURE_BYTES);

    const other = await service.createUser();
    const tooLarge = await upload(other, { bytes: pngOfSize(MAX_PICTURE_BYTES + 1) });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body?.message).toBe('The file is larger than 5 MiB');
    expect(await pictureUrl(other)).toBeNull();
  });

  it('answers 400 naming body.files when the part is missing or not a file', async () => {
    const id = await service.createUser();
    const wrongName = new FormData();
    wrongName.append('picture', new Blob([PNG], { type: 'image/png' }), 'x.png');
    const textPart = new FormData();
    textPart.append('files', 'just text');
    for (const form of [wrongName, textPart]) {
      const response = await upload(id, { form });
      expect(response.status).toBe(400);
      expect(errorFields(response as never)).toEqual(['body.files']);
    }
    expect(await pictureUrl(id)).toBeNull();
  });

  it('answers 415 for a JSON body instead of multipart/form-data', async () => {
    const id = await service.createUser();
    const response = await service.call<ApiError>('PUT', `/idp/users/${id}/picture`, {
      token: service.admin.token,
      body: { files: 'x' },
    });
    expect(response.status).toBe(415);
  });

  it('replaces the picture: a new URL version and the new bytes', async () => {
    const id = await service.createUser();
    await upload(id, { bytes: PNG });
    const first = (await pictureUrl(id)) as string;
    await nextMillisecond();
    expect((await upload(id, { bytes: JPEG })).status).toBe(204);
    const second = (await pictureUrl(id)) as string;
    expect(second).not.toBe(first);
    expect(second.split('?')[0]).toBe(first.split('?')[0]);
    const picture = await download(second);
    expect([picture.type, picture.bytes]).toEqual(['image/jpeg', JPEG]);
    expect((await getUser(service.organizationId, id, true))?.pictureContentType).toBe('image/jpeg');
  });

  it('records each upload: its content type and time, never its bytes', async () => {
    const id = await service.createUser();
    await upload(id, { bytes: PNG });
    const firstUpload = (await getUser(service.organizationId, id, true))?.pictureUpdatedAt;
    await nextMillisecond();
    await upload(id, { bytes: JPEG });
    const stored = await getUser(service.organizationId, id, true);
    const records = await auditRecordsOf(service.organizationId, {
      targetId: id,
      action: 'user.picture.updated',
    });
    expect(records).toHaveLength(2);
    const [second, first] = records;
    expect(first?.changes).toEqual({
      pictureContentType: { from: null, to: 'image/png' },
      pictureUpdatedAt: { from: null, to: firstUpload },
    });
    expect(second).toMatchObject({
      actor: { id: service.admin.principalId },
      targets: [{ type: 'user', id }],
      changes: {
        pictureContentType: { from: 'image/png', to: 'image/jpeg' },
        pictureUpdatedAt: { from: firstUpload, to: stored?.pictureUpdatedAt },
      },
    });
    expect(Object.keys(second?.changes ?? {})).toEqual(['pictureContentType', 'pictureUpdatedAt']);
    const text = await storedAuditText(service.organizationId, records);
    for (const bytes of [PNG, JPEG]) expect(text).not.toContain(Buffer.from(bytes).toString('base64'));
  });

  it('answers 404 for an unknown user and for a user of another organization', async () => {
    for (const id of ['no-such-user', foreign.user.id]) {
      const response = await upload(id, { bytes: PNG });
      expect(response.status).toBe(404);
      expect(response.body?.message).toBe('User not found');
    }
    expect((await getUser(foreign.orgId, foreign.user.id, true))?.pictureUpdatedAt).toBeUndefined();
  });

  it('lets the user upload its own picture and refuses another user without USER.UPDATE', async () => {
    const id = await service.createUser();
    const other = await service.createUser();
    expect((await upload(id, { token: await service.userToken(id), bytes: WEBP })).status).toBe(204);
    const refused = await upload(other, { token: await service.userToken(id), bytes: WEBP });
    expect(refused.status).toBe(403);
    expect(await pictureUrl(other)).toBeNull();
    const manager = (await service.callerWith(['USER.UPDATE'])).token;
    expect((await upload(other, { token: manager, bytes: WEBP })).status).toBe(204);
  });
});

describe('GET /users/{id}/picture', () => {
  it('answers 404 for a user without a picture and for an unknown user', async () => {
    const id = await service.createUser();
    const none = await service.call<ApiError>('GET', `/idp/users/${id}/picture`, {
      token: service.admin.token,
    });
    expect(none.status).toBe(404);
    expect(none.body.message).toBe('Picture not found');
    const unknown = await service.call<ApiError>('GET', '/idp/users/no-such-user/picture', {
      token: service.admin.token,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('User not found');
  });

  it("never serves another organization's picture", async () => {
    expect((await upload(foreign.user.id, { token: foreign.token, bytes: GIF })).status).toBe(204);
    const url = (
      await service.call<ApiUser>('GET', `/idp/users/${foreign.user.id}`, { token: foreign.token })
    ).body.picture as string;
    expect((await download(url, foreign.token)).bytes).toEqual(GIF);

    const own = await download(url, service.admin.token);
    expect(own.status).toBe(404);
    const direct = await service.call<ApiError>('GET', `/idp/users/${foreign.user.id}/picture`, {
      token: service.admin.token,
    });
    expect(direct.status).toBe(404);
  });

  // The gateway decodes the path before routing: an encoded "../<org>/<user>" becomes path
  // segments that name no route, so it never reaches a function, let alone the store.
  it('refuses an encoded path in the id (404, no route) before it can reach another organization', async () => {
    const traversal = `..%2F${foreign.orgId}%2F${foreign.user.id}`;
    const response = await download(`${service.baseUrl}/idp/users/${traversal}/picture`, service.admin.token);
    expect(response.bytes).not.toEqual(GIF);
    expect(response.status).toBe(404);
    const overwrite = await upload(traversal, { bytes: PNG });
    expect(overwrite.status).toBe(404);
    const theirs = `${service.baseUrl}/idp/users/${foreign.user.id}/picture`;
    expect((await download(theirs, foreign.token)).bytes).toEqual(GIF);
  });
});

describe('a served picture', () => {
  it('comes with the headers of uploaded content: never sniffed, never a document, named as a picture', async () => {
    const id = await service.createUser();
    // A well-formed GIF that is also HTML: its image data (never decoded here) holds a page.
    const html = ascii('<html><script>alert(document.domain)</script></html>');
    const polyglot = gif([0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, html.length, ...html, 0]);
    expect((await upload(id, { bytes: polyglot })).status).toBe(204);
    const response = await fetch((await pictureUrl(id)) ?? '', {
      headers: { authorization: `Bearer ${service.admin.token}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/gif');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(response.headers.get('content-disposition')).toBe('inline; filename="picture.gif"');
  });
});

describe('an upload is one change: the served picture, the user record and its audit record agree', () => {
  /** Whether a transaction updates this user's picture attributes. */
  const isPictureWriteOf = (userId: string) => (items: SentItems) =>
    items.some((item) => {
      const update = JSON.stringify(item.Update ?? {});
      return update.includes(userId) && update.includes('pictureUpdatedAt');
    });
  const served = async (id: string) => {
    const picture = await download((await pictureUrl(id)) ?? '');
    return { type: picture.type, bytes: picture.bytes };
  };

  it('a failed record write leaves the picture the record names served', async () => {
    const id = await service.createUser();
    expect((await upload(id, { bytes: PNG })).status).toBe(204);
    const before = await getUser(service.organizationId, id, true);
    await nextMillisecond();
    // Positive control: an upload whose record is written is served.
    expect((await upload(id, { bytes: GIF })).status).toBe(204);
    expect(await served(id)).toEqual({ type: 'image/gif', bytes: GIF });
    expect((await upload(id, { bytes: PNG })).status).toBe(204);
    await nextMillisecond();

    const hook = beforeTransaction(isPictureWriteOf(id), async () => {
      throw Object.assign(new Error('simulated DynamoDB failure'), {
        name: 'ProvisionedThroughputExceededException',
      });
    });
    const failed = await upload(id, { bytes: JPEG });
    hook.stop();
    expect(hook.ran).toBe(true);
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect((await getUser(service.organizationId, id, true))?.pictureContentType).toBe('image/png');
    expect(before?.pictureContentType).toBe('image/png');
    expect(await served(id)).toEqual({ type: 'image/png', bytes: PNG });
  });

  it('of two concurrent uploads, the picture served is the one the user record names', async () => {
    const id = await service.createUser();
    // A's record write waits while B's whole upload runs: B stores and records its picture, then
    // A records its own.
    let second: Awaited<ReturnType<typeof upload>> | undefined;
    const hook = beforeTransaction(isPictureWriteOf(id), async () => {
      await nextMillisecond();
      second = await upload(id, { bytes: GIF });
    });
    const first = await upload(id, { bytes: PNG });
    hook.stop();
    expect(hook.ran).toBe(true);
    expect([first.status, second?.status]).toEqual([204, 204]);
    const user = await getUser(service.organizationId, id, true);
    const records = await auditRecordsOf(service.organizationId, {
      targetId: id,
      action: 'user.picture.updated',
    });
    const recorded = user?.pictureContentType;
    expect(['image/png', 'image/gif']).toContain(recorded);
    // Each upload has its record (both read the user before either wrote).
    expect(records.map((record) => record.changes?.pictureContentType)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ to: 'image/png' }),
        expect.objectContaining({ to: 'image/gif' }),
      ]),
    );
    expect(await served(id)).toEqual({ type: recorded, bytes: recorded === 'image/png' ? PNG : GIF });
  });
});

describe("a leaver's picture", () => {
  it("goes with a directory's DELETE: no longer served, its bytes removed, and not back when the userName returns", async () => {
    const directory = await connectDirectory(service, service.admin);
    const userName = `leaver-${Date.now()}@pictures.example`;
    const provision = () =>
      directory.call('POST', '/Users', { schemas: [USER_SCHEMA], userName, active: true });
    const id = (await provision()).body.id as string;
    expect((await upload(id, { bytes: GIF })).status).toBe(204);
    const url = (await pictureUrl(id)) ?? '';
    // Positive control: served while the person is there.
    expect((await download(url)).status).toBe(200);
    const stored = () =>
      readdirSync(join(service.dataDirectory, 'pictures', service.organizationId)).filter((file) =>
        file.startsWith(id),
      );
    expect(stored()).not.toEqual([]);

    expect((await directory.call('DELETE', `/Users/${id}`)).status).toBe(204);
    expect((await download(url)).status).toBe(404);
    expect(await pictureUrl(id)).toBeNull();
    expect(stored()).toEqual([]);
    const [deleted] = await auditRecordsOf(service.organizationId, {
      targetId: id,
      action: 'user.status.changed',
    });
    expect(deleted?.changes?.pictureContentType).toEqual({ from: 'image/gif', to: null });

    expect((await provision()).body.id).toBe(id);
    expect(await pictureUrl(id)).toBeNull();
  });
});
