import { DynamoDbClient } from '../../shared/store/dynamodb-client.js';

/**
 * How many DynamoDB round trips some work costs, measured: every operation the service's client
 * sends in this process is timed, and operations that overlap count as one round trip (they run
 * in parallel).
 */
interface Call {
  command: string;
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
    calls?.push({ command: operation, start, end: performance.now() });
  }
} as typeof send;

/** Sequential round trips: a command that starts after every earlier one ended opens a new one. */
export const roundTrips = (recorded: Call[]): number => {
  let rounds = 0;
  let latestEnd = Number.NEGATIVE_INFINITY;
  for (const call of [...recorded].sort((a, b) => a.start - b.start)) {
    if (call.start >= latestEnd) rounds++;
    latestEnd = Math.max(latestEnd, call.end);
  }
  return rounds;
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
