import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as oidc from 'openid-client';
import { config } from '../../config.js';
import { redirectBack } from '../../domain/authorization.js';
import { earliestAuthTime, maxAgeAtCallback, upstreamMaxAge } from '../../domain/federated-authentication.js';
import { logger } from '../../http/logger.js';
import { countMetric } from '../../observability/metrics.js';
import { readCookie } from '../../pages/cookies.js';
import { secureCookies } from '../../pages/forms.js';
import { seeOther } from '../../pages/html.js';
import { errorPage } from '../../pages/sign-in-pages.js';
import { ssoClientId } from '../../schemas/sso-links.js';
import { saveFederationState, takeFederationState } from '../../store/federation-state.js';
import { signInOptions } from '../../store/sign-in-providers.js';
import { completeAuthorizationRequest } from '../../store/sign-in-state.js';
import { SsoProviderBindingEntity } from '../../store/sso-entities.js';
import { getSsoProvider, type SsoProvider } from '../../store/sso-provider-repository.js';
import {
  attemptedEmailActor,
  personActor,
  personTarget,
  recordSignInEvent,
  signInDetails,
} from '../sign-in-audit.js';
import { pendingRequestOf, signInTarget } from '../sign-in-requests.js';
import { continueSignIn, EXPIRED, type Page, providerLocation } from '../sign-in-steps.js';
import { ssoClientSecretOf } from './client-secrets.js';
import { federatedPerson, providerName } from './federated-person.js';
import {
  authorizationUrl,
  discover,
  FederationError,
  type FederationFailure,
  type UpstreamIdentity,
  upstreamErrorOf,
  upstreamIdentity,
} from './upstream.js';
import { newDeadline } from './upstream-http.js';

/**
 * Sign-in through an SSO provider: the sign-in page sends the person to the provider's upstream
 * issuer with a `state` only this browser's pending request can complete; the upstream's answer
 * is validated (./upstream.ts), the person matched by verified email in the application's
 * organization (or created just in time, when the provider allows it), and the same steps as a
 * password sign-in follow. `amr` is `fed` (RFC 8176 has no value for federation; `fed` is what
 * Microsoft Entra ID writes), with `mfa` when the operator trusts the provider's MFA and its ID
 * token says it was used.
 */

/**
 * Each provider has its own redirect URI: an answer arriving at another provider's is refused,
 * which stops a mix-up attack (an upstream passing the person on to another upstream to have its
 * code sent to it) even with upstreams that do not name themselves (RFC 9207; RFC 9700 4.4).
 */
export const callbackUri = (clientId: string) =>
  // Client ids are letters, digits and . _ @ - (schemas/sso.ts): all allowed in a path segment.
  `${config().publicOrigin}/signin/sso/callback/${clientId}`;
const DEFAULT_SCOPES = 'openid email profile';

const NOT_OFFERED =
  'This sign-in option is not available here. Go back to the application and sign in again.';

/** `GET /signin/sso?request=...&provider=...[&login_hint=...]`: off to the upstream. */
export const startFederation = async (event: APIGatewayProxyEventV2): Promise<Page> => {
  const query = new URLSearchParams(event.rawQueryString);
  const pending = await pendingRequestOf(event, query.get('request'));
  if (!pending) return errorPage(400, EXPIRED);
  const clientId = query.get('provider') ?? '';
  // Only a value a client id can be is looked up: any other (too long for a key) names none.
  const binding = ssoClientId.safeParse(clientId).success
    ? await SsoProviderBindingEntity.get({ organizationId: pending.organizationId, clientId })
    : undefined;
  if (!binding?.issuer) return errorPage(404, NOT_OFFERED);
  const deadline = newDeadline();
  try {
    // Before anything is stored: an upstream that cannot be reached gets its page at once.
    await discover(binding.issuer, clientId, deadline);
  } catch (error) {
    return failurePage(binding, pending.organizationId, error);
  }
  // Sent back here because the upstream's sign-in predated a change to the account (the callback
  // below): only ever asks for more, so anyone may ask for it.
  const fresh = query.get('fresh') === '1';
  const nonce = oidc.randomNonce();
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const state = await saveFederationState({
    requestId: pending.id,
    browserDigest: pending.browserDigest,
    providerClientId: clientId,
    issuer: binding.issuer,
    nonce,
    codeVerifier,
    ...(fresh ? { fresh } : {}),
  });
  const loginHint = query.get('login_hint');
  try {
    const upstream = await authorizationUrl(
      binding.issuer,
      { clientId, redirectUri: callbackUri(clientId) },
      {
        state,
        nonce,
        codeVerifier,
        scope: binding.scopes ?? DEFAULT_SCOPES,
        loginHint: loginHint?.slice(0, 320),
        // prompt=login passes on as such too, for an upstream that honours only that.
        prompt: fresh || pending.prompt === 'login' ? 'login' : undefined,
        maxAge: fresh ? 0 : upstreamMaxAge(pending),
      },
      deadline,
    );
    return seeOther(upstream.href);
  } catch (error) {
    return failurePage(binding, pending.organizationId, error);
  }
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
  'authentication-too-old': (name) => [
    502,
    `The application needs you to have signed in recently, and ${name} did not ask you to sign in again. Go back to the application and try again.`,
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

/** `GET /signin/sso/callback/{clientId}`: the upstream's redirect back. */
export const finishFederation = async (event: APIGatewayProxyEventV2): Promise<Page> => {
  // From the start: the reads before the upstream (the client secret from Secrets Manager among
  // them) come out of the same budget, which keeps the page within the function's timeout.
  const deadline = newDeadline();
  const query = new URLSearchParams(event.rawQueryString);
  const state = query.get('state');
  const binding = readCookie(event.cookies, 'browser', secureCookies());
  const started = state ? await takeFederationState(state, binding) : undefined;
  const pending = started ? await pendingRequestOf(event, started.requestId) : undefined;
  if (!state || !started || !pending) return errorPage(400, EXPIRED);
  if (event.pathParameters?.clientId !== started.providerClientId) {
    logger.warn("federated answer at another provider's redirect URI", {
      organizationId: pending.organizationId,
      ssoClientId: started.providerClientId,
    });
    return errorPage(400, EXPIRED);
  }
  const [provider, target, options] = await Promise.all([
    getSsoProvider(started.providerClientId),
    signInTarget(pending.organizationId, pending.clientId),
    signInOptions(pending.organizationId),
  ]);
  // Unbound, or its upstream changed, meanwhile: it no longer speaks for this sign-in.
  if (
    !provider?.issuer ||
    provider.issuer !== started.issuer ||
    !provider.organizationIds.includes(pending.organizationId)
  ) {
    return errorPage(403, NOT_OFFERED);
  }
  if (query.has('error')) {
    let upstreamError: string;
    try {
      upstreamError = upstreamErrorOf(
        await discover(provider.issuer, provider.clientId, deadline),
        provider.clientId,
        {
          query: event.rawQueryString,
          state,
        },
      );
    } catch (error) {
      return failurePage(provider, pending.organizationId, error);
    }
    return upstreamRefusal(pending, provider, upstreamError);
  }
  const code = query.get('code');
  if (!code) {
    return errorPage(
      400,
      `${providerName(provider)} sent no answer that can be used. Go back to the application and try again.`,
    );
  }
  const clientSecret = await ssoClientSecretOf(provider);
  if (!clientSecret) {
    logger.error('SSO client secret missing', { ssoClientId: provider.clientId });
    return errorPage(
      502,
      `Sign-in through ${providerName(provider)} is not set up completely. Contact your administrator.`,
    );
  }
  const maxAge = started.fresh ? 0 : upstreamMaxAge(pending);
  let identity: UpstreamIdentity;
  try {
    identity = await upstreamIdentity(
      provider.issuer,
      { clientId: provider.clientId, clientSecret, redirectUri: callbackUri(provider.clientId) },
      {
        query: event.rawQueryString,
        state,
        codeVerifier: started.codeVerifier,
        nonce: started.nonce,
        maxAge: maxAge === undefined ? undefined : maxAgeAtCallback(maxAge, started.createdAt, Date.now()),
        earliestAuthTime: maxAge === undefined ? undefined : earliestAuthTime(maxAge, started.createdAt),
      },
      deadline,
    );
  } catch (error) {
    return failurePage(provider, pending.organizationId, error);
  }
  const matched = await federatedPerson(identity, provider, { ...pending, ...target.names }, options);
  // Once, back upstream to sign in again; a second answer as old is refused.
  if ('refusal' in matched && matched.signInAgain && !started.fresh)
    return seeOther(providerLocation(pending.id, provider.clientId, identity.email ?? '', { fresh: true }));
  if ('refusal' in matched) {
    countMetric('SignInsRefused');
    logger.info('federated sign-in refused', {
      organizationId: pending.organizationId,
      ssoClientId: provider.clientId,
      reason: matched.refusal,
    });
    await recordSignInEvent({
      organizationId: pending.organizationId,
      action: 'signin.failed',
      outcome: 'failure',
      reason: matched.refusal,
      actor: matched.user ? personActor(matched.user) : attemptedEmailActor(identity.email),
      targets: matched.user ? [personTarget(matched.user)] : [],
      signIn: signInDetails(pending.clientId, { amr: ['fed'], provider: provider.clientId }),
    });
    return errorPage(matched.status ?? 403, matched.message);
  }
  return continueSignIn(event, pending, matched.person, { user: matched.user, ...target });
};
