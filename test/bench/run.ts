import { startDynamoDbLocal } from '../../bin/local/dynamodb-local.js';
import {
  allowanceForSecond,
  counterCount,
  shareOf,
  WRITES_PER_COUNTER,
} from '../../shared/domain/rate-limit.js';
import { freePort } from '../support/global-setup.js';
import { benchAuditedWrites, benchSignInRate } from './audit.js';
import { benchBundles, median } from './bundles.js';
import { benchLambdaCpu, LAMBDA_VCPU_MB, MEMORY_SIZES } from './lambda-cpu.js';
import { benchPowertoolsCost } from './powertools-cost.js';
import { benchReads } from './reads.js';
import { benchTokenEndpoint } from './token-endpoint.js';

/**
 * `npm run bench`: issue 24's comparisons, each side by side in one run and several rounds against
 * baselines on the same AWS SDK, then one line per target with its measured ratio (docs/performance.md).
 * BENCH_ROUNDS and BENCH_SECONDS change the effort.
 */
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
Object.assign(process.env, {
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_REGION: 'us-east-1',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  IDP_TABLE_NAME: 'idp-bench',
  IDP_LOG_LEVEL: 'INFO',
  // DynamoDB Local under the sign-in rate's load pauses for longer than DynamoDB ever does.
  IDP_AWS_REQUEST_TIMEOUT_MS: '30000',
  // On in this process, as deployed, for the CPU of a warm invocation and of Powertools itself;
  // the servers of the HTTP comparisons run requests side by side in one process, so there they
  // are off (token-endpoint.ts, reads.ts) and their cost is the line printed for target 4.
  POWERTOOLS_METRICS_DISABLED: 'false',
});

const { functions: bundles, runtimeSdkRatio } = await benchBundles(Math.max(5, rounds * 3));
const dynamo = await startDynamoDbLocal({ port: await freePort() });
process.env.IDP_DYNAMODB_ENDPOINT = dynamo.endpoint;
try {
  const tokens = await benchTokenEndpoint({
    dynamoDbEndpoint: dynamo.endpoint,
    rounds,
    seconds,
    concurrencies: [10, 50],
  });
  const reads = await benchReads({
    dynamoDbEndpoint: dynamo.endpoint,
    dynamoDbPid: dynamo.pid,
    rounds,
    seconds,
    concurrency: 10,
  });
  const audited = await benchAuditedWrites({ rounds, creates: 100 });
  const signIns = await benchSignInRate({ perSecond: 2000, seconds: 5, shards: 4, inFlight: 64 });
  const warm = await benchLambdaCpu({ dynamoDbEndpoint: dynamo.endpoint, invocations: 500 });
  const powertools = await benchPowertoolsCost(2000);
  const loadOf = (entry: string) => bundles.find((result) => result.entry === entry)?.loadCpu ?? 0;
  const least = (cpuMillis: number, memory: number) => (cpuMillis / (memory / LAMBDA_VCPU_MB)).toFixed(1);
  console.log(
    `\nLambda sizing: CPU per warm invocation ${warm.read.toFixed(2)} ms (GET /idp/users/{id}), ${warm.token.toFixed(2)} ms (token); module load ${loadOf('functions/users.ts').toFixed(0)} / ${loadOf('functions/oauth.ts').toFixed(0)} ms`,
  );
  for (const memory of MEMORY_SIZES) {
    console.log(
      `  ${String(memory).padStart(4)} MB (${(memory / LAMBDA_VCPU_MB).toFixed(2)} vCPU): at least ${least(warm.read, memory)} ms per read, ${least(warm.token, memory)} ms per token, ${least(loadOf('functions/users.ts'), memory)} / ${least(loadOf('functions/oauth.ts'), memory)} ms to load users / oauth`,
    );
  }

  const tokenRatio = (concurrency: number) =>
    median(tokens.filter((run) => run.concurrency === concurrency).map((run) => run.idp / run.peer));
  const largestLoad = bundles.reduce((worst, result) => (result.cpuRatio > worst.cpuRatio ? result : worst));
  const readRatio = median(reads.map((run) => run.idp / run.bareChecked));
  const share = (part: number, whole: number) => `${((part / whole) * 100).toFixed(1)}%`;
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const contract = { rate: 10_000, burst: 10_000 };
  const counters = counterCount(contract);
  console.log(`
Targets (issue 24), medians of ${rounds} rounds, every baseline on the same AWS SDK:
1. token endpoint c=10: ${tokenRatio(10).toFixed(2)}x oidc-provider (target >= 1.5: ${met(tokenRatio(10) >= 1.5)})
1. token endpoint c=50: ${tokenRatio(50).toFixed(2)}x oidc-provider (target >= 1.5: ${met(tokenRatio(50) >= 1.5)})
2. GET /idp/users/{id}: ${readRatio.toFixed(2)}x a bare server doing JWT check + counter write + GetItem with the DocumentClient (target >= 0.9: ${met(readRatio >= 0.9)}); ${median(reads.map((run) => run.idp / run.bareGetItem)).toFixed(2)}x one doing the GetItem alone; ${median(reads.map((run) => run.idp / run.bareSameRequests)).toFixed(2)}x one making the service's own DynamoDB requests (conditional counter, BatchGetItem)
3. module-load CPU: largest ${largestLoad.cpuRatio.toFixed(2)}x the bare DocumentClient GetItem handler (${largestLoad.entry}; target <= 1.5: ${met(largestLoad.cpuRatio <= 1.5)})
   the AWS SDK taken from node_modules (the runtime's copy) instead of bundled: users loads ${runtimeSdkRatio.toFixed(2)}x the bare handler, so it is bundled
4. Powertools per request, each kept while it costs at most 10% of the token or read path's CPU:
   Logger ${(powertools.logger * 1000).toFixed(0)} us of CPU, ${share(powertools.logger, warm.token)} of a warm token, ${share(powertools.logger, warm.read)} of a warm read (${met(powertools.logger <= 0.1 * Math.min(warm.token, warm.read))})
   Metrics ${(powertools.metrics * 1000).toFixed(0)} us of CPU, ${share(powertools.metrics, warm.token)} of a warm token, ${share(powertools.metrics, warm.read)} of a warm read (${met(powertools.metrics <= 0.1 * Math.min(warm.token, warm.read))})
5. rate limit: a 10,000 + 10,000 requests/s contract uses ${counters} counters of at most ${shareOf(allowanceForSecond(contract, 0), counters, 0)} writes/s each (a partition takes 1,000; target: 10,000 requests/s enforceable, share <= ${WRITES_PER_COUNTER})
6. Lambda settings: a warm read needs at least ${least(warm.read, 512)} ms of CPU time at 512 MB, ${least(warm.read, 1024)} ms at 1024 MB (chosen), a warm token ${least(warm.token, 512)} / ${least(warm.token, 1024)} ms; loading users at least ${least(loadOf('functions/users.ts'), 512)} / ${least(loadOf('functions/users.ts'), 1024)} ms (docs/performance.md)

Audit log (issue 26):
7. a user's creation (its ${audited.calls} DynamoDB calls) with its record ${audited.withRecord.toFixed(1)} ms, without ${audited.without.toFixed(1)} ms: ${audited.ratio.toFixed(2)}x (target <= 1.1: ${met(audited.ratio <= 1.1)}; no extra round trip: the record rides in the transaction)
8. sign-in records at a target of 2,000/s over 4 shards: ${signIns.written} of ${signIns.total} written at ${signIns.rate.toFixed(0)}/s (what DynamoDB Local sustains here), ${signIns.failed} failed, ${signIns.read} read back in ${signIns.pages} pages (${signIns.queries} Queries)${signIns.read === signIns.total ? '' : ' MISMATCH'}`);
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await dynamo.stop();
  process.exit();
}
