import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration } from 'aws-cdk-lib';
import { ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { RouteDefinition } from '../shared/api/route-definition.js';
import { middlewareWritesOf, type TableAccess, tableStatements } from './table-grants.js';

/** Bundling runs from the project root whatever the caller's working directory. */
const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** ESM bundles have no `require`; some CommonJS dependencies call it for Node built-ins. */
const CREATE_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

export interface IdpFunctionProps {
  /** Entry file relative to the project root, e.g. `functions/users.ts`; it exports `handler`. */
  readonly entry: string;
  readonly description: string;
  /** The routes this function serves; their middleware decides which table partitions it writes. */
  readonly routes?: readonly RouteDefinition[];
  readonly environment?: Record<string, string>;
  /** @default 10 seconds (API Gateway HTTP APIs give up after 30) */
  readonly timeout?: Duration;
  /** @default 512 MB: ES256 signing and cold starts are CPU bound, and CPU grows with memory */
  readonly memorySize?: number;
}

/**
 * A Lambda function with the project's defaults: arm64, the newest Node.js runtime, a minified
 * ESM bundle with source maps and the AWS SDK bundled (its version pinned by the lock file, not by
 * the runtime), its own log group and role, and an alarm on errors. It starts with no permission
 * beyond writing its logs; `bindTable` and the secret grants add exactly what it needs.
 */
export class IdpFunction extends Construct {
  readonly lambda: NodejsFunction;
  readonly routes: readonly RouteDefinition[];

  constructor(scope: Construct, id: string, props: IdpFunctionProps) {
    super(scope, id);
    this.routes = props.routes ?? [];

    const logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH });
    // An own role instead of the default AWSLambdaBasicExecutionRole: logs go to this group only.
    const role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);

    this.lambda = new NodejsFunction(this, 'Function', {
      entry: path.join(PROJECT_ROOT, props.entry),
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      role,
      logGroup,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: 'idp',
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        mainFields: ['module', 'main'],
        banner: CREATE_REQUIRE_BANNER,
        minify: true,
        sourceMap: true,
        // Stack traces need file names and lines, not the sources: keeps the bundle small.
        sourcesContent: false,
        bundleAwsSDK: true,
        externalModules: [],
      },
    });

    // Handlers map expected failures to 4xx responses, so any error is a fault worth a look.
    this.lambda
      .metricErrors({ period: Duration.minutes(5), statistic: 'Sum' })
      .createAlarm(this, 'ErrorsAlarm', {
        alarmDescription: `${props.entry} failed at least once in 5 minutes`,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
  }

  addEnvironment(name: string, value: string): void {
    this.lambda.addEnvironment(name, value);
  }

  /**
   * Points the function at the table and grants least privilege: 'read' is read-only on the table
   * and its indexes plus the writes its routes' middleware makes (rate-limit counters, idempotency
   * records), each confined to its own partitions; 'read-write' reads and writes items; 'none'
   * leaves the function without the table.
   */
  bindTable(table: ITableV2, access: TableAccess): void {
    if (access === 'none') return;
    this.addEnvironment('IDP_TABLE_NAME', table.tableName);
    for (const statement of tableStatements(table, access, middlewareWritesOf(this.routes))) {
      this.lambda.addToRolePolicy(statement);
    }
  }
}
