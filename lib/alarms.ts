import { Duration } from 'aws-cdk-lib';
import { type Alarm, ComparisonOperator, type Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';

/** Sums over five minutes: a fault shows within minutes of its first occurrence. */
export const ALARM_PERIOD = Duration.minutes(5);

/**
 * An alarm that fires on the first occurrence in a period. Used for faults only: the middleware
 * answers every expected failure with a 4xx, so one error or one 5xx already deserves a look.
 * No action is attached; subscribe an SNS topic or a chat integration per deployment.
 */
export const alarmOnAny = (scope: Construct, id: string, metric: Metric, description: string): Alarm =>
  metric.createAlarm(scope, id, {
    alarmDescription: description,
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
