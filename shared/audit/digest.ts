import { createHash } from 'node:crypto';

/**
 * Tamper evidence for the audit log (CloudTrail's digest files, made per organization and hour).
 * An hour's digest lists every record since the previous digest (the hours the organization
 * recorded nothing in, or a run missed, and its own), in id order, with the SHA-256 of the record's
 * stored text, in pages of at most DIGEST_PAGE_SIZE; its head holds the hashes of those pages, of
 * all the hour's record texts together, and of the previous digest's head, and is signed with the
 * service's signing key (ES256, a JWS). Editing a record changes its hash; deleting one leaves
 * its id in the digest; editing or removing a digest breaks the next one's `previous` or its own
 * signature. Records expire after their organization's retention: each entry keeps its record's
 * expiry, so a record gone after it is no discrepancy, and a digest expires with the last of its
 * records, its successor naming that time (`previousExpiresAt`). Pure: the store reads and writes,
 * `npm run admin -- audit verify` compares.
 */
export const DIGEST_PAGE_SIZE = 1000;
export const HOUR_MILLIS = 3_600_000;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** One record as a digest lists it. */
export interface DigestEntry {
  id: string;
  sha256: string;
  /** Epoch seconds: the record's expiry (its item's TTL); absent in digests written before it. */
  expiresAt?: number;
}

export const digestEntry = (id: string, storedText: string, expiresAt?: number): DigestEntry => ({
  id,
  sha256: sha256(storedText),
  ...(expiresAt !== undefined ? { expiresAt } : {}),
});

/** Epoch seconds when the last of the entries expires; undefined when one never does. */
export const lastExpiry = (entries: readonly DigestEntry[]): number | undefined =>
  entries.every((entry) => entry.expiresAt !== undefined)
    ? Math.max(...entries.map((entry) => entry.expiresAt as number))
    : undefined;

/** What the head of an hour's digest signs. */
export interface DigestHead {
  organizationId: string;
  /** The hour's first millisecond. */
  hour: number;
  /**
   * The first hour it covers: every record from this hour's first millisecond to the end of
   * `hour` is listed, so a record put later into an hour with no digest of its own shows. Absent
   * in digests written before: they cover `hour` alone.
   */
  from?: number;
  records: number;
  /** SHA-256 of each page's entries, in order. */
  pages: string[];
  /** SHA-256 of the previous digest's signed head; null for an organization's first. */
  previous: string | null;
  /** Epoch seconds when the previous digest expires (with its records): gone after it, no gap. */
  previousExpiresAt?: number;
  /**
   * Epoch seconds when this digest expires (with the last of its records): its pages gone before
   * then were removed. Absent in digests written before it, and when a record never expires.
   */
  expiresAt?: number;
}

export const pageHash = (entries: readonly DigestEntry[]): string => sha256(JSON.stringify(entries));

/** The hash the next digest names as `previous`: of the signed head, as stored. */
export const headHash = (signedHead: string): string => sha256(signedHead);

export const hourOf = (time: number): number => Math.floor(time / HOUR_MILLIS) * HOUR_MILLIS;

/**
 * An hour's entries cut into pages, and the head over them, following the digest whose head hash
 * is `chain.previous`. A digest of hours with no record expires at `chain.expiresAtIfEmpty` (the
 * hour's end plus the retention), as a record of its last moment would.
 */
export const hourDigest = (
  organizationId: string,
  hours: { from: number; hour: number },
  entries: readonly DigestEntry[],
  chain: { previous: string | null; previousExpiresAt?: number | undefined; expiresAtIfEmpty: number },
): { head: DigestHead; pages: DigestEntry[][] } => {
  const { from, hour } = hours;
  const { previous, previousExpiresAt } = chain;
  const pages: DigestEntry[][] = [];
  for (let start = 0; start < entries.length; start += DIGEST_PAGE_SIZE)
    pages.push(entries.slice(start, start + DIGEST_PAGE_SIZE));
  const expiresAt = entries.length > 0 ? lastExpiry(entries) : chain.expiresAtIfEmpty;
  return {
    head: {
      organizationId,
      hour,
      from,
      records: entries.length,
      pages: pages.map(pageHash),
      previous,
      ...(previousExpiresAt !== undefined ? { previousExpiresAt } : {}),
      ...(expiresAt !== undefined ? { expiresAt } : {}),
    },
    pages,
  };
};

/** The first difference between what a digest lists and what the table holds, in id order. */
export type Discrepancy =
  | { kind: 'changed'; id: string }
  | { kind: 'missing'; id: string }
  | { kind: 'unlisted'; id: string }
  /** Its text as digested, but no longer indexed as written: hidden from the filters it matches. */
  | { kind: 'reindexed'; id: string };

/**
 * The first difference between `listed` and `found` at `now` (epoch seconds): a listed record gone
 * after its expiry is no difference.
 */
export const firstDiscrepancy = (
  allListed: readonly DigestEntry[],
  found: readonly DigestEntry[],
  now: number,
): Discrepancy | undefined => {
  const present = new Set(found.map((entry) => entry.id));
  const listed = allListed.filter(
    (entry) => entry.expiresAt === undefined || entry.expiresAt > now || present.has(entry.id),
  );
  for (let index = 0; index < Math.max(listed.length, found.length); index++) {
    const expected = listed[index];
    const actual = found[index];
    if (expected && actual && expected.id === actual.id) {
      if (expected.sha256 !== actual.sha256) return { kind: 'changed', id: expected.id };
      continue;
    }
    // Ids are sorted: the smaller one is the one the other side lacks.
    if (expected && (!actual || expected.id < actual.id)) return { kind: 'missing', id: expected.id };
    if (actual) return { kind: 'unlisted', id: actual.id };
  }
  return undefined;
};
