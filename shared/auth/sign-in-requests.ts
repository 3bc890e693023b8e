import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { config } from '../config.js';
import { addressBlock } from '../domain/address-block.js';
import { logger } from '../http/logger.js';
import { countMetric } from '../observability/metrics.js';
import { readCookie } from '../pages/cookies.js';
import { clientAddress, secureCookies } from '../pages/forms.js';
import { getApiClient } from '../store/api-client-repository.js';
import { getOrganization } from '../store/organization-repository.js';
import { countSignInAttempt, pendingAuthorizationRequest } from '../store/sign-in-state.js';

/** What every hosted form of a sign-in reads first: its pending request, its target, the attempt limit. */

/** The organization and application a request signs in to, and their names for the pages. */
export const signInTarget = async (organizationId: string, clientId: string) => {
  const [organization, client] = await Promise.all([getOrganization(organizationId), getApiClient(clientId)]);
  const resolved = organization ?? { name: organizationId, mfaEnabled: false };
  return {
    organization: resolved,
    names: { organizationName: resolved.name, applicationName: client?.name ?? clientId },
  };
};

/**
 * Counts an attempt from the client's address; true when it is over the limit (DECISIONS.md:
 * 20 sign-in attempts a minute per client IP, an IPv6 client's /64 counting as one).
 */
export const tooManyAttempts = async (event: APIGatewayProxyEventV2): Promise<boolean> => {
  const attempts = await countSignInAttempt(addressBlock(clientAddress(event)));
  if (attempts <= config().signIn.attemptsPerAddressMinute) return false;
  countMetric('SignInsThrottled');
  if (attempts === config().signIn.attemptsPerAddressMinute + 1) logger.warn('sign-in attempts throttled');
  return true;
};

/** A pending request's id: 256 random bits, base64url (anything else names none, unread). */
const REQUEST_ID = /^[\w-]{43}$/;

/** The pending request a form of the sign-in names, if this browser made it and it is live. */
export const pendingRequestOf = (event: APIGatewayProxyEventV2, requestId: string | null) =>
  requestId && REQUEST_ID.test(requestId)
    ? pendingAuthorizationRequest(requestId, readCookie(event.cookies, 'browser', secureCookies()))
    : Promise.resolve(undefined);
