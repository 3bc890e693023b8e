import { IdpApiError, IdpClient } from '../../shared/client/index.js';
import { accessToken } from './auth.js';

/** Every call the console makes goes through the typed client, with the person's own token. */
export const idp = new IdpClient({ baseUrl: location.origin, tokenProvider: accessToken });

/** What a failed call says to a person: the API's own message, or the network's. */
export const messageOf = (error: unknown): string => {
  if (error instanceof IdpApiError) return `${error.message} (${error.status})`;
  return error instanceof Error ? error.message : 'Something went wrong.';
};
