import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { auditRecordsIn, eventChunks } from '../shared/audit/stream-events.js';
import { awsRequestHandler } from '../shared/aws/request-timeouts.js';
import { logger } from '../shared/http/logger.js';

let client: EventBridgeClient | undefined;
/** Created on first use: nothing in the function's init that can wait. */
const events = () => {
  client ??= new EventBridgeClient({ requestHandler: awsRequestHandler() });
  return client;
};

/**
 * Forwards audit records from the table's stream to the `idp-events` bus, ten per PutEvents call,
 * in stream order. When an entry fails, the batch is reported failed from that record on: Lambda
 * retries from there, so delivery is at least once (a consumer dedupes by the record's `id`).
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const busName = process.env.IDP_EVENT_BUS_NAME ?? 'idp-events';
  const { records, unreadable } = auditRecordsIn(
    event.Records.map((streamed) => ({
      sequenceNumber: streamed.dynamodb?.SequenceNumber ?? '',
      eventName: streamed.eventName ?? '',
      image: streamed.dynamodb?.NewImage,
    })),
  );
  // Nothing the service wrote: `audit verify` names such an item; the stream goes on.
  if (unreadable.length > 0) logger.warn('audit record items not forwarded: unreadable', { unreadable });
  const { chunks, tooLarge } = eventChunks(records, busName);
  if (tooLarge.length > 0) logger.warn('audit records not forwarded: too large for an event', { tooLarge });
  for (const chunk of chunks) {
    try {
      const answer = await events().send(new PutEventsCommand({ Entries: chunk.map(({ entry }) => entry) }));
      if ((answer.FailedEntryCount ?? 0) === 0) continue;
      // From the first entry that failed; from the chunk's first when the answer names none.
      const failed = Math.max(
        0,
        (answer.Entries ?? []).findIndex((entry) => entry.ErrorCode !== undefined),
      );
      logger.warn('audit events not delivered; retried from the first', { failed: answer.FailedEntryCount });
      return { batchItemFailures: [{ itemIdentifier: chunk[failed]?.sequenceNumber ?? '' }] };
    } catch (error) {
      logger.warn('audit events not delivered; retried', { error: error as Error });
      return { batchItemFailures: [{ itemIdentifier: chunk[0]?.sequenceNumber ?? '' }] };
    }
  }
  return { batchItemFailures: [] };
};
