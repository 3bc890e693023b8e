import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage, Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { buildSync } from 'esbuild';
import type { RouteDefinition } from '../shared/api/route-definition.js';
import { ALARM_PERIOD, alarmOnAny } from './alarms.js';
import { bundleFunctionSync } from './bundling.js';
import { middlewareWritesOf, type TableAccess, tableStatements } from './table-grants.js';

/** Bundling runs from the project root whatever the caller's working directory. */
const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * A Lambda execution role that may write to one log group and nothing else yet; used instead of
 * the AWS managed AWSLambdaBasicExecutionRole, which allows writing to any log group.
 */
export const roleLoggingTo = (scope: Construct, id: string, logGroup: LogGroup): Role => {
  const role = new Role(scope, id, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  logGroup.grantWrite(role);
  return role;
};

export interface IdpFunctionProps {
  /** Entry file relative to the project root, e.g. `functions/users.ts`; it exports `handler`. */
  readonly entry: string;
  readonly description: string;
  /** The routes this function serves; their middleware decides which table partitions it writes. */
  readonly routes?: readonly RouteDefinition[];
  readonly environment?: Record<string, string>;
  /** @default 10 seconds (API Gateway HTTP APIs give up after 30) */
  readonly timeout?: Duration;
  /**
   * @default 1024 MB: a warm management read spends about 5 ms of CPU and a cold start about 75 ms
   * loading modules (`npm run bench`, "Lambda sizing"); Lambda's CPU grows with memory, so 1024 MB
   * halves what 512 MB takes (docs/performance.md, "Lambda settings").
   */
  readonly memorySize?: number;
}

/**
 * The function's code: bundled by esbuild in this process at synth (lib/bundling.ts: code split,
 * which the NodejsFunction construct's single-file bundling cannot do), so `cdk synth` needs no
 * Docker. The asset is hashed from its output.
 */
const bundledCode = (entry: string): Code =>
  Code.fromAsset(path.join(PROJECT_ROOT, path.dirname(entry)), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never used: local bundling always succeeds or throws.
      image: DockerImage.fromRegistry('scratch'),
      // CDK reuses a bundle for the same source folder and options (the function below does not
      // count): the entry makes each function's options its own.
      environment: { IDP_FUNCTION_ENTRY: entry },
      local: {
        tryBundle: (outputDir) => {
          bundleFunctionSync(buildSync, path.join(PROJECT_ROOT, entry), outputDir);
          return true;
        },
      },
    },
  });

/**
 * A Lambda function with the project's defaults: arm64, the newest Node.js runtime, a minified
 * ESM bundle with source maps and the AWS SDK bundled (its version pinned by the lock file, not by
 * the runtime), its own log group and role, and an alarm on errors. It starts with no permission
 * beyond writing its logs; `bindTable` and the secret grants add exactly what it needs.
 */
export class IdpFunction extends Construct {
  readonly lambda: LambdaFunction;
  /** The function's own role: every grant lands here. */
  readonly role: Role;
  readonly routes: readonly RouteDefinition[];

  constructor(scope: Construct, id: string, props: IdpFunctionProps) {
    super(scope, id);
    this.routes = props.routes ?? [];

    const logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH });
    this.role = roleLoggingTo(this, 'Role', logGroup);

    this.lambda = new LambdaFunction(this, 'Function', {
      code: bundledCode(props.entry),
      handler: 'index.handler',
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 1024,
      timeout: props.timeout ?? Duration.seconds(10),
      role: this.role,
      logGroup,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
    });

    alarmOnAny(
      this,
      'ErrorsAlarm',
      this.lambda.metricErrors({ period: ALARM_PERIOD, statistic: 'Sum' }),
      `${props.entry} failed`,
    );
    // One alarm per function: an alarm's math expression may combine at most 10 metrics.
    alarmOnAny(
      this,
      'ThrottlesAlarm',
      this.lambda.metricThrottles({ period: ALARM_PERIOD, statistic: 'Sum' }),
      `${props.entry} was throttled: requests were refused for lack of concurrency`,
    );
  }

  /**
   * Points the function at the table and grants least privilege: 'read' is read-only on the table
   * and its indexes plus the writes its routes' middleware makes (rate-limit counters, idempotency
   * records), each confined to its own partitions; `{ writesPartitions }` adds writes to those
   * partitions only; 'read-write' reads and writes items; 'none' leaves the function without
   * the table.
   */
  bindTable(table: ITableV2, access: TableAccess): void {
    if (access === 'none') return;
    this.lambda.addEnvironment('IDP_TABLE_NAME', table.tableName);
    for (const statement of tableStatements(table, access, middlewareWritesOf(this.routes))) {
      this.lambda.addToRolePolicy(statement);
    }
  }
}
