import type { ApiError, ApiResponse, ApiUser } from './api.js';
import type { TestService } from './service.js';

/** The fields of a user the API shows right after creation (no grants, no picture). */
export const freshUser = (id: string, email: string, name: string, isInitial = false): ApiUser => ({
  id,
  email,
  name,
  picture: null,
  policies: [],
  roles: [],
  managedRoles: [],
  canSendEmail: true,
  isInitial,
  userGroups: [],
});

// Smallest valid headers of the four accepted image types (the service decides by content).
export const PNG = Uint8Array.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 1, 2, 3,
]);
export const JPEG = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 7]);
export const GIF = new TextEncoder().encode('GIF89a\u0001\u0000\u0001\u0000rest');
export const WEBP = Uint8Array.from([
  ...new TextEncoder().encode('RIFF'),
  0x24,
  0,
  0,
  0,
  ...new TextEncoder().encode('WEBPVP8 '),
]);

/** Uploads a picture as multipart/form-data: one file (a PNG unless told otherwise), or `form`. */
export const uploadPicture = (
  service: TestService,
  userId: string,
  options: {
    token?: string;
    bytes?: Uint8Array;
    filename?: string;
    type?: string;
    field?: string;
    form?: FormData;
  },
): Promise<ApiResponse<ApiError | undefined>> => {
  let form = options.form;
  if (!form) {
    form = new FormData();
    const blob = new Blob([options.bytes ?? PNG], { type: options.type ?? 'image/png' });
    form.append(options.field ?? 'files', blob, options.filename ?? 'picture.png');
  }
  return service.call<ApiError | undefined>('PUT', `/idp/users/${userId}/picture`, {
    ...(options.token ? { token: options.token } : {}),
    form,
  });
};
