import { createHash } from 'node:crypto';
import { CustomResource, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { MANAGED_ROLES, PERMISSION_CATALOGUE } from '../shared/domain/permission-catalogue.js';
import { IdpFunction, roleLoggingTo } from './idp-function.js';

/**
 * Fingerprint of the system data. It is a property of the custom resource, so a deployment that
 * changes the catalogue or the managed roles updates the resource, and CloudFormation re-seeds.
 */
export const systemDataHash = (catalogue = PERMISSION_CATALOGUE, managedRoles = MANAGED_ROLES): string =>
  createHash('sha256').update(JSON.stringify({ catalogue, managedRoles })).digest('hex');

export interface SystemDataSeedProps {
  readonly table: ITableV2;
}

/**
 * Writes the permission catalogue and the managed roles on every deployment that changes them
 * (custom resource, Provider framework, onEvent handler `functions/seed.ts`). Seeding is
 * idempotent; deleting the resource keeps the data, which lives as long as the retained table.
 */
export class SystemDataSeed extends Construct {
  readonly handler: IdpFunction;

  constructor(scope: Construct, id: string, props: SystemDataSeedProps) {
    super(scope, id);
    this.handler = new IdpFunction(this, 'Handler', {
      entry: 'functions/seed.ts',
      description: 'IDP: seeds the permission catalogue and managed roles during deployments',
      timeout: Duration.minutes(2),
    });
    this.handler.bindTable(props.table, 'read-write');

    const providerLogs = new LogGroup(this, 'ProviderLogs', { retention: RetentionDays.ONE_MONTH });
    const providerRole = roleLoggingTo(this, 'ProviderRole', providerLogs);
    const provider = new Provider(this, 'Provider', {
      onEventHandler: this.handler.lambda,
      frameworkOnEventRole: providerRole,
      logGroup: providerLogs,
    });
    const handlerLogicalId = Stack.of(this).getLogicalId(
      this.handler.lambda.node.defaultChild as CfnFunction,
    );
    Validations.of(providerRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${handlerLogicalId}.Arn>:*]`,
      reason:
        "The Provider framework's grantInvoke covers the seed handler's versions and aliases (ARN:*); " +
        'the wildcard stays within that one function.',
    });
    new CustomResource(this, 'Resource', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::IdpSystemData',
      properties: { systemDataHash: systemDataHash() },
    });
  }
}
