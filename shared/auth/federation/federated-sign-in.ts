import { createHash } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { config } from '../../config.js';
import { redirectBack } from '../../domain/authorization.js';
import { Conflict } from '../../domain/errors.js';
import { logger } from '../../http/logger.js';
import { countMetric } from '../../observability/metrics.js';
import { seeOther } from '../../pages/html.js';
import { errorPage } from '../../pages/sign-in-pages.js';
import { saveFederationState, takeFederationState } from '../../store/federation-state.js';
import { newOpaqueValue } from '../../store/opaque-values.js';
import { completeAuthorizationRequest } from '../../store/sign-in-state.js';
import { SsoProviderBindingEntity } from '../../store/sso-entities.js';
import { getSsoProvider, type SsoProvider } from '../../store/sso-provider-repository.js';
import { createFederatedUser, findUserByEmail } from '../../store/user-repository.js';
import { pendingRequestOf, signInTarget } from '../sign-in-requests.js';
import { continueSignIn, EXPIRED, type Page } from '../sign-in-steps.js';
import { ssoClientSecretOf } from './client-secrets.js';
import { discover, FederationError, type FederationFailure, upstreamIdentity } from './upstream.js';

/**
 * Sign-in through an SSO provider: the sign-in page sends the person to the provider's upstream
 * issuer with a `state` only this browser's pending request can complete; the upstream's answer
 * is validated (./upstream.ts), the person matched by verified email in the application's
 * organization (or created just in time, when the provider allows it), and the same steps as a
 * password sign-in follow. `amr` is `fed` (RFC 8176 has no value for federation; `fed` is what
 * Microsoft Entra ID writes), with `mfa` when the operator trusts the provider's own MFA.
 */

export const CALLBACK_PATH = '/signin/sso/callback';
const DEFAULT_SCOPES = 'openid email profile';

const providerName = (provider: { displayName?: string | undefined; clientId: string }) =>
  provider.displayName ?? provider.clientId;

const NOT_OFFERED =
  'This sign-in option is not available here. Go back to the application and sign in again.';

/** `GET /signin/sso?request=...&provider=...[&login_hint=...]`: off to the upstream. */
export const startFederation = async (event: APIGatewayProxyEventV2): Promise<Page> => {
  const query = new URLSearchParams(event.rawQueryString);
  const pending = await pendingRequestOf(event, query.get('request'));
  if (!pending) return errorPage(400, EXPIRED);
  const clientId = query.get('provider') ?? '';
  const binding = clientId
    ? await SsoProviderBindingEntity.get({ organizationId: pending.organizationId, clientId })
    : undefined;
  if (!binding?.issuer) return errorPage(404, NOT_OFFERED);
  let authorizationEndpoint: string;
  try {
    authorizationEndpoint = (await discover(binding.issuer)).authorization_endpoint;
  } catch (error) {
    return failurePage(binding, pending.organizationId, error);
  }
  const nonce = newOpaqueValue();
  const codeVerifier = newOpaqueValue();
  const state = await saveFederationState({
    requestId: pending.id,
    providerClientId: clientId,
    nonce,
    codeVerifier,
  });
  const upstream = new URL(authorizationEndpoint);
  const loginHint = query.get('login_hint');
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: `${config().publicOrigin}${CALLBACK_PATH}`,
    scope: binding.scopes ?? DEFAULT_SCOPES,
    state,
    nonce,
    code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...(loginHint ? { login_hint: loginHint.slice(0, 320) } : {}),
    ...(pending.prompt === 'login' ? { prompt: 'login' } : {}),
  })) {
    upstream.searchParams.set(name, value);
  }
  return seeOther(upstream.href);
};

const FAILURE_PAGES: Record<FederationFailure, (name: string) => [number, string]> = {
  unreachable: (name) => [502, `${name} could not be reached. Try again in a few minutes.`],
  'client-refused': (name) => [
    502,
    `${name} refused this service's client credentials. Ask your administrator to check the SSO provider's client id and secret.`,
  ],
  refused: (name) => [502, `${name} did not complete the sign-in. Go back to the application and try again.`],
  'invalid-answer': (name) => [
    502,
    `The answer from ${name} could not be verified, so it was not used. Go back to the application and try again.`,
  ],
};

/** The page for a failed exchange with the upstream, and a log line saying what support needs. */
const failurePage = (
  provider: Pick<SsoProvider, 'clientId' | 'clientSecretExpirationDate'> & {
    displayName?: string | undefined;
  },
  organizationId: string,
  error: unknown,
  now = Date.now(),
): Page => {
  if (!(error instanceof FederationError)) throw error;
  countMetric('FederationFailures');
  const name = providerName(provider);
  const expiredAt = provider.clientSecretExpirationDate;
  // The spec's hint exists for exactly this: a refused client whose secret should have expired.
  const secretExpired = error.failure === 'client-refused' && expiredAt > 0 && expiredAt <= now;
  logger.warn('federated sign-in failed', {
    organizationId,
    ssoClientId: provider.clientId,
    failure: error.failure,
    detail: error.detail,
    ...(secretExpired
      ? { probableCause: 'client secret expired', secretExpiredAt: new Date(expiredAt).toISOString() }
      : {}),
  });
  if (secretExpired) {
    return errorPage(
      502,
      `${name} refused this service's client secret, which expired on ${new Date(expiredAt).toISOString().slice(0, 10)}. Ask your administrator to update the SSO provider's client secret.`,
    );
  }
  const [status, message] = FAILURE_PAGES[error.failure](name);
  return errorPage(status, message);
};

/** The upstream said no (the person cancelled, or it refused the request): the application hears it. */
const upstreamRefusal = async (
  pending: NonNullable<Awaited<ReturnType<typeof pendingRequestOf>>>,
  provider: Pick<SsoProvider, 'clientId'> & { displayName?: string | undefined },
  error: string,
): Promise<Page> => {
  logger.info('federated sign-in refused upstream', {
    organizationId: pending.organizationId,
    ssoClientId: provider.clientId,
    error: error.replace(/[^\w.-]/g, '').slice(0, 64),
  });
  if (error !== 'access_denied' && error !== 'login_required') {
    return errorPage(
      502,
      `${providerName(provider)} did not sign you in. Go back to the application and try again.`,
    );
  }
  if (!(await completeAuthorizationRequest(pending.id))) return errorPage(400, EXPIRED);
  return seeOther(
    redirectBack(
      pending.redirectUri,
      { error: 'access_denied', error_description: 'The person did not sign in', state: pending.state },
      config().publicOrigin,
    ),
  );
};

/** The person in the organization the upstream vouched for: found by email, or created just in time. */
const matchPerson = async (
  organizationId: string,
  provider: SsoProvider,
  email: string,
  name: string | undefined,
) => {
  const existing = await findUserByEmail(organizationId, email);
  if (existing || !provider.jitProvisioning) return existing;
  try {
    const created = await createFederatedUser({
      organizationId,
      email,
      name: name?.trim() || email,
      userType: 'STANDARD',
      createdBy: `sso:${provider.clientId}`,
    });
    countMetric('UsersProvisioned');
    logger.info('user provisioned just in time', {
      organizationId,
      userId: created.id,
      ssoClientId: provider.clientId,
    });
    return created;
  } catch (error) {
    // A concurrent first sign-in of the same person created them.
    if (error instanceof Conflict) return findUserByEmail(organizationId, email);
    throw error;
  }
};

/** `GET /signin/sso/callback`: the upstream's redirect back. */
export const finishFederation = async (event: APIGatewayProxyEventV2): Promise<Page> => {
  const query = new URLSearchParams(event.rawQueryString);
  const state = query.get('state');
  const started = state ? await takeFederationState(state) : undefined;
  const pending = started ? await pendingRequestOf(event, started.requestId) : undefined;
  if (!started || !pending) return errorPage(400, EXPIRED);
  const [provider, target] = await Promise.all([
    getSsoProvider(started.providerClientId),
    signInTarget(pending.organizationId, pending.clientId),
  ]);
  // Unbound or changed meanwhile: it no longer speaks for this organization.
  if (!provider?.issuer || !provider.organizationIds.includes(pending.organizationId)) {
    return errorPage(403, NOT_OFFERED);
  }
  const upstreamError = query.get('error');
  if (upstreamError) return upstreamRefusal(pending, provider, upstreamError);
  const code = query.get('code');
  if (!code)
    return errorPage(
      400,
      `${providerName(provider)} sent no answer that can be used. Go back to the application and try again.`,
    );

  const clientSecret = await ssoClientSecretOf(provider);
  if (!clientSecret) {
    logger.error('SSO client secret missing', { ssoClientId: provider.clientId });
    return errorPage(
      502,
      `Sign-in through ${providerName(provider)} is not set up completely. Contact your administrator.`,
    );
  }
  let identity: Awaited<ReturnType<typeof upstreamIdentity>>;
  try {
    identity = await upstreamIdentity(
      provider.issuer,
      { clientId: provider.clientId, clientSecret, redirectUri: `${config().publicOrigin}${CALLBACK_PATH}` },
      { code, codeVerifier: started.codeVerifier, nonce: started.nonce },
    );
  } catch (error) {
    return failurePage(provider, pending.organizationId, error);
  }
  const refusal = (reason: string, message: string) => {
    countMetric('SignInsRefused');
    logger.info('federated sign-in refused', {
      organizationId: pending.organizationId,
      ssoClientId: provider.clientId,
      reason,
    });
    return errorPage(403, message);
  };
  if (!identity.email || !identity.emailVerified) {
    return refusal(
      'email-not-verified',
      `${providerName(provider)} did not confirm your email address, so it cannot be matched to an account of ${target.names.organizationName}. Contact your administrator.`,
    );
  }
  // A provider that serves named domains speaks only for people of those domains.
  const domain = identity.email.slice(identity.email.lastIndexOf('@') + 1).toLowerCase();
  if (provider.emailDomains?.length && !provider.emailDomains.includes(domain)) {
    return refusal(
      'email-domain-not-served',
      `${providerName(provider)} does not sign in people with ${domain} addresses here. Contact your administrator.`,
    );
  }
  const user = await matchPerson(pending.organizationId, provider, identity.email, identity.name);
  if (!user) {
    return refusal(
      'no-such-user',
      `${identity.email} has no account in ${target.names.organizationName}. Ask your administrator to invite you.`,
    );
  }
  if (user.status !== 'ACTIVE') {
    return refusal('inactive', 'This account cannot sign in. Contact your administrator.');
  }
  const person = {
    userId: user.id,
    authTime: Date.now(),
    amr: provider.trustedForMfa ? ['fed', 'mfa'] : ['fed'],
  };
  return continueSignIn(event, pending, person, { user, ...target });
};
