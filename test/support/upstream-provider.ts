import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

/**
 * A real upstream OpenID provider for federation tests: `oidc-provider` (OpenID Certified), in
 * process, RS256 ID tokens, PKCE required, email claims from UserInfo (its default, so IDP's
 * UserInfo path runs). Its login page is replaced by one that signs in `signInAs` at once, and
 * every grant is given, so a browser passes through without a form. It counts the sign-ins it
 * asked for (a session of its own spares one) and keeps its latest authorization request.
 */

export interface UpstreamAccount {
  email: string;
  email_verified: boolean;
  name?: string;
}

export interface UpstreamOptions {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export const startUpstreamProvider = async (options: UpstreamOptions) => {
  const accounts = new Map<string, UpstreamAccount>();
  const state: { signInAs: string; authenticatedAt?: number | undefined; logins: number } = {
    signInAs: '',
    logins: 0,
  };
  let lastAuthorization = new URLSearchParams();
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: {
      keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'upstream-1', alg: 'RS256', use: 'sig' }],
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    findAccount: (_context: KoaContextWithOIDC, id: string) => {
      const account = accounts.get(id);
      return account ? { accountId: id, claims: () => ({ sub: id, ...account }) } : undefined;
    },
    interactions: { url: (_context: KoaContextWithOIDC, interaction) => `/interaction/${interaction.uid}` },
    // Every scope asked for is granted: the person consented elsewhere.
    loadExistingGrant: async (context: KoaContextWithOIDC) => {
      const { client, session, params } = context.oidc;
      if (!client || !session?.accountId) return undefined;
      const grant = new context.oidc.provider.Grant({
        clientId: client.clientId,
        accountId: session.accountId,
      });
      grant.addOIDCScope(String(params?.scope ?? 'openid'));
      await grant.save();
      return grant;
    },
  });
  const callback = provider.callback();
  server.on('request', async (request, response) => {
    const url = new URL(request.url ?? '/', issuer);
    if (url.pathname === '/auth') lastAuthorization = url.searchParams;
    if (url.pathname.startsWith('/interaction/')) {
      await provider.interactionDetails(request, response);
      state.logins++;
      const login = {
        accountId: state.signInAs,
        ...(state.authenticatedAt === undefined ? {} : { ts: state.authenticatedAt }),
      };
      await provider.interactionFinished(request, response, { login }, { mergeWithLastSubmission: false });
      return;
    }
    callback(request, response);
  });
  return {
    issuer,
    accounts,
    /**
     * The account the next sign-in at the upstream is, and the time it records for it (epoch
     * seconds; now when left out), as an upstream with its own idea of the time would.
     */
    signInAs(accountId: string, options: { authenticatedAt?: number } = {}) {
      state.signInAs = accountId;
      state.authenticatedAt = options.authenticatedAt;
    },
    /** How many times it asked someone to sign in. */
    logins: () => state.logins,
    /** The parameters of the latest authorization request it received. */
    lastAuthorization: () => lastAuthorization,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
