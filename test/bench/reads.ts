import { startServer } from '../support/child-server.js';
import { median } from './bundles.js';
import { requestsPerSecond } from './load.js';
import { processCpuMillis } from './process-cpu.js';
import { tokenRequest } from './token-endpoint.js';

interface Instance {
  baseUrl: string;
  organizationId: string;
  tokenUrl: string;
  client_id: string;
  client_secret: string;
}

/**
 * `GET /idp/users/{id}` on the service (local gateway, JWT authorizer, admission beside the read)
 * against bare servers reading the same item, alternating rounds.
 */
export const benchReads = async (options: {
  dynamoDbEndpoint: string;
  /** DynamoDB Local's process, whose CPU per request each round also prints. */
  dynamoDbPid: number | undefined;
  rounds: number;
  seconds: number;
  concurrency: number;
}) => {
  const env = {
    IDP_DYNAMODB_ENDPOINT: options.dynamoDbEndpoint,
    POWERTOOLS_METRICS_DISABLED: 'true',
    // The local gateway's access log line is API Gateway's work, not the functions'.
    IDP_LOG_LEVEL: 'WARN',
  };
  const idp = await startServer<Instance>('test/support/local-instance.ts', env);
  // A contract of 10,000 requests/s (spread over 40 counters), so the load is never refused.
  const { updateOrganizationSettings } = await import('../../shared/store/organization-repository.js');
  const { createUser } = await import('../../shared/store/user-repository.js');
  const { keys } = await import('../../shared/store/keys.js');
  await updateOrganizationSettings(idp.organizationId, { rateLimit: { rate: 10_000, burst: 10_000 } });
  const { user } = await createUser({
    organizationId: idp.organizationId,
    email: `bench-${Date.now()}@example.com`,
    name: 'Bench Reader',
    userType: 'STANDARD',
    createdBy: 'bench',
  });
  const { access_token: token } = (await (await fetch(idp.tokenUrl, tokenRequest(idp))).json()) as {
    access_token: string;
  };
  const bareEnv = {
    ...env,
    BARE_ITEM_KEY: JSON.stringify(keys.user(idp.organizationId, user.id)),
    BARE_ISSUER: idp.baseUrl,
    BARE_JWKS_URI: `${idp.baseUrl}/.well-known/jwks.json`,
  };
  const bare = await startServer<{ url: string }>('test/bench/baselines/bare-read-server.ts', {
    ...bareEnv,
    BARE_MODE: 'get-item',
  });
  const checked = await startServer<{ url: string }>('test/bench/baselines/bare-read-server.ts', {
    ...bareEnv,
    BARE_MODE: 'jwt-counter-get-item',
  });
  const sameRequests = await startServer<{ url: string }>('test/bench/baselines/bare-read-server.ts', {
    ...bareEnv,
    BARE_MODE: 'jwt-limit-batch-get',
  });
  const headers = { authorization: `Bearer ${token}` };
  const targets = {
    idp: { url: `${idp.baseUrl}/idp/users/${user.id}`, headers },
    bareGetItem: { url: `${bare.url}/`, headers },
    bareChecked: { url: `${checked.url}/`, headers },
    bareSameRequests: { url: `${sameRequests.url}/`, headers },
  };
  const pids = {
    idp: idp.pid,
    bareGetItem: bare.pid,
    bareChecked: checked.pid,
    bareSameRequests: sameRequests.pid,
  };
  try {
    // Compare warm servers, as a busy function instance is: DynamoDB Local's JVM and V8 compile
    // their hot paths over the first thousands of requests (the service, with more code, reaches
    // its steady CPU per request after about 10 s here), so every side is warmed that long first.
    for (const target of Object.values(targets)) await requestsPerSecond(target, options.concurrency, 10);
    const names = Object.keys(targets) as (keyof typeof targets)[];
    const results: Record<keyof typeof targets, number>[] = [];
    // CPU per request of the server and of DynamoDB Local (both share this machine's two cores
    // with the load generator, so together they set the rate): where a ratio comes from.
    const cpu = {} as Record<keyof typeof targets, { server: number[]; dynamoDb: number[] }>;
    for (const name of Object.keys(targets) as (keyof typeof targets)[])
      cpu[name] = { server: [], dynamoDb: [] };
    for (let round = 0; round < options.rounds; round++) {
      // Each round starts with another side, so slow drift of the machine favours none of them.
      const order = names.map((_, index) => names[(index + round) % names.length] as keyof typeof targets);
      const rate = {} as Record<keyof typeof targets, number>;
      for (const name of order) {
        const before = {
          server: processCpuMillis(pids[name]),
          dynamoDb: processCpuMillis(options.dynamoDbPid),
        };
        rate[name] = await requestsPerSecond(targets[name], options.concurrency, options.seconds);
        const requests = rate[name] * options.seconds;
        const spent = (now: number | undefined, then: number | undefined) =>
          now === undefined || then === undefined ? Number.NaN : (now - then) / requests;
        cpu[name].server.push(spent(processCpuMillis(pids[name]), before.server));
        cpu[name].dynamoDb.push(spent(processCpuMillis(options.dynamoDbPid), before.dynamoDb));
      }
      console.log(
        `read round ${round + 1}: idp ${rate.idp.toFixed(0)}/s, bare JWT+counter+GetItem ${rate.bareChecked.toFixed(0)}/s (${(rate.idp / rate.bareChecked).toFixed(2)}x), bare GetItem ${rate.bareGetItem.toFixed(0)}/s (${(rate.idp / rate.bareGetItem).toFixed(2)}x), bare with the service's DynamoDB requests ${rate.bareSameRequests.toFixed(0)}/s (${(rate.idp / rate.bareSameRequests).toFixed(2)}x)`,
      );
      results.push(rate);
    }
    const ms = (values: number[]) => median(values).toFixed(2);
    for (const name of names)
      console.log(
        `read CPU per request, ${name}: server ${ms(cpu[name].server)} ms, DynamoDB Local ${ms(cpu[name].dynamoDb)} ms (medians of ${options.rounds} rounds)`,
      );
    return results;
  } finally {
    for (const server of [idp, bare, checked, sameRequests]) server.stop();
  }
};
