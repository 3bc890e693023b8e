import { generateKeyPairSync } from 'node:crypto';
import Provider from 'oidc-provider';
import { announce } from '../support/child-server.js';

/**
 * The token endpoint's peer in `npm run bench`: `oidc-provider` (an OpenID Certified provider)
 * issuing client-credentials access tokens as JWTs signed with ES256 and carrying the claims IDP's
 * token carries. Prints its URL and client, then serves until killed.
 */
/** The claims IDP put in its token (BENCH_CLAIMS), so both sign the same payload. */
const CLAIMS = JSON.parse(process.env.BENCH_CLAIMS ?? '{}') as Record<string, unknown>;
const AUDIENCE = 'https://api.bench.example';
const client = { client_id: 'bench-client', client_secret: 'bench-secret-0123456789abcdef' };

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'bench', alg: 'ES256', use: 'sig' };

const provider = new Provider('http://127.0.0.1', {
  clients: [
    {
      ...client,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      id_token_signed_response_alg: 'ES256',
    },
  ],
  jwks: { keys: [jwk] },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => AUDIENCE,
      getResourceServerInfo: () => ({
        scope: 'openid',
        audience: AUDIENCE,
        accessTokenTTL: 3600,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'ES256' } },
      }),
    },
  },
  extraTokenClaims: () => CLAIMS,
});

const server = provider.listen(0, '127.0.0.1');
server.on('listening', () => {
  const address = server.address() as { port: number };
  announce({ tokenUrl: `http://127.0.0.1:${address.port}/token`, ...client });
});
