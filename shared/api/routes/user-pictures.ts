import { pictureQuery } from '../../schemas/pictures.js';
import { noContent, routeGroup } from '../route-definition.js';

export const MAX_PICTURE_BYTES = 5 * 1024 * 1024;
/** A profile picture's longest side: a 12 MP (4032 x 3024) or 48 MP (8064 x 6048) photo fits. */
export const MAX_PICTURE_SIDE = 8192;

/**
 * Users' pictures (spec 4.1, beyond it the download): a group, and so a function, of their own,
 * the only one that carries the S3 client.
 */
export const userPicturesRoutes = routeGroup('user-pictures')({
  uploadUserPicture: {
    route: 'PUT /idp/users/{id}/picture',
    audit: ['user.picture.updated'],
    summary: 'Upload a PNG, JPEG, GIF or WebP picture (at most 5 MiB); the user itself, or USER.UPDATE',
    description: `The picture is the \`files\` part of a multipart/form-data body; its type is decided by its content (PNG, JPEG, GIF or WebP, otherwise 415, whatever its name), at most 5 MiB (413), at most ${MAX_PICTURE_SIDE} pixels on each side (400). Its metadata (Exif with any GPS position, XMP, IPTC, comments, C2PA) is removed but for the Exif orientation, the image itself kept as sent (never re-encoded). \`User.picture\` then names it. Idempotent by nature, so it takes no \`Idempotency-Key\`.`,
    permissions: ['USER.UPDATE'],
    subject: 'self-or-permissions',
    request: { multipartFile: { field: 'files', maxBytes: MAX_PICTURE_BYTES } },
    response: noContent('Stored; User.picture is its URL'),
    errors: [400, 413, 415],
    // The same bytes give the same picture; hashing 5 MiB for a key would cost more than the upload.
    idempotentByNature: true,
  },
  getUserPicture: {
    route: 'GET /idp/users/{id}/picture',
    summary: "The user's picture (the URL in User.picture)",
    description:
      "Served to any authenticated caller of the organization, with the picture's content type; 404 when the user has no picture or belongs to another organization. `v` (the upload time in `User.picture`) only makes each upload a new URL.",
    request: { query: pictureQuery },
    response: {
      status: 200,
      description: 'The image, with its content type',
      binary: { types: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'], maxBytes: MAX_PICTURE_BYTES },
    },
    extension: true,
  },
});
