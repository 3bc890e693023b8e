import { CfnOutput, Duration, Validations } from 'aws-cdk-lib';
import { ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { AUDIT_PREFIX } from '../shared/store/keys.js';
import { ALARM_PERIOD, alarmOnAny } from './alarms.js';
import { IdpFunction } from './idp-function.js';

export const EVENT_BUS_NAME = 'idp-events';

/**
 * Audit records, out to the customer's systems (docs/audit.md, "Events"): the table's stream
 * feeds a small forwarder function that puts each new record on the `idp-events` bus. A function
 * rather than an EventBridge Pipe: a Pipe cannot turn the stream's DynamoDB JSON into the record
 * itself as `detail`, nor name the event's `detail-type` after a field inside a JSON string. Only
 * the forwarder reads the stream; stream records that fail every retry go to a dead-letter queue.
 */
export class AuditStream extends Construct {
  readonly bus: EventBus;
  readonly forwarder: IdpFunction;
  readonly deadLetters: Queue;

  constructor(scope: Construct, id: string, props: { table: TableV2 }) {
    super(scope, id);
    this.bus = new EventBus(this, 'Bus', { eventBusName: EVENT_BUS_NAME });
    this.forwarder = new IdpFunction(this, 'Forwarder', {
      entry: 'functions/audit-forwarder.ts',
      description: 'IDP: forwards audit records from the table stream to the idp-events bus',
      environment: { IDP_EVENT_BUS_NAME: this.bus.eventBusName },
      timeout: Duration.seconds(30),
    });
    this.bus.grantPutEventsTo(this.forwarder.lambda);
    this.deadLetters = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is the dead-letter destination of the forwarder's stream mapping (onFailure), " +
        'which cdk-nag does not recognise as a DLQ; a dead-letter queue needs none of its own.',
    });
    this.forwarder.lambda.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(1),
        retryAttempts: 10,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(this.deadLetters),
        // Only new audit records invoke it: not their target copies, not any other change.
        filters: [
          FilterCriteria.filter({
            eventName: ['INSERT'],
            dynamodb: { Keys: { pk: { S: [{ prefix: AUDIT_PREFIX }] }, sk: { S: ['RECORD'] } } },
          }),
        ],
      }),
    );
    // A failed batch is no Lambda error (reportBatchItemFailures): what shows a loss is a record in
    // the dead letters, and a stream the forwarder falls behind on.
    alarmOnAny(
      this,
      'DeadLettersAlarm',
      this.deadLetters.metricApproximateNumberOfMessagesVisible({
        period: ALARM_PERIOD,
        statistic: 'Maximum',
      }),
      'Audit records did not reach the idp-events bus after every retry: they are in the dead-letter queue',
    );
    new Metric({
      namespace: 'AWS/Lambda',
      metricName: 'IteratorAge',
      dimensionsMap: { FunctionName: this.forwarder.lambda.functionName },
      period: ALARM_PERIOD,
      statistic: 'Maximum',
    }).createAlarm(this, 'IteratorAgeAlarm', {
      alarmDescription: 'The audit forwarder is more than 10 minutes behind the table stream',
      threshold: 600_000,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    new CfnOutput(this, 'EventBusArn', {
      value: this.bus.eventBusArn,
      description: 'Audit records arrive here: source "idp", detail-type the action, detail the record',
    });
  }
}
