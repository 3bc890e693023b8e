import { randomBytes, randomUUID } from 'node:crypto';
import {
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { ensureTable } from '../../bin/local/table.js';
import { writeAuditRecord } from '../../shared/store/audit-records.js';
import { db, dynamoDbClient, tableName } from '../../shared/store/dynamo.js';
import { median } from './bundles.js';

/**
 * Issue 26's two audit measurements against DynamoDB Local:
 * - a user's creation with its record and without: the transaction `createUser` sends is captured
 *   once, then sent again with fresh ids, alternately with and without the record's item, so the
 *   only difference is the record (its settings read is cached; docs/audit.md);
 * - an organization signing in 2,000 people a second over 4 shards: records written at that rate
 *   for a few seconds, then read back through the query, counted.
 */

type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>;
/** One DynamoDB call as the document client sent it. */
type SentCommand = { command: new (input: never) => unknown; input: unknown };

/** Every call the next `work` sends, captured on the document client (then sent as usual). */
const captureCommands = async (work: () => Promise<unknown>): Promise<SentCommand[]> => {
  const captured: SentCommand[] = [];
  const name = `capture-${randomUUID()}`;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const command = COMMANDS[context.commandName as keyof typeof COMMANDS];
      if (command) captured.push({ command, input: structuredClone(args.input) });
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await work();
  } finally {
    db().middlewareStack.remove(name);
  }
  return captured;
};

const COMMANDS = {
  TransactWriteItemsCommand: TransactWriteCommand,
  UpdateItemCommand: UpdateCommand,
  PutItemCommand: PutCommand,
  GetItemCommand: GetCommand,
} as const;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const ULID = /\b[0-9A-HJKMNP-TV-Z]{26}\b/g;
const DIGEST = /\b[0-9a-f]{64}\b|\b[A-Za-z0-9_-]{43}\b/g;
const EMAIL = /[a-z0-9.-]+@bench\.example/gi;

/**
 * The same transaction for another user: every id, record id, digest and email in it replaced
 * consistently (the organization's id kept), so it commits as a new creation would.
 */
const renewed = <T>(items: T, orgId: string): T => {
  const fresh = new Map<string, string>();
  const replace = (pattern: RegExp, make: () => string) => (text: string) =>
    text.replace(pattern, (old) => {
      if (old === orgId) return old;
      if (!fresh.has(old)) fresh.set(old, make());
      return fresh.get(old) as string;
    });
  const text = [
    replace(UUID, () => randomUUID()),
    replace(ULID, () => ulid()),
    replace(DIGEST, () => randomBytes(32).toString('hex')),
    replace(EMAIL, () => `${randomUUID()}@bench.example`),
  ].reduce((current, step) => step(current), JSON.stringify(items));
  return JSON.parse(text) as T;
};

const isAuditItem = (item: TransactItems[number]) => String(item.Put?.Item?.pk ?? '').startsWith('AUDIT#');

/** A new organization for a measurement, with audit settings of its own. */
const benchOrganization = async (audit?: { shards: number }) => {
  const { createOrganization, updateAuditSettings } = await import(
    '../../shared/store/organization-repository.js'
  );
  const now = Date.now();
  const id = randomUUID();
  await createOrganization({
    id,
    name: `Bench ${id.slice(0, 8)}`,
    createdAt: now,
    updatedAt: now,
    mfaEnabled: false,
  });
  if (audit) await updateAuditSettings(id, audit);
  return id;
};

export const benchAuditedWrites = async (options: { rounds: number; creates: number }) => {
  await ensureTable(dynamoDbClient(), tableName());
  const orgId = await benchOrganization();
  const { createUser } = await import('../../shared/store/user-repository.js');
  const newUser = () => ({
    organizationId: orgId,
    email: `${randomUUID()}@bench.example`,
    name: 'Bench',
    userType: 'STANDARD' as const,
    createdBy: 'bench',
  });
  // The organization's first user claims "initial": the transaction of the second is the usual one.
  await createUser(newUser());
  // Its calls: the organization's sequence, then the transaction with the user and its record.
  const sent = await captureCommands(() => createUser(newUser()));
  const send = async (withRecord: boolean) => {
    const started = performance.now();
    const inputs = renewed(
      sent.map((call) => call.input),
      orgId,
    );
    for (const [index, input] of inputs.entries()) {
      const { command } = sent[index] as SentCommand;
      const { TransactItems } = input as TransactWriteCommandInput;
      const shaped = TransactItems
        ? {
            ...(input as object),
            TransactItems: TransactItems.filter((item) => withRecord || !isAuditItem(item)),
          }
        : input;
      await db().send(new command(shaped as never) as never);
    }
    return performance.now() - started;
  };
  // Warm both shapes (connections, DynamoDB Local's JIT) before measuring.
  for (let index = 0; index < options.creates; index++) await send(index % 2 === 0);
  const ratios: number[] = [];
  const latencies = { with: [] as number[], without: [] as number[] };
  for (let round = 0; round < options.rounds; round++) {
    const withRecord: number[] = [];
    const without: number[] = [];
    for (let index = 0; index < options.creates; index++) {
      // Alternating, so drift of the machine favours neither.
      without.push(await send(false));
      withRecord.push(await send(true));
    }
    latencies.with.push(median(withRecord));
    latencies.without.push(median(without));
    ratios.push(median(withRecord) / median(without));
  }
  return {
    ratio: median(ratios),
    withRecord: median(latencies.with),
    without: median(latencies.without),
    calls: sent.length,
  };
};

/**
 * Sign-in records at `perSecond` for `seconds` (as many Lambda instances would write them, each
 * one at a time: at most `inFlight` at once), over `shards` shards, then every one read back
 * through the query. DynamoDB Local on a laptop may not reach the rate: the achieved one is
 * printed. What it shows is that nothing is lost and the query pages all of them back.
 */
export const benchSignInRate = async (options: {
  perSecond: number;
  seconds: number;
  shards: number;
  inFlight: number;
}) => {
  const orgId = await benchOrganization({ shards: options.shards });
  const { queryAuditRecords } = await import('../../shared/store/audit-records.js');
  const total = options.perSecond * options.seconds;
  let next = 0;
  let written = 0;
  let failed = 0;
  const started = performance.now();
  const writer = async () => {
    while (next < total) {
      const index = next++;
      // Paced: the index-th record is not written before its moment at the target rate.
      const due = started + (index / options.perSecond) * 1000;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      try {
        await writeAuditRecord({
          organizationId: orgId,
          action: 'signin.succeeded',
          actor: { type: 'user', id: `person-${index}` },
          targets: [{ type: 'user', id: `person-${index}` }],
        });
        written++;
      } catch {
        failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: options.inFlight }, writer));
  const rate = written / ((performance.now() - started) / 1000);
  let read = 0;
  let pages = 0;
  let before: string | undefined;
  do {
    const page = await queryAuditRecords(
      orgId,
      { action: 'signin.succeeded' },
      { limit: 1000, ...(before ? { before } : {}) },
    );
    read += page.records.length;
    pages++;
    before = page.before;
  } while (before);
  return { total, written, failed, read, rate, pages, queries: pages * options.shards };
};
