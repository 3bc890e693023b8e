import { DISPLAY_NAME_MAX, displayName as displayNameSchema } from '../schemas/text.js';
import * as z from '../zod.js';
import { invalidValue } from './errors.js';
import { requireCoreSchema, SCIM_SCHEMAS } from './schema-ids.js';

/** What the service keeps of a SCIM User (docs/scim.md, "Mapping"); everything else is ignored. */
export interface ProvisionedUser {
  email: string;
  name: string;
  givenName?: string;
  familyName?: string;
  externalId?: string;
  active: boolean;
}

/** A user as the store holds it, the fields a SCIM User shows. */
export interface StoredUserView {
  id: string;
  email: string;
  name: string;
  status: string;
  givenName?: string | undefined;
  familyName?: string | undefined;
  externalId?: string | undefined;
  userGroups?: ReadonlySet<string> | undefined;
  createdAt: number;
  updatedAt: number;
}

const text = (max: number) => z.string().check(z.maxLength(max));
const EXTERNAL_ID_LENGTH = 256;

/** `"True"`/`"False"` as Microsoft Entra ID sends them, or a JSON boolean. */
const scimBoolean = z.union([
  z.boolean(),
  z.pipe(
    z.string().check(z.regex(/^(true|false)$/i, 'true or false')),
    z.transform((value: string) => value.toLowerCase() === 'true'),
  ),
]);

/**
 * The attributes of a SCIM User body the service reads (RFC 7643 section 4.1); the object is
 * open, as RFC 7643 lets a server ignore what it does not keep (`password` among them: never
 * kept, never answered).
 */
export const scimUserBody = z.looseObject({
  schemas: z.optional(z.array(text(200)).check(z.maxLength(10))),
  userName: text(254),
  externalId: z.optional(z.nullable(text(EXTERNAL_ID_LENGTH))),
  name: z.optional(
    z.nullable(
      z.looseObject({
        formatted: z.optional(z.nullable(text(DISPLAY_NAME_MAX))),
        // As long as a User's answer holds them (nameParts: up to the whole name), since a PATCH is
        // applied to the answer and must parse again; the name they make up keeps its own limit.
        givenName: z.optional(z.nullable(text(DISPLAY_NAME_MAX))),
        familyName: z.optional(z.nullable(text(DISPLAY_NAME_MAX))),
      }),
    ),
  ),
  displayName: z.optional(z.nullable(text(DISPLAY_NAME_MAX))),
  active: z.optional(z.nullable(scimBoolean)),
});
export type ScimUserBody = z.output<typeof scimUserBody>;

const email = z.email();
const oneLineName = displayNameSchema;

/** The ways a User body can name its person, in the order they are taken. */
const namesIn = (body: ScimUserBody) => {
  const givenName = body.name?.givenName?.trim() || undefined;
  const familyName = body.name?.familyName?.trim() || undefined;
  return {
    givenName,
    familyName,
    ways: [
      body.name?.formatted?.trim(),
      [givenName, familyName].filter(Boolean).join(' '),
      body.displayName?.trim(),
    ],
  };
};

/**
 * The user a SCIM User body describes: `userName` is the email; the name is `name.formatted`, or
 * `givenName` with `familyName`, or `displayName`. Given `before` (a PATCH's resource before its
 * operations), the way of naming the operations changed wins: Entra ID changes `displayName` and
 * the name's parts, never `formatted`.
 */
export const provisionedUserOf = (body: ScimUserBody, before?: ScimUserBody): ProvisionedUser => {
  requireCoreSchema(body.schemas, 'User');
  const userName = body.userName.trim();
  if (!email.safeParse(userName).success) throw invalidValue('userName must be an email address');
  const { givenName, familyName, ways } = namesIn(body);
  const previous = before && namesIn(before).ways;
  const changed = previous && ways.find((way, index) => way && way !== previous[index]);
  // Without a name, the userName stands for one, cut to a name's length (an email may be longer).
  const name = changed || ways.find(Boolean) || userName.slice(0, DISPLAY_NAME_MAX);
  const parsedName = oneLineName.safeParse(name);
  if (!parsedName.success) throw invalidValue('name must be one line of at most 200 characters');
  // Kept exactly as sent (RFC 7643 3.1: the client's identifier, caseExact); blank is none.
  const externalId = body.externalId?.trim() ? body.externalId : undefined;
  return {
    email: userName,
    name: parsedName.data,
    ...(givenName ? { givenName } : {}),
    ...(familyName ? { familyName } : {}),
    ...(externalId ? { externalId } : {}),
    // A PATCH that removes `active` keeps the status, as a PUT without it does.
    active: body.active ?? before?.active ?? true,
  };
};

/**
 * The given and family names a User shows: the ones a directory sent while they still make up the
 * name, else the name split at its last space (a directory needs both; a person renamed through
 * the management API keeps the name they were given).
 */
const nameParts = (user: StoredUserView): { givenName?: string; familyName?: string } => {
  if (user.givenName && user.familyName && `${user.givenName} ${user.familyName}` === user.name)
    return { givenName: user.givenName, familyName: user.familyName };
  const space = user.name.lastIndexOf(' ');
  return space > 0
    ? { givenName: user.name.slice(0, space), familyName: user.name.slice(space + 1) }
    : { givenName: user.name };
};

/** A user as a SCIM User (RFC 7643 section 4.1); `locate` names a resource's URL. */
export const scimUser = (user: StoredUserView, locate: (type: 'Users' | 'Groups', id: string) => string) => ({
  schemas: [SCIM_SCHEMAS.user],
  id: user.id,
  ...(user.externalId ? { externalId: user.externalId } : {}),
  userName: user.email,
  name: { formatted: user.name, ...nameParts(user) },
  displayName: user.name,
  emails: [{ value: user.email, type: 'work', primary: true }],
  active: user.status === 'ACTIVE',
  groups: [...(user.userGroups ?? [])].sort().map((id) => ({ value: id, $ref: locate('Groups', id) })),
  meta: {
    resourceType: 'User',
    created: new Date(user.createdAt).toISOString(),
    lastModified: new Date(user.updatedAt).toISOString(),
    location: locate('Users', user.id),
  },
});
export type ScimUser = ReturnType<typeof scimUser>;
