import { isScimTokenValue } from '../../shared/domain/scim-token-value.js';
import { identifier } from '../../shared/schemas/common.js';
import { scimTokenName } from '../../shared/schemas/scim-tokens.js';
import {
  createScimToken,
  listScimTokens,
  revokeScimToken,
  type ScimToken,
} from '../../shared/store/scim-tokens.js';
import { type Command, lines, OPERATOR, requireOrganization } from './command.js';
import { type Options, required, validated } from './options.js';
import { UsageError } from './target.js';

const organizationOption = (options: Options) => validated(identifier, required(options, 'org'), 'org');

/** The token id after the command's words; a token's value there is refused without repeating it. */
const tokenIdArgument = (argument: string) => {
  if (isScimTokenValue(argument))
    throw new UsageError("TOKEN_ID is a token's id (scim token list shows them), never its value");
  const parsed = identifier.safeParse(argument);
  // Not repeated back: a stray word may be a secret typed in the wrong place.
  if (!parsed.success) throw new UsageError('TOKEN_ID: letters, digits and . _ : @ - only');
  return parsed.data;
};

const describe = (token: ScimToken) =>
  `  ${token.id}  created ${new Date(token.createdAt).toISOString()} by ${token.createdBy}  "${token.name}"`;

/** SCIM bearer secrets of an organization, as its administrators manage them with SCIM.ADMIN. */
export const SCIM_COMMANDS: Record<string, Command> = {
  'scim token create': {
    usage: 'scim token create --org ORG --name NAME',
    options: ['org', 'name'],
    notes: [
      'Prints the new bearer secret once: nothing keeps it (the table holds its digest only). Paste it',
      "into the directory's SCIM settings at once. An organization has at most 20 live tokens.",
    ].join('\n'),
    run: async (options) => {
      const orgId = organizationOption(options);
      const name = validated(scimTokenName, required(options, 'name'), 'name');
      const created = await createScimToken(orgId, name, OPERATOR);
      return {
        json: { organizationId: orgId, ...created },
        summary: lines(
          `Created SCIM token ${created.id} "${created.name}" for organization ${orgId}`,
          `  token: ${created.token}`,
          '  shown this once: it cannot be shown again (revoke the token and create another if it is lost)',
        ),
      };
    },
  },

  'scim token list': {
    usage: 'scim token list --org ORG',
    options: ['org'],
    run: async (options) => {
      const orgId = organizationOption(options);
      await requireOrganization(orgId);
      const tokens = await listScimTokens(orgId);
      return {
        json: tokens,
        summary: lines(
          `${tokens.length} SCIM token(s) of organization ${orgId}, newest first`,
          ...tokens.map(describe),
        ),
      };
    },
  },

  'scim token revoke': {
    usage: 'scim token revoke --org ORG TOKEN_ID',
    options: ['org'],
    argument: 'TOKEN_ID',
    notes: 'The SCIM endpoint refuses the token from its next request on.',
    run: async (options, _io, argument) => {
      const orgId = organizationOption(options);
      const tokenId = tokenIdArgument(argument ?? '');
      await requireOrganization(orgId);
      await revokeScimToken(orgId, tokenId);
      return {
        json: { organizationId: orgId, id: tokenId, revoked: true },
        summary: `Revoked SCIM token ${tokenId} of organization ${orgId}: directories sending it are refused from now on`,
      };
    },
  },
};
