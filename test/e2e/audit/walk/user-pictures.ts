import { PNG } from '../../../support/service.js';
import { withUser } from './users.js';
import type { WalkCalls } from './walk-call.js';
import { walkCall } from './walk-call.js';

/** A picture upload's body: one PNG in the `files` part. */
const pictureForm = () => {
  const form = new FormData();
  form.append('files', new Blob([PNG], { type: 'image/png' }), 'walk.png');
  return form;
};

/** Users' pictures (spec 4.1). */
export const USER_PICTURES_CALLS: WalkCalls = {
  uploadUserPicture: walkCall({
    prepare: withUser,
    path: ({ userId }) => `/idp/users/${userId}/picture`,
    form: pictureForm,
    target: ({ userId }) => userId,
  }),
};
