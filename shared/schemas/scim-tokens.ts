import { MAX_SCIM_TOKENS_PER_ORGANIZATION } from '../domain/limits.js';
import { isScimTokenValue } from '../domain/scim-token-value.js';
import * as z from '../zod.js';
import { epochMillis, identifier } from './common.js';
import { oneLine } from './text.js';

/** What the administrator calls a token (which directory it is for): one line, 1 to 100 characters. */
export const scimTokenName = z.withMeta(oneLine(100), {
  description: 'What the token is for, such as the directory that uses it; one line, 1 to 100 characters',
});

/**
 * A token's id. A token's value in its place is refused (400, which leaves no audit record), so
 * that a value pasted by mistake is kept nowhere, not even as the target of a refusal's record;
 * checked on the whole path, whose refusals repeat no value, so that the 400 does not echo it either.
 */
export const scimTokenPath = z
  .strictObject({ id: identifier })
  .check(
    z.refine(
      ({ id }) => !isScimTokenValue(id),
      'The id of a token (GET /idp/scimTokens lists them), never its value',
    ),
  );

export const createScimTokenRequest = z.withMeta(z.strictObject({ name: scimTokenName }), {
  id: 'CreateSCIMTokenRequest',
});

const scimTokenFields = {
  id: z.withMeta(identifier, {
    description: 'Names the token in its listing, its revocation and audit records',
  }),
  name: scimTokenName,
  createdAt: epochMillis,
  createdBy: z.withMeta(identifier, { description: 'Who created it: a user or API client id, or the CLI' }),
};

export const scimToken = z.withMeta(z.strictObject(scimTokenFields), {
  id: 'SCIMToken',
  description: 'A SCIM bearer secret as it is listed: never its value',
});

export const scimTokenList = z.array(scimToken).check(z.maxLength(MAX_SCIM_TOKENS_PER_ORGANIZATION));

export const createdScimToken = z.withMeta(
  z.strictObject({
    ...scimTokenFields,
    token: z.withMeta(z.string().check(z.length(52), z.regex(/^idp_scim_[A-Za-z0-9_-]{43}$/)), {
      format: 'password',
      description:
        'The bearer secret the directory sends (`Authorization: Bearer <token>`): shown in this answer only, never again',
    }),
  }),
  { id: 'CreatedSCIMToken', description: 'A new SCIM bearer secret, with its value this once' },
);
