import { Logger } from '@aws-lambda-powertools/logger';
import { logLevelOf } from '../config.js';

/**
 * Structured JSON logs. What is logged is chosen field by field (never an event, header or body),
 * so tokens, secrets and passwords cannot reach the logs.
 */
export const logger = new Logger({
  serviceName: 'idp',
  logLevel: logLevelOf(process.env),
});
