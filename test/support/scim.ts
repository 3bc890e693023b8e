import type { ApiResponse } from './api.js';
import type { Caller, TestService } from './service.js';

/** What a SCIM answer may hold; tests read the fields they check. */
// biome-ignore lint/suspicious/noExplicitAny: SCIM documents are open; each test checks the fields it reads.
export type ScimBody = Record<string, any>;

export interface ScimDirectory {
  /** The organization's SCIM bearer secret this directory uses. */
  readonly secret: string;
  readonly tokenId: string;
  /** A SCIM request as a directory sends it (`application/scim+json`), checked against the OpenAPI document. */
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<ApiResponse<ScimBody>>;
}

/** A directory connected to `admin`'s organization with a SCIM token of its own. */
export const connectDirectory = async (
  service: TestService,
  admin: Pick<Caller, 'token'>,
): Promise<ScimDirectory> => {
  const created = await service.call<{ id: string; token: string }>('POST', '/idp/scimTokens', {
    token: admin.token,
    body: { name: 'Test directory' },
  });
  if (created.status !== 201) throw new Error(`SCIM token not created: ${created.status}`);
  return directoryWith(service, created.body.token, created.body.id);
};

/** A directory presenting `secret` (an access token works the same way). */
export const directoryWith = (service: TestService, secret: string, tokenId = ''): ScimDirectory => ({
  secret,
  tokenId,
  call: (method, path, body, headers = {}) =>
    service.call<ScimBody>(method, `/scim/v2${path}`, {
      token: secret,
      ...(body === undefined ? {} : { rawBody: JSON.stringify(body) }),
      headers: {
        accept: 'application/scim+json',
        ...(body === undefined ? {} : { 'content-type': 'application/scim+json; charset=utf-8' }),
        ...headers,
      },
    }),
});

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const LIST_RESPONSE = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

const runSuffix = Math.random().toString(36).slice(2, 10);
let provisioned = 0;

/**
 * Provisions a User through the directory, with a userName of its own in this run
 * (`<label>-<n>-<run>@<label>.example`) and `extra` attributes; answers its id (201 expected).
 */
export const provisionUser = async (
  directory: ScimDirectory,
  label: string,
  extra: ScimBody = {},
): Promise<string> => {
  provisioned += 1;
  const created = await directory.call('POST', '/Users', {
    schemas: [USER_SCHEMA],
    userName: `${label}-${provisioned}-${runSuffix}@${label}.example`,
    ...extra,
  });
  if (created.status !== 201) throw new Error(`SCIM user not created: ${created.status}`);
  return created.body.id as string;
};
