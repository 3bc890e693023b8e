import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { keys } from '../shared/store/keys.js';
import { IdpFunction } from './idp-function.js';
import type { IdpSecrets } from './idp-secrets.js';

/**
 * Tamper evidence (docs/audit.md, "Digests"): at five past every hour a function writes each
 * organization's signed digest of the hour that ended. It reads the audit indexes and writes
 * digests only; like every function it may not change or delete a digest once written.
 */
export class AuditDigests extends Construct {
  readonly writer: IdpFunction;

  constructor(scope: Construct, id: string, props: { table: ITableV2; secrets: IdpSecrets }) {
    super(scope, id);
    this.writer = new IdpFunction(this, 'Writer', {
      entry: 'functions/audit-digest.ts',
      description: "IDP: writes each organization's signed audit digest of the hour that ended",
      timeout: Duration.minutes(10),
      // Where the signing key is: Secrets Manager, under the stack's prefix.
      environment: props.secrets.environment,
    });
    this.writer.bindTable(props.table, {
      writesPartitions: [
        keys.auditDigestHead('*', 0).pk,
        keys.auditDigestPage('*', 0, 0).pk.replace(/#0+$/, '#*'),
      ],
      readsAudit: true,
    });
    props.secrets.grantAccessTokenKeyRead(this.writer);
    new Rule(this, 'Hourly', {
      description: 'IDP audit digests, five minutes after each hour',
      schedule: Schedule.cron({ minute: '5' }),
      targets: [new LambdaFunction(this.writer.lambda, { retryAttempts: 2 })],
    });
  }
}
