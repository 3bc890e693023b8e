import { awsTimeouts } from '../config.js';

/**
 * The request handler settings of every AWS SDK client of the service: give up on a connection
 * after 1 s and on a silent socket after 2.5 s by default, and the SDK then tries again (standard
 * mode: 3 attempts), so a stalled keep-alive connection costs seconds rather than the function's
 * 10 s timeout. DynamoDB answers in milliseconds; Secrets Manager, S3 and SES within a few
 * hundred. DynamoDB Local on a busy laptop can pause for longer, so `npm start` and the tests
 * allow more. Without `throwOnRequestTimeout` this SDK version only warns when a request passes
 * its timeout, and keeps waiting.
 */
export const awsRequestHandler = () => {
  const { connectionMillis, requestMillis } = awsTimeouts();
  return { connectionTimeout: connectionMillis, requestTimeout: requestMillis, throwOnRequestTimeout: true };
};
