import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, StreamViewType, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { TABLE_SCHEMA } from '../shared/store/keys.js';

const stringKey = (name: string) => ({ name, type: AttributeType.STRING });

/**
 * The service's single table, defined from `TABLE_SCHEMA` so the table and the code that builds
 * keys cannot drift apart. On-demand (traffic is spiky and small), point-in-time recovery,
 * deletion protection and RETAIN: identity data must survive a mistaken `cdk destroy`.
 */
export class IdpTable extends TableV2 {
  /**
   * `globalIndexes` declares only the first that many global indexes: CloudFormation adds one per
   * update, so a table deployed before newer indexes existed is upgraded one deploy at a time
   * (docs/operating.md, "Upgrading"). Default: all of them.
   */
  constructor(scope: Construct, id: string, globalIndexes: number = TABLE_SCHEMA.indexes.length) {
    if (
      !Number.isInteger(globalIndexes) ||
      globalIndexes < 1 ||
      globalIndexes > TABLE_SCHEMA.indexes.length
    ) {
      throw new Error(
        `globalIndexes must be a whole number from 1 to ${TABLE_SCHEMA.indexes.length}, got ${globalIndexes}`,
      );
    }
    super(scope, id, {
      partitionKey: stringKey(TABLE_SCHEMA.partitionKey),
      sortKey: stringKey(TABLE_SCHEMA.sortKey),
      globalSecondaryIndexes: TABLE_SCHEMA.indexes.slice(0, globalIndexes).map((index) => ({
        indexName: index.name,
        partitionKey: stringKey(index.partitionKey),
        sortKey: stringKey(index.sortKey),
      })),
      localSecondaryIndexes: TABLE_SCHEMA.localIndexes.map((index) => ({
        indexName: index.name,
        sortKey: stringKey(index.sortKey),
      })),
      timeToLiveAttribute: TABLE_SCHEMA.timeToLiveAttribute,
      // New items only: the audit stream forwards new records (lib/audit-stream.ts).
      dynamoStream: StreamViewType.NEW_IMAGE,
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      // The AWS managed key (aws/dynamodb): KMS encryption with key use visible in CloudTrail,
      // no monthly key fee and no key policy to maintain, unlike a customer managed key.
      encryption: TableEncryptionV2.awsManagedKey(),
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
