import { MAX_SSO_PROVIDERS_PER_ORGANIZATION } from '../../domain/limits.js';
import { ssoProvider, ssoProviderPath, updateSsoProviderRequest } from '../../schemas/sso.js';
import * as z from '../../zod.js';
import { noContent, ok, routeGroup } from '../route-definition.js';

/** SSO provider configurations (spec 4.5): operators bind them, customers keep the secret current. */
export const ssoRoutes = routeGroup('sso')({
  listSsoProviders: {
    route: 'GET /idp/sso-providers',
    summary: "The SSO providers serving the caller's organization (never their secrets)",
    description:
      "The SSO providers bound to the caller's organization, by client id, with the customer's secret expiration hint (0 when none was given); never a secret.",
    permissions: ['SSO.ADMIN'],
    response: ok(
      'The providers, by client id',
      z.array(ssoProvider).check(z.maxLength(MAX_SSO_PROVIDERS_PER_ORGANIZATION)),
    ),
  },
  updateSsoProvider: {
    route: 'POST /idp/sso-providers/{clientId}',
    summary:
      'Replace the client secret of an SSO provider, for every organization it serves; the expiration hint when given',
    description:
      "The secret goes to the secret store only (never the table, an answer, a log line or an error) and serves every organization the provider serves; the expiration hint is replaced when given. 404 for a provider not bound to the caller's organization. Idempotent by nature, so it takes no `Idempotency-Key`.",
    permissions: ['SSO.ADMIN'],
    request: { path: ssoProviderPath, body: updateSsoProviderRequest },
    response: noContent('Stored'),
    audit: ['sso.provider.secret.updated'],
    // Setting the same secret twice is harmless, and an idempotency record would keep a hash of it.
    idempotentByNature: true,
    bodyIsSecret: true,
  },
});
