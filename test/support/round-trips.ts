import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * How many DynamoDB round trips some work costs, measured: every command of this process is
 * timed, and commands that overlap count as one round trip (they run in parallel).
 */
export interface Call {
  command: string;
  /** What was sent (keys, expressions), to tell reads of the same command apart. */
  input: unknown;
  /** The partition keys the command names (Key, Item, and each key of a batch). */
  partitions: string[];
  start: number;
  end: number;
}

/** Every `pk` value anywhere in a command's input. */
const partitionsOf = (input: unknown): string[] => {
  const found: string[] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) for (const item of value) visit(item);
    else if (value && typeof value === 'object')
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'pk' && typeof inner === 'string') found.push(inner);
        else visit(inner);
      }
  };
  visit(input);
  return found;
};
let calls: { done: Call[]; pending: Promise<void>[] } | undefined;
const noop = () => undefined;

for (const client of [DynamoDBClient, DynamoDBDocumentClient]) {
  const send = client.prototype.send;
  client.prototype.send = async function timedSend(
    this: unknown,
    command: { constructor: { name: string }; input: unknown },
    ...rest: unknown[]
  ) {
    const start = performance.now();
    const recording = calls;
    const sent = (send as (...args: unknown[]) => Promise<unknown>).call(this, command, ...rest);
    // Recorded when answered; a command the request did not wait for (a read started beside a
    // write) may be answered after the request: the measure waits for it.
    const answered = sent
      .finally(() => {
        recording?.done.push({
          command: command.constructor.name,
          input: command.input,
          partitions: partitionsOf(command.input),
          start,
          end: performance.now(),
        });
      })
      // The caller handles the failure of `sent`; this copy of it must not count as unhandled.
      .then(noop, noop);
    recording?.pending.push(answered);
    return sent;
  } as typeof send;
}

/**
 * Sequential round trips: the longest chain of commands each sent after the one before it was
 * answered. A long command beside a chain neither adds to it nor hides its steps.
 */
export const roundTrips = (recorded: Call[]): number => {
  const byStart = [...recorded].sort((a, b) => a.start - b.start);
  const chainEndingAt: number[] = [];
  byStart.forEach((call, index) => {
    const before = byStart
      .slice(0, index)
      .map((earlier, earlierIndex) => (earlier.end <= call.start ? (chainEndingAt[earlierIndex] ?? 0) : 0));
    chainEndingAt.push(1 + Math.max(0, ...before));
  });
  return Math.max(0, ...chainEndingAt);
};

/** Runs `work` and answers its result with the DynamoDB commands it sent (and logs them). */
export const measureRoundTrips = async <T>(label: string, work: () => Promise<T>) => {
  const recording: NonNullable<typeof calls> = { done: [], pending: [] };
  calls = recording;
  try {
    const result = await work();
    for (let waited = 0; waited < recording.pending.length; waited = recording.pending.length)
      await Promise.all(recording.pending.slice(waited));
    const recorded = recording.done;
    console.log(
      `${label}: ${roundTrips(recorded)} round trips, ${recorded.length} commands (${recorded.map((call) => call.command).join(', ')})`,
    );
    return { result, recorded, commands: recorded.map((call) => call.command) };
  } finally {
    calls = undefined;
  }
};
