import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

/**
 * An upstream OpenID provider that answers what a test scripts: its authorization endpoint
 * redirects back at once, and its token endpoint answers an ID token the test may spoil (another
 * nonce, audience or key, a changed payload, `alg: none`, ...), to prove that IDP refuses it. Its
 * discovery document, key set and `auth_time` may be scripted too.
 */

export type IdTokenScript = (
  claims: JWTPayload,
  sign: (claims: JWTPayload) => Promise<string>,
) => Promise<string>;

export const startScriptedUpstream = async (clientId: string) => {
  let { privateKey, publicKey } = await generateKeyPair('ES256');
  let kid = 'scripted-1';
  let jwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  const requests = new Map<string, number>();
  const nonces = new Map<string, string>();
  let script: IdTokenScript = (claims, sign) => sign(claims);
  /** What the token endpoint answers instead of an ID token, when set. */
  let tokenAnswer: { status: number; body: string } | undefined;
  /** RFC 9207: the `iss` its authorization responses carry (none by default). */
  let responseIssuer: string | undefined;
  let email = 'pat@scripted.test';
  let subject = `subject-of-${email}`;
  /** What its discovery document says besides the defaults (or instead of them). */
  let advertised: Record<string, unknown> = {};
  /** The key set it publishes instead of its own signing key, when set. */
  let publishedKeys: JWK[] | undefined;
  /** The `auth_time` of its ID tokens (epoch seconds), when set. */
  let authTime: number | undefined;
  let lastAuthorization = new URLSearchParams();
  /** Milliseconds it takes to answer anything but its authorization endpoint. */
  let answerDelay = 0;
  /** What its UserInfo endpoint (`/userinfo`, when advertised) answers. */
  let userInfo: Record<string, unknown> = {};
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sign = (claims: JWTPayload) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid }).sign(privateKey);
  const json = (response: ServerResponse, status: number, body: unknown) =>
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  server.on('request', (request, response) => {
    const url = new URL(request.url ?? '/', issuer);
    requests.set(url.pathname, (requests.get(url.pathname) ?? 0) + 1);
    if (answerDelay > 0 && url.pathname !== '/authorize') {
      setTimeout(() => answer(request, response, url), answerDelay);
    } else {
      answer(request, response, url);
    }
  });
  const answer = (request: IncomingMessage, response: ServerResponse, url: URL) => {
    if (url.pathname === '/.well-known/openid-configuration') {
      json(response, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['ES256'],
        ...advertised,
      });
    } else if (url.pathname === '/jwks') {
      json(response, 200, { keys: publishedKeys ?? [jwk] });
    } else if (url.pathname === '/authorize') {
      lastAuthorization = url.searchParams;
      const code = `code-${nonces.size}`;
      nonces.set(code, url.searchParams.get('nonce') ?? '');
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      if (responseIssuer) back.searchParams.set('iss', responseIssuer);
      response.writeHead(302, { location: back.href }).end();
    } else if (url.pathname === '/token') {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', async () => {
        if (tokenAnswer) {
          response.writeHead(tokenAnswer.status).end(tokenAnswer.body);
          return;
        }
        const code = new URLSearchParams(body).get('code') ?? '';
        const now = Math.floor(Date.now() / 1000);
        const claims = {
          iss: issuer,
          aud: clientId,
          sub: subject,
          email,
          email_verified: true,
          nonce: nonces.get(code),
          iat: now,
          exp: now + 300,
          ...(authTime === undefined ? {} : { auth_time: authTime }),
        };
        json(response, 200, {
          id_token: await script(claims, sign),
          access_token: `access-${code}`,
          token_type: 'Bearer',
        });
      });
    } else if (url.pathname === '/userinfo') {
      json(response, 200, { sub: subject, ...userInfo });
    } else {
      response.writeHead(404).end();
    }
  };
  return {
    issuer,
    /** How the next ID tokens are made (default: as they should be). */
    script(next: IdTokenScript) {
      script = next;
    },
    /** Who its next ID tokens say signed in: an email, and the subject (by default one of that email's own). */
    signInAs(next: string, nextSubject = `subject-of-${next}`) {
      email = next;
      subject = nextSubject;
    },
    answerTokenRequests(answer: { status: number; body: string } | undefined) {
      tokenAnswer = answer;
    },
    nameIssuerInResponses(issuerName: string | undefined) {
      responseIssuer = issuerName;
    },
    /** Discovery document members added or replaced (an empty object: the defaults again). */
    advertise(members: Record<string, unknown>) {
      advertised = members;
    },
    /** The key set published instead of its own key (undefined: its own key again). */
    publishKeys(keys: JWK[] | undefined) {
      publishedKeys = keys;
    },
    /** When the person last authenticated there, as its ID tokens say (undefined: they do not say). */
    authenticatedAt(seconds: number | undefined) {
      authTime = seconds;
    },
    /** What its UserInfo endpoint answers beside the subject (advertise `userinfo_endpoint` to have it read). */
    answerUserInfo(claims: Record<string, unknown>) {
      userInfo = claims;
    },
    /** The parameters of the latest authorization request it received. */
    lastAuthorization: () => lastAuthorization,
    /** Makes each answer but the authorization endpoint's take this long (ms). */
    answerAfter(milliseconds: number) {
      answerDelay = milliseconds;
    },
    /** A new signing key under a new `kid`; the old one leaves the JWKS. */
    async rotateKey() {
      ({ privateKey, publicKey } = await generateKeyPair('ES256'));
      kid = `scripted-${Date.now()}`;
      jwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
    },
    /** How often a path was asked for. */
    requestsTo: (path: string) => requests.get(path) ?? 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/**
 * A sign-in at the upstream, as the federation function starts one (state `s`, nonce `n`, a fixed
 * PKCE verifier): what `upstreamIdentity` takes to finish it, from the upstream's redirect back.
 */
export const upstreamSignIn = async (issuer: string, redirectUri: string) => {
  const authorize = new URL('/authorize', issuer);
  authorize.search = new URLSearchParams({ nonce: 'n', state: 's', redirect_uri: redirectUri }).toString();
  const back = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location') ?? '');
  return { query: back.search.slice(1), state: 's', codeVerifier: 'v'.repeat(43), nonce: 'n' };
};
