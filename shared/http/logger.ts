import { Logger } from '@aws-lambda-powertools/logger';
import { logLevelOf } from '../config.js';

/**
 * The service's structured JSON logs: Powertools Logger, one line per entry (INFO and DEBUG on
 * standard output, WARN and ERROR on standard error), with the Lambda context of the invocation
 * (`injectLambdaContext`, in the group handler). What is logged is chosen field by field (never
 * an event, header or body), so tokens, secrets and passwords cannot reach the logs.
 */
export const logger = new Logger({ serviceName: 'idp', logLevel: logLevelOf(process.env) });
