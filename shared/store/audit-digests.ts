import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { JwtVerifier } from 'aws-jwt-verify';
import type { JwtHeader } from 'aws-jwt-verify/jwt-model';
import {
  type DigestEntry,
  type DigestHead,
  type Discrepancy,
  digestEntry,
  firstDiscrepancy,
  HOUR_MILLIS,
  headHash,
  hourDigest,
  hourOf,
  pageHash,
} from '../audit/digest.js';
import { recordIdAt } from '../audit/record-id.js';
import { expiryOf } from '../audit/settings.js';
import { signJws } from '../auth/compact-jwt.js';
import { currentSigningKey, everySigningPublicJwk, type SigningKey } from '../auth/signing-keys.js';
import { logger } from '../http/logger.js';
import { firstReindexed } from './audit-index-check.js';
import { auditSettings } from './audit-records.js';
import { batchGetByKey } from './batch.js';
import { db, tableName } from './dynamo.js';
import { AUDIT_INDEXES, keys } from './keys.js';
import { conditionHeld, conditionNotMet, create, put } from './writes.js';

/** The JWS `typ` of a signed digest head: no token of the service can pass for one. */
export const DIGEST_TYP = 'idp-audit-digest+jwt';

/** The hours a digest covers: from the first millisecond of `from` to the last of `hour`. */
interface Hours {
  from: number;
  hour: number;
}

const idBounds = ({ from, hour }: Hours) => ({
  first: recordIdAt(from, 'first'),
  last: recordIdAt(hour + HOUR_MILLIS - 1, 'last'),
});

/** What a digest lists of each record; verify reads the whole item, to check its index entries too. */
const DIGESTED = { expression: 'recordId, #record, expiresAt', names: { '#record': 'record' } };

/** One shard's records of the hours, oldest first, page by page. */
async function* shardItems(
  orgId: string,
  hours: Hours,
  shard: number,
  projection?: typeof DIGESTED,
): AsyncGenerator<Record<string, unknown>> {
  const { index, partitionKey, sortKey } = AUDIT_INDEXES.timeline;
  const { first, last } = idBounds(hours);
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: index,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :first AND :last',
        ExpressionAttributeNames: { '#pk': partitionKey, '#sk': sortKey, ...projection?.names },
        ExpressionAttributeValues: {
          ':pk': keys.auditIndexKey(orgId, 'timeline', '', shard),
          ':first': first,
          ':last': last,
        },
        ...(projection ? { ProjectionExpression: projection.expression } : {}),
        ExclusiveStartKey: startKey,
      }),
    );
    yield* page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

const entryOf = (item: Record<string, unknown>): DigestEntry =>
  digestEntry(
    String(item.recordId),
    String(item.record),
    typeof item.expiresAt === 'number' ? item.expiresAt : undefined,
  );

/** The organization's audit settings, read fresh: every shard writers may have used, and the retention. */
const freshSettings = (orgId: string) => auditSettings(orgId, Date.now(), { fresh: true });
const shardsOf = async (orgId: string) => (await freshSettings(orgId)).shards;

/** Every record of the hours in id order: the shards' ordered streams merged as they are read. */
async function* hourItems(
  orgId: string,
  hours: Hours,
  shards: number,
  projection?: typeof DIGESTED,
): AsyncGenerator<Record<string, unknown>> {
  const streams = Array.from({ length: shards }, (_, shard) => shardItems(orgId, hours, shard, projection));
  const heads = await Promise.all(streams.map((stream) => stream.next()));
  const idOf = (head: IteratorResult<Record<string, unknown>>) => String(head.value?.recordId);
  for (;;) {
    let smallest = -1;
    heads.forEach((head, index) => {
      const current = heads[smallest];
      if (!head.done && (smallest < 0 || (current && !current.done && idOf(head) < idOf(current))))
        smallest = index;
    });
    const chosen = heads[smallest];
    if (!chosen || chosen.done) return;
    yield chosen.value;
    heads[smallest] = await (streams[smallest] as AsyncGenerator<Record<string, unknown>>).next();
  }
}

const collect = async <T>(values: AsyncIterable<T>) => {
  const all: T[] = [];
  for await (const value of values) all.push(value);
  return all;
};

interface StoredHead {
  hour: number;
  jws: string;
  /** Epoch seconds: the digest expires with the last of its records. */
  expiresAt?: number;
}

const storedHead = (item: Record<string, unknown>): StoredHead => ({
  hour: Number(item.hour),
  jws: String(item.jws),
  ...(typeof item.expiresAt === 'number' ? { expiresAt: item.expiresAt } : {}),
});

/** The organization's signed digest heads from `sinceHour` on, oldest first. */
const heads = async (orgId: string, sinceHour = 0): Promise<StoredHead[]> => {
  const found: StoredHead[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk >= :since',
        ExpressionAttributeValues: {
          ':pk': keys.auditDigestHeads(orgId),
          ':since': keys.auditDigestHead(orgId, sinceHour).sk,
        },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) found.push(storedHead(item));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return found;
};

const latestHeadBefore = async (orgId: string, hour: number): Promise<StoredHead | undefined> => {
  const page = await db().send(
    new QueryCommand({
      TableName: tableName(),
      // Heads only (not the chain's tip): their hours are whole, so before `hour` is up to hour - 1.
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
      ExpressionAttributeValues: {
        ':pk': keys.auditDigestHeads(orgId),
        ':first': keys.auditDigestHead(orgId, 0).sk,
        ':last': keys.auditDigestHead(orgId, hour - 1).sk,
      },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  const [item] = page.Items ?? [];
  return item ? storedHead(item) : undefined;
};

/**
 * The chain's tip: the newest head's hour and, since tips carry them, that head's hash and when it
 * is due to expire, so a head removed before then is told from one TTL deleted.
 */
interface ChainTip {
  hour: number;
  headHash?: string;
  expiresAt?: number;
}

const tipOf = async (orgId: string): Promise<ChainTip | undefined> => {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.auditDigestTip(orgId), ConsistentRead: true }),
  );
  if (typeof Item?.hour !== 'number') return undefined;
  return {
    hour: Item.hour,
    ...(typeof Item.headHash === 'string' ? { headHash: Item.headHash } : {}),
    ...(typeof Item.headExpiresAt === 'number' ? { expiresAt: Item.headExpiresAt } : {}),
  };
};

/** The `hour` of the item at `key` (a head), read strongly consistent. */
const hourAt = async (key: Record<string, string>): Promise<number | undefined> => {
  const { Item } = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: key,
      ConsistentRead: true,
      ProjectionExpression: '#hour',
      ExpressionAttributeNames: { '#hour': 'hour' },
    }),
  );
  return typeof Item?.hour === 'number' ? Item.hour : undefined;
};

const pageItems = (orgId: string, hour: number, pages: DigestEntry[][], expiresAt: number | undefined) =>
  pages.map((entries, index) => ({
    ...keys.auditDigestPage(orgId, hour, index),
    entries: JSON.stringify(entries),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
  }));

/**
 * Writes the organization's digest of `hour`, of every record since its previous digest (the
 * hours in between had none, or a run missed them: listed now, so none is left out), unless it has
 * a digest of this hour or a later one, or nothing was recorded since: its pages, then the signed
 * head, which names the previous digest's. Answers the head written.
 */
export const writeHourDigest = async (
  orgId: string,
  hour: number,
  now = Date.now(),
  /** The key that signs: deployed, the writer may only read it (`existingSigningKey`). */
  signingKey: () => Promise<SigningKey> = currentSigningKey,
): Promise<DigestHead | undefined> => {
  // An hour still under way: its digest would claim records not written yet.
  if (hour + HOUR_MILLIS > now) return undefined;
  const [newest, settings, tip] = await Promise.all([
    latestHeadBefore(orgId, Number.MAX_SAFE_INTEGER),
    freshSettings(orgId),
    tipOf(orgId),
  ]);
  if (newest && newest.hour >= hour) return undefined;
  // What the service never writes fails the run (its alarm) rather than being digested over.
  const tampered = (what: string) => new Error(`The audit digests of ${orgId}: ${what}`);
  if (newest && !tip) throw tampered("digests without the chain's tip");
  if (tip && tip.hour >= hourOf(now)) throw tampered("the chain's tip names an hour that has not ended");
  const previous = await chainedFrom(orgId, newest, tip, Math.floor(now / 1000));
  if (previous === 'written meanwhile') return undefined;
  if (previous && previous.hour >= hour)
    throw tampered(
      `the newest digest, of ${new Date(previous.hour).toISOString()}, is gone before it was due`,
    );
  // An organization's first digest lists every record before it too.
  const hours = { from: previous ? previous.hour + HOUR_MILLIS : 0, hour };
  const entries = (await collect(hourItems(orgId, hours, settings.shards, DIGESTED))).map(entryOf);
  // Once an organization has a chain, an hour that recorded nothing gets a digest listing nothing
  // (CloudTrail writes one every hour): a record put into it later is one no digest lists.
  if (entries.length === 0 && !previous) return undefined;
  const { head, pages } = hourDigest(orgId, hours, entries, {
    previous: previous?.hash ?? null,
    previousExpiresAt: previous?.expiresAt,
    expiresAtIfEmpty: expiryOf(hour + HOUR_MILLIS, settings.retentionDays),
  });
  // The digest expires with the last of its records (TTL), as the retention has them expire.
  const { expiresAt } = head;
  const expiry = expiresAt !== undefined ? { expiresAt } : {};
  // PutItem each, side by side (IAM denies BatchWriteItem on digests: it could delete one), and
  // never over an item of another run of the same hour: its pages stay its head's. Whichever run
  // finds the other's item writes no head; an hour left without one is covered by the next digest.
  const written = await Promise.all(
    pageItems(orgId, hour, pages, expiresAt).map((item) => conditionHeld(create(item, conditionNotMet))),
  );
  if (written.includes(false)) return undefined;
  const jws = signJws(await signingKey(), { typ: DIGEST_TYP }, { ...head });
  // The head and the chain's tip together, the tip still where this run read it: of two runs of
  // different hours that read the same tip, only one extends the chain (the other's hours are
  // covered by the next digest).
  const tipWhereFound =
    tip === undefined
      ? { condition: 'attribute_not_exists(pk)' }
      : { condition: '#hour = :tip', names: { '#hour': 'hour' }, values: { ':tip': tip.hour } };
  const extended = await conditionHeld(
    create({ ...keys.auditDigestHead(orgId, hour), hour, jws, ...expiry }, conditionNotMet),
    [
      put(
        {
          ...keys.auditDigestTip(orgId),
          hour,
          headHash: headHash(jws),
          // Not `expiresAt`: the tip never expires (TTL would delete it).
          ...(expiresAt !== undefined ? { headExpiresAt: expiresAt } : {}),
        },
        tipWhereFound,
        conditionNotMet,
      ),
    ],
  );
  if (!extended) return undefined;
  // A copy of each head's hash outside the table (the run's log): one who removes the newest
  // digest and writes the tip again leaves no trace inside it.
  logger.info('audit digest written', { organizationId: orgId, hour, headHash: headHash(jws) });
  return head;
};

/**
 * The digest the next one follows: the newest head, which the tip names. A head the tip names that
 * is not there was written since the Query (another run: this one stops), expired (TTL, after a
 * quiet spell longer than the retention, or a retention shortened so that newer records expire
 * first: the chain goes on from the newest head still there), or was removed before it was due:
 * then the chain goes on from it all the same, naming its hash, so `audit verify` reports the gap
 * rather than a chain that closed over it.
 */
const chainedFrom = async (
  orgId: string,
  newest: StoredHead | undefined,
  tip: ChainTip | undefined,
  nowSeconds: number,
): Promise<{ hour: number; hash: string; expiresAt?: number } | undefined | 'written meanwhile'> => {
  const fromNewest = newest && {
    hour: newest.hour,
    hash: headHash(newest.jws),
    ...(newest.expiresAt !== undefined ? { expiresAt: newest.expiresAt } : {}),
  };
  if (tip === undefined || tip.hour === newest?.hour) return fromNewest;
  if ((await hourAt(keys.auditDigestHead(orgId, tip.hour))) !== undefined) return 'written meanwhile';
  if (tip.headHash === undefined || tip.expiresAt === undefined || tip.expiresAt <= nowSeconds)
    return fromNewest;
  logger.error('the newest audit digest was removed before it was due to expire', {
    organizationId: orgId,
    hour: tip.hour,
  });
  return { hour: tip.hour, hash: tip.headHash, expiresAt: tip.expiresAt };
};

/**
 * Whether the chain's tip names the newest digest, as the service always writes them together:
 * none with digests there, or one naming another head that is not gone after its expiry, was
 * changed or removed. (Tips written before they held the head's hash are taken by their hour.)
 */
const chainTipProblem = (newest: StoredHead | undefined, tip: ChainTip | undefined, nowSeconds: number) => {
  if (!newest) return undefined;
  if (!tip) return "the chain's tip is missing (the newest digest's record of the chain was removed)";
  const expired = tip.expiresAt !== undefined && tip.expiresAt <= nowSeconds;
  const names =
    tip.hour === newest.hour && (tip.headHash === undefined || tip.headHash === headHash(newest.jws));
  return names || (expired && tip.hour > newest.hour)
    ? undefined
    : "the chain's tip does not name the newest digest (a digest was removed, or the tip changed)";
};

/** A page's entries; undefined when it is gone or its text is not what a digest writes. */
const pageEntries = (item: Record<string, unknown> | undefined): DigestEntry[] | undefined => {
  try {
    const entries: unknown = item && JSON.parse(String(item.entries));
    return Array.isArray(entries) ? (entries as DigestEntry[]) : undefined;
  } catch {
    return undefined;
  }
};

const reindexed = async (items: readonly Record<string, unknown>[], nowSeconds: number) => {
  const id = await firstReindexed(items, nowSeconds);
  return id === undefined ? undefined : ({ kind: 'reindexed', id } as const);
};

/** What `audit verify` finds: nothing, or the first digest or record that does not match. */
export type VerifyFinding =
  | { ok: true; digests: number; records: number }
  | { ok: false; hour: number; problem: string; record?: Discrepancy };

const verifierOf = async () => {
  const verifier = JwtVerifier.create({
    issuer: null,
    audience: null,
    // Never fetched: the service's own keys are cached below, and verifySync fetches nothing.
    jwksUri: 'https://idp.invalid/.well-known/jwks.json',
  });
  // Digests outlive the keys that signed them: the retired public keys verify them too.
  verifier.cacheJwks((await everySigningPublicJwk()) as Parameters<typeof verifier.cacheJwks>[0]);
  return (jws: string): DigestHead =>
    verifier.verifySync(jws, {
      customJwtCheck: ({ header }: { header: JwtHeader }) => {
        if (header.typ !== DIGEST_TYP) throw new Error('not a digest');
        if (header.crit !== undefined)
          throw new Error('crit names an extension this service does not understand');
      },
    }) as unknown as DigestHead;
};

/**
 * Recomputes every digest of the organization from `sinceHour` on and compares: each head's
 * signature and link to the one before, each page's hash, and each listed record against the
 * table. Answers the first thing that does not match. What expired by `now` (epoch ms) is no
 * mismatch: a record gone after its expiry, a chain that starts after its previous digest expired.
 */
export const verifyDigests = async (
  orgId: string,
  sinceHour = 0,
  now = Date.now(),
): Promise<VerifyFinding> => {
  const nowSeconds = Math.floor(now / 1000);
  const [verify, stored, shards, tip] = await Promise.all([
    verifierOf(),
    heads(orgId, sinceHour),
    shardsOf(orgId),
    tipOf(orgId),
  ]);
  const tipProblem = chainTipProblem(stored.at(-1), tip, nowSeconds);
  if (tipProblem) return { ok: false, hour: tip?.hour ?? stored.at(-1)?.hour ?? 0, problem: tipProblem };
  let previous = sinceHour > 0 ? await latestHeadBefore(orgId, sinceHour) : undefined;
  /** When the digest `jws` was due to expire, as `next` (verified) says if it follows that one. */
  const dueBy = (jws: string, next: StoredHead | undefined) => {
    try {
      const following = next && verify(next.jws);
      return following?.previous === headHash(jws) ? following.previousExpiresAt : undefined;
    } catch {
      return undefined;
    }
  };
  let records = 0;
  for (const [index, { hour, jws, expiresAt }] of stored.entries()) {
    let head: DigestHead;
    try {
      head = verify(jws);
    } catch {
      return { ok: false, hour, problem: 'the digest signature does not verify' };
    }
    if (head.organizationId !== orgId || head.hour !== hour)
      return { ok: false, hour, problem: 'the digest is of another organization or hour' };
    const previousExpired = head.previousExpiresAt !== undefined && head.previousExpiresAt <= nowSeconds;
    if (head.previous !== (previous ? headHash(previous.jws) : null) && !previousExpired)
      return {
        ok: false,
        hour,
        problem: 'the digest does not follow the one before it (a digest was changed or removed)',
      };
    const listed: DigestEntry[] = [];
    const pageKeys = head.pages.map((_, page) => keys.auditDigestPage(orgId, hour, page));
    const pages = await batchGetByKey(pageKeys);
    // TTL deletes a digest's items in no particular order: a page gone once the digest was due is
    // no removal. When it was due, its head says, signed; for a head written before heads said so,
    // the next head if it follows this one, else (the newest) its own item.
    if (pageKeys.some((key) => !pages.get(key))) {
      const due = head.expiresAt ?? dueBy(jws, stored[index + 1]) ?? expiresAt;
      if (due !== undefined && due <= nowSeconds) {
        previous = { hour, jws };
        continue;
      }
    }
    for (const [page, key] of pageKeys.entries()) {
      const entries = pageEntries(pages.get(key));
      if (!entries || pageHash(entries) !== head.pages[page])
        return { ok: false, hour, problem: `page ${page + 1} of the digest was changed or removed` };
      listed.push(...entries);
    }
    const items = await collect(hourItems(orgId, { from: head.from ?? hour, hour }, shards));
    const record =
      firstDiscrepancy(listed, items.map(entryOf), nowSeconds) ?? (await reindexed(items, nowSeconds));
    if (record) return { ok: false, hour, problem: `record ${record.id} ${record.kind}`, record };
    records += listed.length;
    previous = { hour, jws };
  }
  return { ok: true, digests: stored.length, records };
};
