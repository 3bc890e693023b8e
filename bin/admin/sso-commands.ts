import { identifier } from '../../shared/schemas/common.js';
import {
  emailDomain,
  ssoClientId,
  ssoClientSecret,
  ssoDisplayName,
  ssoIssuer,
  ssoScopes,
} from '../../shared/schemas/sso.js';
import {
  configureSsoProvider,
  deleteSsoProvider,
  type FederationSettings,
  listAllSsoProviders,
  type SsoProvider,
  unbindSsoProvider,
} from '../../shared/store/sso-provider-repository.js';
import { type Command, lines, OPERATOR } from './command.js';
import { commaList, integer, type Options, optional, required, switchOption, validated } from './options.js';
import { UsageError } from './target.js';

const federationOptions = (options: Options): FederationSettings => {
  const issuer = optional(options, 'issuer');
  const scopes = optional(options, 'scopes');
  const displayName = optional(options, 'display-name');
  const domains = optional(options, 'domains');
  return {
    issuer: issuer === undefined ? undefined : validated(ssoIssuer, issuer, 'issuer'),
    scopes: scopes === undefined ? undefined : validated(ssoScopes, scopes, 'scopes'),
    displayName:
      displayName === undefined ? undefined : validated(ssoDisplayName, displayName, 'display-name'),
    emailDomains:
      domains === undefined
        ? undefined
        : commaList(domains).map((domain) => validated(emailDomain, domain, 'domains')),
    jitProvisioning: switchOption(options, 'jit'),
    trustedForMfa: switchOption(options, 'trust-mfa'),
  };
};

/** What operators see of a provider: never its secret. */
const shown = (provider: SsoProvider) => ({
  clientId: provider.clientId,
  organizationIds: provider.organizationIds,
  clientSecretExpirationDate: provider.clientSecretExpirationDate,
  issuer: provider.issuer ?? null,
  scopes: provider.scopes ?? null,
  displayName: provider.displayName ?? null,
  emailDomains: provider.emailDomains ?? [],
  jitProvisioning: provider.jitProvisioning === true,
  trustedForMfa: provider.trustedForMfa === true,
});

const describe = (provider: SsoProvider) =>
  provider.issuer
    ? `  "${provider.displayName ?? provider.clientId}" through ${provider.issuer} (${provider.scopes ?? 'openid email profile'}); domains: ${provider.emailDomains?.join(', ') || 'none'}; JIT ${provider.jitProvisioning ? 'on' : 'off'}; MFA ${provider.trustedForMfa ? 'trusted' : 'at IDP'}`
    : '  no issuer: people cannot sign in through it yet (--issuer)';

/** SSO providers: their secret, the organizations they serve, and how people sign in through them. */
export const SSO_COMMANDS: Record<string, Command> = {
  'sso create': {
    usage:
      'sso create --client-id CLIENT_ID --orgs ORG1,ORG2 [--secret-stdin] [--expires EPOCH_MS] [--issuer URL] [--scopes "openid email profile"] [--display-name NAME] [--domains a.com,b.com] [--jit | --no-jit] [--trust-mfa | --no-trust-mfa]',
    options: [
      'client-id',
      'orgs',
      'secret-stdin',
      'expires',
      'issuer',
      'scopes',
      'display-name',
      'domains',
      'jit',
      'no-jit',
      'trust-mfa',
      'no-trust-mfa',
    ],
    run: async (options, io) => {
      const clientId = validated(ssoClientId, required(options, 'client-id'), 'client-id');
      const organizationIds = commaList(required(options, 'orgs')).map((org) =>
        validated(identifier, org, 'orgs'),
      );
      if (organizationIds.length === 0) throw new UsageError('--orgs names no organization');
      const expires = integer(options, 'expires', 0);
      const federation = federationOptions(options);
      // Secrets never come from the command line, where shell history and `ps` would show them.
      const clientSecret = options['secret-stdin']
        ? validated(ssoClientSecret, (await io.readStdin()).replace(/\r?\n$/, ''), 'secret-stdin')
        : undefined;
      const provider = await configureSsoProvider(
        { clientId, organizationIds, clientSecret, clientSecretExpirationDate: expires, ...federation },
        OPERATOR,
      );
      return {
        json: shown(provider),
        summary: lines(
          `SSO provider ${clientId} serves ${provider.organizationIds.join(', ')}`,
          clientSecret !== undefined ? '  client secret stored' : '  client secret unchanged',
          describe(provider),
        ),
      };
    },
  },

  'sso list': {
    usage: 'sso list',
    options: [],
    run: async () => {
      const providers = await listAllSsoProviders();
      return {
        json: providers.map(shown),
        summary: lines(
          `${providers.length} SSO provider(s)`,
          ...providers.flatMap((p) => [
            `  ${p.clientId}  -> ${p.organizationIds.join(', ')}`,
            `  ${describe(p)}`,
          ]),
        ),
      };
    },
  },

  'sso unbind': {
    usage: 'sso unbind --client-id CLIENT_ID --org ORG',
    options: ['client-id', 'org'],
    run: async (options) => {
      const clientId = validated(ssoClientId, required(options, 'client-id'), 'client-id');
      const org = validated(identifier, required(options, 'org'), 'org');
      const provider = await unbindSsoProvider(clientId, org, OPERATOR);
      return {
        json: shown(provider),
        summary: `SSO provider ${clientId} no longer serves ${org}; it serves ${provider.organizationIds.join(', ')}`,
      };
    },
  },

  'sso delete': {
    usage: 'sso delete --client-id CLIENT_ID',
    options: ['client-id'],
    run: async (options) => {
      const clientId = validated(ssoClientId, required(options, 'client-id'), 'client-id');
      await deleteSsoProvider(clientId);
      return {
        json: { clientId, deleted: true },
        summary: `Deleted SSO provider ${clientId} and its client secret`,
      };
    },
  },
};
