import { DynamoDbClient } from '../../shared/store/dynamodb-client.js';

/**
 * How many DynamoDB round trips some work costs, measured: every operation the service's client
 * sends in this process is timed, and operations that overlap count as one round trip (they run
 * in parallel).
 */
export interface Call {
  command: string;
  /** What was sent (keys, expressions), to tell reads of the same command apart. */
  input: unknown;
  start: number;
  end: number;
}
let calls: Call[] | undefined;

const send = DynamoDbClient.prototype.send;
DynamoDbClient.prototype.send = async function timedSend(this: DynamoDbClient, operation, input) {
  const start = performance.now();
  try {
    return await send.call(this, operation, input);
  } finally {
    calls?.push({ command: operation, input, start, end: performance.now() });
  }
} as typeof send;

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
  calls = [];
  try {
    const result = await work();
    const recorded = calls;
    console.log(
      `${label}: ${roundTrips(recorded)} round trips, ${recorded.length} commands (${recorded.map((call) => call.command).join(', ')})`,
    );
    return { result, recorded, commands: recorded.map((call) => call.command) };
  } finally {
    calls = undefined;
  }
};
