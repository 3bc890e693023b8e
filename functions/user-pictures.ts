import { MAX_PICTURE_SIDE, userPicturesRoutes } from '../shared/api/routes/user-pictures.js';
import { changesBetween } from '../shared/audit/changes.js';
import { NotFound } from '../shared/domain/errors.js';
import { badRequest, unsupportedMediaType } from '../shared/http/errors.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { admission } from '../shared/http/middleware/admission.js';
import { multipartFile } from '../shared/http/middleware/multipart-file.js';
import { detectImageType, pictureFileName } from '../shared/pictures/image-type.js';
import { cleanPicture } from '../shared/pictures/picture-metadata.js';
import { pictureKey, pictureStore } from '../shared/pictures/picture-store.js';
import { isRegisteredOrigin } from '../shared/store/browser-origins.js';
import { requireUser, updateUserAttributes } from '../shared/store/user-repository.js';

/**
 * The upload as it is stored and served: of an accepted type, well formed, of a profile picture's
 * size, and without the metadata the device wrote (a phone photo's Exif carries where it was taken).
 */
const acceptedPicture = (upload: Uint8Array | undefined) => {
  const contentType = upload && detectImageType(upload);
  if (!upload || !contentType)
    throw unsupportedMediaType('The picture must be a PNG, JPEG, GIF or WebP image');
  const picture = cleanPicture(upload, contentType);
  if ('problem' in picture)
    throw unsupportedMediaType(
      `The picture must be a well-formed PNG, JPEG, GIF or WebP image: ${picture.problem}`,
    );
  const { width, height } = picture;
  if (Math.min(width, height) < 1 || Math.max(width, height) > MAX_PICTURE_SIDE)
    throw badRequest(
      `The picture must be 1 to ${MAX_PICTURE_SIDE} pixels on each side; this one is ${width} x ${height}`,
    );
  return { bytes: picture.bytes, contentType };
};

/**
 * A picture uploaded before uploads were cleaned, cleaned now (each time: it is small, and the
 * stored bytes stay as they are). One that does not walk is not served: the person uploads again.
 */
const cleanedBeforeServing = (picture: { bytes: Uint8Array; contentType: string }, userId: string) => {
  const type = detectImageType(picture.bytes);
  const cleaned = type === picture.contentType && cleanPicture(picture.bytes, type);
  if (!cleaned || 'problem' in cleaned) throw new NotFound('Picture', userId);
  return cleaned.bytes;
};

/** Users' pictures: stored in S3 when deployed (files locally), served by the API. */
export const handler = groupHandler(
  userPicturesRoutes,
  {
    uploadUserPicture: async ({ path }, { principal, upload }) => {
      const { bytes, contentType } = acceptedPicture(upload);
      const user = await requireUser(principal.organizationId, path.id);
      // A version of its own, served only once the record names it (with its audit record): a
      // record write that fails, or another upload's, leaves the picture the record says.
      const version = await (await pictureStore()).put(
        pictureKey(principal.organizationId, path.id),
        bytes,
        contentType,
      );
      const picture = { pictureContentType: contentType, pictureUpdatedAt: Date.now() };
      await updateUserAttributes(
        principal.organizationId,
        path.id,
        { ...picture, pictureVersion: version, pictureCleaned: true },
        [],
        picture.pictureUpdatedAt,
        {
          action: 'user.picture.updated',
          targets: [{ type: 'user', id: user.id, name: user.email }],
          changes: changesBetween(
            { pictureContentType: user.pictureContentType, pictureUpdatedAt: user.pictureUpdatedAt },
            picture,
          ),
        },
      );
      return {};
    },

    getUserPicture: async ({ path }, { principal }) => {
      // Ask the store only for pictures that exist: without ListBucket, S3 answers a missing key
      // with AccessDenied rather than NoSuchKey.
      const user = await requireUser(principal.organizationId, path.id);
      if (!user.pictureUpdatedAt) throw new NotFound('Picture', path.id);
      const picture = await (await pictureStore()).get(
        pictureKey(principal.organizationId, path.id),
        user.pictureVersion,
      );
      if (!picture) throw new NotFound('Picture', path.id);
      const bytes = user.pictureCleaned ? picture.bytes : cleanedBeforeServing(picture, path.id);
      return {
        raw: {
          statusCode: 200,
          headers: {
            'content-type': picture.contentType,
            'cache-control': 'private, max-age=300',
            // Uploaded content (OWASP file upload): never sniffed into another type, never run as
            // a document if opened directly, and named as a picture when saved.
            'x-content-type-options': 'nosniff',
            'content-security-policy': "default-src 'none'; sandbox",
            'content-disposition': `inline; filename="${pictureFileName(picture.contentType)}"`,
          },
          body: Buffer.from(bytes).toString('base64'),
          isBase64Encoded: true,
        },
      };
    },
  },
  { admission, registeredOrigin: isRegisteredOrigin, multipartFile },
);
