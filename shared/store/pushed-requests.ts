import { logger } from '../http/logger.js';
import * as z from '../zod.js';
import { defineEntity, ttlSeconds } from './entity.js';
import { keys } from './keys.js';
import { digestOf, newOpaqueValue } from './opaque-values.js';
import { put, takeItem, writeOne } from './writes.js';

/**
 * Pushed authorization requests (RFC 9126): an application posts its authorization request to the
 * token side, authenticated, and sends the browser only a `request_uri` naming it. The request's
 * parameters then never pass through the browser, where they could be read or changed.
 */

const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';
/** A `request_uri` of this service's own: a request object elsewhere is not supported (Core 6). */
export const isPushedRequestUri = (requestUri: string) => requestUri.startsWith(REQUEST_URI_PREFIX);

/** RFC 9126 section 2.2: short-lived; the browser is sent on at once. Keycloak's default too. */
export const PUSHED_REQUEST_SECONDS = 60;

const PushedRequestEntity = defineEntity({
  name: 'Pushed authorization request',
  key: ({ digest }: { digest: string }) => keys.pushedRequest(digest),
  attributes: () =>
    z.object({
      clientId: z.string(),
      /** The request's parameters, form-encoded, without the client's credentials. */
      parameters: z.string(),
      /** Epoch ms; the TTL (`expiresAt`, seconds) removes it later. */
      validUntil: z.number(),
      expiresAt: z.number(),
      /**
       * Posted by a browser to the authorization endpoint and kept only to go on as a GET
       * (browser-sign-in.ts): no pushed request, so it satisfies no application that must push.
       */
      posted: z.optional(z.boolean()),
    }),
});

/**
 * Stores a request of `clientId` (a checked push, or a browser's post); answers the `request_uri`
 * that names it (only its digest is kept).
 */
export const pushAuthorizationRequest = async (
  clientId: string,
  parameters: URLSearchParams,
  now = Date.now(),
  how: 'pushed' | 'posted' = 'pushed',
): Promise<string> => {
  const handle = newOpaqueValue();
  const validUntil = now + PUSHED_REQUEST_SECONDS * 1000;
  await writeOne(
    put(
      PushedRequestEntity.item(
        { digest: digestOf(handle) },
        {
          clientId,
          parameters: parameters.toString(),
          validUntil,
          expiresAt: ttlSeconds(validUntil),
          ...(how === 'posted' ? { posted: true } : {}),
        },
      ),
    ),
  );
  return `${REQUEST_URI_PREFIX}${handle}`;
};

/** A stored request another version wrote in another shape is as good as none: the person starts again. */
const decodedOrNothing = (item: Record<string, unknown>) => {
  try {
    return PushedRequestEntity.decode(item);
  } catch (error) {
    // Its name only: the message may quote what it holds (a login hint).
    logger.warn('pushed authorization request unreadable', { errorName: (error as Error).name });
    return undefined;
  }
};

/**
 * The parameters a `request_uri` names, taken once (RFC 9126 section 4: one-time use) and only
 * for the client that pushed them, and whether they were pushed (not posted by a browser);
 * undefined when unknown, used, expired or another client's.
 */
export const takePushedRequest = async (
  requestUri: string,
  clientId: string,
  now = Date.now(),
): Promise<{ parameters: URLSearchParams; pushed: boolean } | undefined> => {
  if (!isPushedRequestUri(requestUri)) return undefined;
  const taken = await takeItem(
    PushedRequestEntity.key({ digest: digestOf(requestUri.slice(REQUEST_URI_PREFIX.length)) }),
    // Another client's attempt leaves it in place.
    { condition: 'clientId = :client AND attribute_not_exists(posted)', values: { ':client': clientId } },
    // A browser's post is read for its minute: a reload of the page it led to finds it again
    // (pushed requests are one-time, RFC 9126 section 4; a post is no secret the browser lacks).
    (seen) => seen.posted === true && seen.clientId === clientId,
  );
  const pushed = taken ? decodedOrNothing(taken) : undefined;
  return pushed && pushed.validUntil > now
    ? { parameters: new URLSearchParams(pushed.parameters), pushed: pushed.posted !== true }
    : undefined;
};
