import { decodeJwt } from 'jose';
import { startServer } from '../support/child-server.js';
import { requestsPerSecond } from './load.js';
import { processCpuMillis } from './process-cpu.js';

interface TokenServer {
  tokenUrl: string;
  client_id: string;
  client_secret: string;
}

/** A client-credentials request of `server`'s client, for fetch and for the load generator. */
export const tokenRequest = (server: TokenServer) => ({
  url: server.tokenUrl,
  method: 'POST' as const,
  headers: {
    'content-type': 'application/x-www-form-urlencoded',
    authorization: `Basic ${Buffer.from(`${server.client_id}:${server.client_secret}`).toString('base64')}`,
  },
  body: 'grant_type=client_credentials',
});

/** Token endpoint (client credentials) against oidc-provider, alternating rounds. */
export const benchTokenEndpoint = async (options: {
  dynamoDbEndpoint: string;
  rounds: number;
  seconds: number;
  concurrencies: number[];
}) => {
  const idp = await startServer<TokenServer>('test/support/local-instance.ts', {
    IDP_DYNAMODB_ENDPOINT: options.dynamoDbEndpoint,
    POWERTOOLS_METRICS_DISABLED: 'true',
    // The local gateway's access log line is API Gateway's work, not the functions'.
    IDP_LOG_LEVEL: 'WARN',
  });
  const { access_token } = (await (await fetch(idp.tokenUrl, tokenRequest(idp))).json()) as {
    access_token: string;
  };
  // The peer signs the same organization, permissions, policies and plugin permissions.
  const { org, principal_type, user_type, permissions, policies, plugin_permissions } =
    decodeJwt(access_token);
  const peer = await startServer<TokenServer>('test/bench/peer-oidc-provider.ts', {
    BENCH_CLAIMS: JSON.stringify({
      org,
      principal_type,
      user_type,
      permissions,
      policies,
      plugin_permissions,
    }),
  });
  try {
    const results: { concurrency: number; idp: number; peer: number }[] = [];
    for (const concurrency of options.concurrencies) {
      // Warm both (JIT, caches) before measuring.
      await requestsPerSecond(tokenRequest(idp), concurrency, 1);
      await requestsPerSecond(tokenRequest(peer), concurrency, 1);
      for (let round = 0; round < options.rounds; round++) {
        // The server's own CPU per token beside the rate: the load generator shares the cores.
        const measured = async (server: typeof idp) => {
          const before = processCpuMillis(server.pid);
          const rate = await requestsPerSecond(tokenRequest(server), concurrency, options.seconds);
          const after = processCpuMillis(server.pid);
          const perToken =
            before === undefined || after === undefined
              ? Number.NaN
              : (after - before) / (rate * options.seconds);
          return { rate, perToken };
        };
        const { rate: ours, perToken: oursCpu } = await measured(idp);
        const { rate: theirs, perToken: theirsCpu } = await measured(peer);
        console.log(
          `token c=${concurrency} round ${round + 1}: idp ${ours.toFixed(0)}/s (${oursCpu.toFixed(2)} ms CPU per token), oidc-provider ${theirs.toFixed(0)}/s (${theirsCpu.toFixed(2)} ms), ratio ${(ours / theirs).toFixed(2)}`,
        );
        results.push({ concurrency, idp: ours, peer: theirs });
      }
    }
    return results;
  } finally {
    idp.stop();
    peer.stop();
  }
};
