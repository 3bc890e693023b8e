import type { UserSearchCursor } from '../../shared/domain/user-search.js';
import { identifier, MAX_PAGE_SIZE } from '../../shared/schemas/common.js';
import { ssoClientId } from '../../shared/schemas/sso-links.js';
import { searchUsersQuery, type UserStatus, userStatus } from '../../shared/schemas/users.js';
import { listSsoLinks, removeSsoLink } from '../../shared/store/sso-links.js';
import { type ListedUser, listUsers, requireUser } from '../../shared/store/user-repository.js';
import { indexUsersForSearch, searchUsers } from '../../shared/store/user-search.js';
import { columns } from './columns.js';
import { type Command, lines, requireOrganization } from './command.js';
import { integer, type Options, optional, required, validated } from './options.js';
import { UsageError } from './target.js';

const DEFAULT_LIST_LIMIT = 100;
const MAX_LIST_LIMIT = 100_000;

/** The option each search parameter of GET /idp/users/search comes from. */
const OPTION_OF_PARAMETER = {
  email: 'email',
  emailPrefix: 'email-prefix',
  namePrefix: 'name-prefix',
  userGroupId: 'group',
  status: 'status',
  userType: 'type',
} as const;

/** The search, checked by the API's own schema: the CLI refuses what GET /idp/users/search refuses. */
const searchOf = (options: Options) => {
  const given = Object.fromEntries(
    Object.entries(OPTION_OF_PARAMETER)
      .map(([parameter, option]) => [parameter, optional(options, option)])
      .filter(([, value]) => value !== undefined),
  );
  const criteria = ['email', 'emailPrefix', 'namePrefix', 'userGroupId'].filter((name) => name in given);
  if (criteria.length === 0) {
    if (given.userType !== undefined)
      throw new UsageError('--type filters a search: give one of its options too');
    const status: UserStatus =
      given.status === undefined ? 'ACTIVE' : validated(userStatus, given.status, 'status');
    return { kind: 'listing', status } as const;
  }
  const result = searchUsersQuery.safeParse(given);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue?.path[0] as keyof typeof OPTION_OF_PARAMETER | undefined;
    const about = field
      ? `--${OPTION_OF_PARAMETER[field]}`
      : '--email, --email-prefix, --name-prefix, --group';
    throw new UsageError(`${about}: ${issue?.message ?? 'invalid'}`);
  }
  const { limit: _limit, cursor: _cursor, status, userType, ...parameters } = result.data;
  const [by, value] = Object.entries(parameters).find(([, entry]) => entry !== undefined) as [
    'email' | 'emailPrefix' | 'namePrefix' | 'userGroupId',
    string,
  ];
  return { kind: 'search', criterion: { by, value }, filters: { status, userType } } as const;
};

/** Up to `limit` users, following the pages; whether more may follow. */
const readUsers = async (orgId: string, options: Options, limit: number) => {
  const search = searchOf(options);
  const users: ListedUser[] = [];
  if (search.kind === 'listing') {
    for (let page = 0; users.length < limit; page++) {
      const result = await listUsers(orgId, search.status, page, MAX_PAGE_SIZE);
      users.push(...result.users);
      if (!result.hasMore) return { users: users.slice(0, limit), more: users.length > limit };
    }
    return { users: users.slice(0, limit), more: true };
  }
  let after: UserSearchCursor | undefined;
  do {
    const page = await searchUsers(orgId, search.criterion, search.filters, {
      limit: Math.min(MAX_PAGE_SIZE, limit - users.length),
      ...(after && { after }),
    });
    users.push(...page.users);
    after = page.next;
  } while (after !== undefined && users.length < limit);
  return { users, more: after !== undefined };
};

/** The user --org and --user name (an error naming what is missing). */
const userOf = async (options: Options) => {
  const orgId = validated(identifier, required(options, 'org'), 'org');
  await requireOrganization(orgId);
  return requireUser(orgId, validated(identifier, required(options, 'user'), 'user'), true);
};

export const USER_COMMANDS: Record<string, Command> = {
  'user reindex': {
    usage: 'user reindex --org ORG',
    options: ['org'],
    notes: [
      'Writes the search index entries (email and name) of every user of the organization: once, after',
      'upgrading a deployment whose users were written before user search existed (docs/operating.md).',
      'Changes no user data; safe to repeat and to run while the service is in use.',
    ].join('\n'),
    run: async (options) => {
      const orgId = validated(identifier, required(options, 'org'), 'org');
      await requireOrganization(orgId);
      const indexed = await indexUsersForSearch(orgId);
      return {
        json: { organizationId: orgId, indexed },
        summary: `${indexed} user(s) of organization ${orgId} indexed for search`,
      };
    },
  },

  'user sso-links': {
    usage: 'user sso-links --org ORG --user USER_ID',
    options: ['org', 'user'],
    notes: "The user's single sign-on links, as GET /idp/users/{id}/sso-links answers them.",
    run: async (options) => {
      const user = await userOf(options);
      const links = (await listSsoLinks(user.organizationId, user.id)).map(
        ({ clientId, issuer, subject, linkedAt }) => ({ clientId, issuer, subject, linkedAt }),
      );
      const rows = links.map((link) => [
        link.clientId,
        link.subject,
        link.issuer,
        new Date(link.linkedAt).toISOString(),
      ]);
      return {
        json: links,
        jsonLines: links,
        summary: lines(
          `${links.length} SSO link(s) of user ${user.id} (${user.email})`,
          ...(links.length > 0
            ? columns(['PROVIDER', 'SUBJECT', 'ISSUER', 'LINKED'], rows).map((line) => `  ${line}`)
            : []),
        ),
      };
    },
  },

  'user unlink-sso': {
    usage: 'user unlink-sso --org ORG --user USER_ID --provider SSO_CLIENT_ID',
    options: ['org', 'user', 'provider'],
    notes: [
      "As DELETE /idp/users/{id}/sso-links/{clientId}: the user's next sign-in through the provider is",
      'matched by verified email again and links the subject it brings (an upstream account that was',
      "re-created). Recorded as the operator's ssoLink.removed.",
    ].join('\n'),
    run: async (options) => {
      const user = await userOf(options);
      const provider = validated(ssoClientId, required(options, 'provider'), 'provider');
      await removeSsoLink(user, provider);
      return {
        json: { organizationId: user.organizationId, userId: user.id, clientId: provider, unlinked: true },
        summary: `Unlinked user ${user.id} (${user.email}) from SSO provider ${provider}`,
      };
    },
  },

  'user list': {
    usage:
      'user list --org ORG [--email EMAIL | --email-prefix PREFIX | --name-prefix PREFIX | --group GROUP_ID] [--status ACTIVE|INACTIVE] [--type STANDARD|RESTRICTED] [--limit N]',
    options: ['org', 'email', 'email-prefix', 'name-prefix', 'group', 'status', 'type', 'limit'],
    notes: [
      'Without a search option: the ACTIVE users (or INACTIVE ones with --status INACTIVE) in creation',
      'order, as GET /idp/users lists them. With one: the search of GET /idp/users/search, compared',
      'case-insensitively, filtered by --status and --type.',
      `Prints at most --limit users (default ${DEFAULT_LIST_LIMIT}); --json prints one JSON user per line.`,
    ].join('\n'),
    run: async (options) => {
      const orgId = validated(identifier, required(options, 'org'), 'org');
      const limit = integer(options, 'limit', 1, MAX_LIST_LIMIT) ?? DEFAULT_LIST_LIMIT;
      await requireOrganization(orgId);
      const read = await readUsers(orgId, options, limit);
      const users = read.users.map(({ id, email, name, status, userType }) => ({
        id,
        email,
        name,
        status,
        userType,
      }));
      const rows = users.map((user) => [user.id, user.status, user.userType, user.email, user.name]);
      return {
        json: users,
        jsonLines: users,
        summary: lines(
          `${users.length} user(s) of organization ${orgId}`,
          ...(users.length > 0
            ? columns(['ID', 'STATUS', 'TYPE', 'EMAIL', 'NAME'], rows).map((line) => `  ${line}`)
            : []),
          read.more && `  more may follow: raise --limit (at most ${MAX_LIST_LIMIT}), or narrow the search`,
        ),
      };
    },
  },
};
