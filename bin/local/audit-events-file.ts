import { appendFile, chmod, readFile } from 'node:fs/promises';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ListStreamsCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { auditRecordsIn } from '../../shared/audit/stream-events.js';

const POLL_MILLIS = 500;

/** Ids already in the file: a restart reads the stream from its start and appends only what is new. */
const idsIn = async (file: string): Promise<Set<string>> => {
  const text = await readFile(file, 'utf8').catch(() => '');
  return new Set(
    text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        try {
          return String((JSON.parse(line) as { id?: unknown }).id);
        } catch {
          return '';
        }
      }),
  );
};

/**
 * `npm start`'s stand-in for the audit events bus (lib/audit-stream.ts): follows the table's stream
 * on DynamoDB Local as the forwarder does in AWS, and appends each new audit record to `file` as
 * one JSON line, so `tail -f` shows them. The same selection of stream records as the forwarder
 * (`auditRecordsIn`). Answers a function that stops following.
 */
export const followAuditRecords = async (options: {
  endpoint: string;
  tableName: string;
  file: string;
}): Promise<() => Promise<void>> => {
  const streams = new DynamoDBStreamsClient({ endpoint: options.endpoint });
  const known = await idsIn(options.file);
  /** Open shards and where reading each has got to. */
  const iterators = new Map<string, string | undefined>();
  let stopped = false;
  let running: Promise<void> = Promise.resolve();

  const poll = async () => {
    const { Streams } = await streams.send(new ListStreamsCommand({ TableName: options.tableName }));
    const streamArn = Streams?.[0]?.StreamArn;
    if (!streamArn) return;
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      const shardId = shard.ShardId as string;
      if (iterators.has(shardId)) continue;
      const { ShardIterator } = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shardId,
          ShardIteratorType: 'TRIM_HORIZON',
        }),
      );
      iterators.set(shardId, ShardIterator);
    }
    for (const [shardId, iterator] of iterators) {
      if (!iterator) continue;
      const { Records, NextShardIterator } = await streams.send(
        new GetRecordsCommand({ ShardIterator: iterator }),
      );
      const fresh = auditRecordsIn(
        (Records ?? []).map((record) => ({
          sequenceNumber: record.dynamodb?.SequenceNumber ?? '',
          eventName: record.eventName ?? '',
          image: record.dynamodb?.NewImage,
        })),
      )
        .records.map(({ record }) => record)
        .filter((record) => !known.has(record.id));
      if (fresh.length > 0) {
        await appendFile(options.file, fresh.map((record) => `${JSON.stringify(record)}\n`).join(''), {
          mode: 0o600,
        });
        // A file an earlier version made readable is closed too.
        await chmod(options.file, 0o600);
      }
      // Only once the batch is in the file: after a failure the next poll reads it again.
      for (const record of fresh) known.add(record.id);
      iterators.set(shardId, NextShardIterator);
    }
  };

  const loop = async () => {
    while (!stopped) {
      running = poll().catch((error: unknown) => {
        console.error(`audit events file: ${(error as Error).message}`);
      });
      await running;
      await new Promise((resolve) => setTimeout(resolve, POLL_MILLIS).unref());
    }
  };
  void loop();
  return async () => {
    stopped = true;
    await running;
    streams.destroy();
  };
};
