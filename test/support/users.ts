import type { ApiError, ApiResponse, ApiUser } from './api.js';
import { PNG } from './picture-bytes.js';
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

// The smallest well-formed pictures of the four accepted types (the service walks their blocks).
export { GIF, JPEG, PNG, WEBP } from './picture-bytes.js';

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
