import { randomUUID } from 'node:crypto';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditEvent } from '../audit/record.js';
import type { AuthorizationRequest } from '../domain/authorization.js';
import { PreconditionFailed } from '../domain/errors.js';
import { auditWrites } from './audit-records.js';
import { db, tableName } from './dynamo.js';
import { ttlSeconds } from './entity.js';
import type { ItemKey } from './keys.js';
import { digestOf, newOpaqueValue } from './opaque-values.js';
import {
  AuthorizationCodeEntity,
  type AuthorizationCodeRecord,
  AuthorizationRequestEntity,
  type AuthorizationRequestRecord,
  RefreshFamilyEntity,
  RefreshTokenEntity,
  type RefreshTokenRecord,
  SessionEntity,
  type SessionRecord,
  SignInAttemptsEntity,
  SignInFailuresEntity,
} from './sign-in-entities.js';
import {
  check,
  conditionItem,
  create,
  isConditionFailure,
  put,
  remove,
  type SeenItem,
  transact,
  unchangedSinceRead,
  update,
  writeOne,
} from './writes.js';

/**
 * Authorization requests, codes, browser sessions and refresh tokens. Values handed to browsers
 * and applications are 256 random bits; the table keeps only their SHA-256 digests. Every
 * single-use step is one conditional write, so two concurrent uses cannot both succeed.
 */

/** An item that TTL or a concurrent sign-out removed meanwhile: nothing left to change. */
class Gone extends Error {}
const gone = () => new Gone();
const ignoreGone = (error: unknown) => {
  if (!(error instanceof Gone)) throw error;
};

/** A pending request lives as long as a person may take to sign in (and enrol, and consent). */
const REQUEST_LIFETIME_MILLIS = 30 * 60 * 1000;

/** Who a pending request has identified so far, and an enrolment under way. */
export type SignInProgress = Pick<
  AuthorizationRequestRecord,
  | 'userId'
  | 'authTime'
  | 'amr'
  | 'provider'
  | 'providerBoundAt'
  | 'sessionEndsAt'
  | 'sessionDigest'
  | 'totpEnrolment'
  | 'passkeyCapable'
  | 'passkeyOffered'
>;

export const saveAuthorizationRequest = async (
  request: AuthorizationRequest,
  browserBinding: string,
  progress: SignInProgress = {},
  now = Date.now(),
): Promise<AuthorizationRequestRecord> => {
  const record: AuthorizationRequestRecord = {
    ...request,
    ...progress,
    id: newOpaqueValue(),
    browserDigest: digestOf(browserBinding),
    createdAt: now,
    expiresAt: ttlSeconds(now + REQUEST_LIFETIME_MILLIS),
  };
  await writeOne(put(AuthorizationRequestEntity.item(record, record)));
  return record;
};

/** The pending request, if it is still pending, unexpired, and was made by this browser. */
export const pendingAuthorizationRequest = async (
  id: string,
  browserBinding: string | undefined,
  now = Date.now(),
): Promise<AuthorizationRequestRecord | undefined> => {
  if (!browserBinding) return undefined;
  const record = await AuthorizationRequestEntity.get({ id });
  const current =
    record && record.expiresAt * 1000 > now && record.browserDigest === digestOf(browserBinding);
  return current ? record : undefined;
};

/** Whom a step found a pending request naming when it read it (nobody yet: both undefined). */
export type ProgressRead = Pick<AuthorizationRequestRecord, 'userId' | 'authTime'>;

/**
 * Records the person's progress on a pending request, if it still names whom the step read it
 * naming (`read`): false when it is gone meanwhile, or when another sign-in's progress was
 * written on it since, whose steps this one's must never complete (a second factor proved by
 * someone else).
 */
export const recordSignInProgress = async (
  id: string,
  progress: SignInProgress,
  read: ProgressRead,
): Promise<boolean> => {
  const set = Object.entries(progress).filter(([, value]) => value !== undefined);
  const removed = Object.keys(progress).filter(
    (name) => progress[name as keyof SignInProgress] === undefined,
  );
  // The request still names whom the step read it naming: no one else's progress came between.
  const asRead = unchangedSinceRead({ userId: read.userId, authTime: read.authTime });
  try {
    await writeOne(
      update(
        AuthorizationRequestEntity.key({ id }),
        {
          update: [
            `SET ${set.map(([name]) => `#${name} = :${name}`).join(', ')}`,
            ...(removed.length ? [`REMOVE ${removed.map((name) => `#${name}`).join(', ')}`] : []),
          ].join(' '),
          condition: `attribute_exists(pk) AND ${asRead.condition}`,
          names: Object.fromEntries(Object.keys(progress).map((name) => [`#${name}`, name])),
          values: {
            ...Object.fromEntries(set.map(([name, value]) => [`:${name}`, value])),
            ...asRead.values,
          },
        },
        gone,
      ),
    );
    return true;
  } catch (error) {
    ignoreGone(error);
    return false;
  }
};

/** Ends a pending request once it was answered; false when another answer got there first. */
export const completeAuthorizationRequest = async (id: string): Promise<boolean> => {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: AuthorizationRequestEntity.key({ id }),
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

// Failed sign-ins -----------------------------------------------------------------------------

/** A failure count is forgotten a day after the latest failure. */
const FAILURES_LIFETIME_SECONDS = 24 * 3600;

/** Until when (epoch ms) sign-in with this email is locked; 0 when it is not. */
export const signInLockedUntil = async (organizationId: string, email: string): Promise<number> =>
  (await SignInFailuresEntity.get({ organizationId, email }))?.lockedUntil ?? 0;

/**
 * A failure count past its `expiresAt` is forgotten now, not when DynamoDB's TTL gets to it (AWS
 * documents within a few days). Expression values of the writes that tell the two apart.
 */
const expiry = (now: number) => ({
  ':nowSeconds': Math.floor(now / 1000),
  ':expiresAt': ttlSeconds(now) + FAILURES_LIFETIME_SECONDS,
});
const FRESH = '(attribute_not_exists(expiresAt) OR expiresAt > :nowSeconds)';
const EXPIRED = 'expiresAt <= :nowSeconds';

/** A write refused because the failure count it met had expired (or had not, for its reset). */
class Expired extends Error {}

/** How long a credential check holds its email: the check and the writes after it, with room. */
const CHECK_LEASE_MILLIS = 10_000;

export type CredentialCheck =
  /** This request may check the credential; `failures` is the count it started from. */
  | { outcome: 'reserved'; failures: number }
  /** Locked, or another check of the same email under way: answered without checking. */
  | { outcome: 'refused'; locked: boolean };

/**
 * Reserves the check of one credential of an email (a password, a code) in one conditional write:
 * refused while the email is locked or while another check of it is under way. Reading the lock
 * and counting the failure afterwards would let parallel guesses all be checked between the two
 * (OWASP Authentication Cheat Sheet: the lockout must hold). The check ends with
 * `recordSignInFailure` (given the reservation), `endCredentialCheck` or `clearSignInFailures`,
 * or by itself after CHECK_LEASE_MILLIS.
 */
export const reserveCredentialCheck = async (
  organizationId: string,
  email: string,
  now = Date.now(),
): Promise<CredentialCheck> => {
  const key = SignInFailuresEntity.key({ organizationId, email });
  const free =
    '(attribute_not_exists(lockedUntil) OR lockedUntil <= :now) AND (attribute_not_exists(checkingUntil) OR checkingUntil <= :now)';
  const values = { ':lease': now + CHECK_LEASE_MILLIS, ':now': now, ':zero': 0, ...expiry(now) };
  const reserve = (expired: boolean) =>
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        // An expired count starts again from nothing, its lock cleared (a second write, on that
        // rare path only: an update expression cannot branch).
        UpdateExpression: expired
          ? 'SET checkingUntil = :lease, failures = :zero, lockedUntil = :zero, expiresAt = :expiresAt'
          : 'SET checkingUntil = :lease, failures = if_not_exists(failures, :zero), lockedUntil = if_not_exists(lockedUntil, :zero), expiresAt = if_not_exists(expiresAt, :expiresAt)',
        ConditionExpression: `${free} AND ${expired ? EXPIRED : FRESH}`,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  // A fresh item stays fresh for a day, so the second try of each kind always decides.
  for (const expired of [false, true, false]) {
    try {
      const { Attributes } = await reserve(expired);
      return { outcome: 'reserved', failures: Number(Attributes?.failures ?? 0) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const seen = conditionItem(error.Item);
      const locked = Number(seen?.lockedUntil ?? 0) > now;
      // A check under way holds its email even past the count's expiry.
      if (locked || Number(seen?.checkingUntil ?? 0) > now) return { outcome: 'refused', locked };
    }
  }
  throw new Error('The failure count kept changing between expired and not');
};

/** Ends a check; an item cleared meanwhile (a sign-in by passkey) is not written again. */
const endCheck = async (key: ReturnType<typeof SignInFailuresEntity.key>): Promise<void> => {
  await writeOne(
    update(key, { update: 'REMOVE checkingUntil', condition: 'attribute_exists(pk)' }, gone),
  ).catch(ignoreGone);
};

/** Ends a reserved check that succeeded without clearing the count (a password before its code). */
export const endCredentialCheck = (organizationId: string, email: string): Promise<void> =>
  endCheck(SignInFailuresEntity.key({ organizationId, email }));

/**
 * One more failure (an atomic ADD), the item as it is now: its count, and the lock it had. A count
 * past its expiry is not added to: it is started again at 1 and its lock cleared, by a second
 * write only on that rare path (an update expression cannot branch).
 */
const countFailure = async (key: ReturnType<typeof SignInFailuresEntity.key>, now: number) => {
  const values = { ':one': 1, ':zero': 0, ...expiry(now) };
  const add = () =>
    writeOne(
      update(
        key,
        {
          update:
            'ADD failures :one SET expiresAt = :expiresAt, lockedUntil = if_not_exists(lockedUntil, :zero)',
          condition: FRESH,
          values,
        },
        () => new Expired(),
      ),
      { returnNew: true },
    );
  try {
    return await add();
  } catch (error) {
    if (!(error instanceof Expired)) throw error;
  }
  try {
    return await writeOne(
      update(
        key,
        {
          update: 'SET failures = :one, lockedUntil = :zero, expiresAt = :expiresAt',
          condition: EXPIRED,
          values,
        },
        () => new Expired(),
      ),
      { returnNew: true },
    );
  } catch (error) {
    if (!(error instanceof Expired)) throw error;
    // Started again (or removed) by another request meanwhile: fresh now, and for a day.
    return add();
  }
};

/**
 * The failure of a reserved check: counted while the reservation still holds (refusals counted
 * meanwhile are in the count the write returns), then the lock it calls for, never shortening a
 * longer one, is set in the write that ends the reservation; so no check starts in between.
 */
const recordReservedFailure = async (
  key: ReturnType<typeof SignInFailuresEntity.key>,
  lockMillis: (failures: number) => number,
  now: number,
): Promise<{ failures: number; locked: boolean }> => {
  const counted = await countFailure(key, now);
  const failures = Number(counted?.failures ?? 1);
  const wait = lockMillis(failures);
  if (wait <= 0) {
    await endCheck(key);
    return { failures, locked: false };
  }
  try {
    await writeOne(
      update(
        key,
        {
          update: 'SET lockedUntil = :until REMOVE checkingUntil',
          condition: 'lockedUntil < :until',
          values: { ':until': now + wait },
        },
        gone,
      ),
    );
    return { failures, locked: true };
  } catch (error) {
    // A longer lock was set meanwhile (by a refusal counted without the reservation): it stays.
    ignoreGone(error);
    await endCheck(key);
    return { failures, locked: false };
  }
};

/**
 * Counts a failure (one atomic ADD) and locks the email for `lockMillis(count)`; answers the
 * count, and whether this failure locked an email that was not locked. Given the reservation of
 * the check that failed, it is one write that also ends the check, so no other check starts
 * before the lock is set.
 */
export const recordSignInFailure = async (
  organizationId: string,
  email: string,
  lockMillis: (failures: number) => number,
  now = Date.now(),
  reservation?: Extract<CredentialCheck, { outcome: 'reserved' }>,
): Promise<{ failures: number; locked: boolean }> => {
  const key = SignInFailuresEntity.key({ organizationId, email });
  if (reservation) return recordReservedFailure(key, lockMillis, now);
  const counted = await countFailure(key, now);
  const failures = Number(counted?.failures ?? 1);
  // The ADD kept the lock there was: the one this failure met.
  const lockedBefore = Number(counted?.lockedUntil ?? 0) > now;
  const wait = lockMillis(failures);
  if (wait > 0) {
    await writeOne(update(key, { update: 'SET lockedUntil = :until', values: { ':until': now + wait } }));
  }
  return { failures, locked: wait > 0 && !lockedBefore };
};

export const clearSignInFailures = async (organizationId: string, email: string): Promise<void> => {
  await writeOne(remove(SignInFailuresEntity.key({ organizationId, email })));
};

// Sessions ------------------------------------------------------------------------------------

/**
 * A new browser session for a person who authenticated at `authTime` (epoch ms), with the record
 * of their sign-in (`audit`) in the same transaction when given. `lifetimes.endsBy` (epoch ms)
 * caps its absolute end: a session made from an earlier one never outlives it.
 */
export const createSession = async (
  subject: Pick<
    SessionRecord,
    'organizationId' | 'userId' | 'amr' | 'authTime' | 'provider' | 'providerBoundAt'
  >,
  lifetimes: { idleSeconds: number; absoluteSeconds: number; endsBy?: number | undefined },
  now = Date.now(),
  audit?: AuditEvent,
): Promise<{ cookieValue: string; session: SessionRecord }> => {
  const cookieValue = newOpaqueValue();
  const endsAt = Math.min(
    now + lifetimes.absoluteSeconds * 1000,
    lifetimes.endsBy ?? Number.POSITIVE_INFINITY,
  );
  const session: SessionRecord = {
    ...subject,
    endsAt,
    expiresAt: ttlSeconds(Math.min(now + lifetimes.idleSeconds * 1000, endsAt)),
  };
  const write = put(SessionEntity.item({ digest: digestOf(cookieValue) }, session));
  if (audit) await transact([write, ...(await auditWrites(audit, now))]);
  else await writeOne(write);
  return { cookieValue, session };
};

/** Whether the session of a key's digest (one a pending request names) is still live. */
export const sessionLive = async (digest: string, now = Date.now()): Promise<boolean> => {
  const session = await SessionEntity.get({ digest });
  return session !== undefined && sessionIsLive(session, now);
};

/** The live session of a cookie, as it is; undefined when there is none. */
export const liveSession = async (
  cookieValue: string | undefined,
  now = Date.now(),
): Promise<SessionRecord | undefined> => {
  if (!cookieValue) return undefined;
  const session = await SessionEntity.get({ digest: digestOf(cookieValue) });
  return session && sessionIsLive(session, now) ? session : undefined;
};

/**
 * A live session the person uses (liveSession read it): its idle lifetime renewed, never past its
 * absolute end. One ended meanwhile (a sign-out) is not brought back.
 */
export const renewSession = async (
  cookieValue: string,
  session: SessionRecord,
  idleSeconds: number,
  now = Date.now(),
): Promise<SessionRecord> => {
  const digest = digestOf(cookieValue);
  const expiresAt = Math.min(ttlSeconds(now + idleSeconds * 1000), ttlSeconds(session.endsAt));
  await writeOne(
    update(
      SessionEntity.key({ digest }),
      {
        update: 'SET expiresAt = :expiresAt',
        condition: 'attribute_exists(pk)',
        values: { ':expiresAt': expiresAt },
      },
      gone,
    ),
  ).catch(ignoreGone);
  return { ...session, expiresAt };
};

/** Within both its lifetimes (TTL removes an expired item only later). */
export const sessionIsLive = (session: SessionRecord, now = Date.now()): boolean =>
  session.endsAt > now && session.expiresAt * 1000 > now;

/**
 * Deletes a session item, answering what it held; with `unless`, only where that condition holds,
 * else a condition failure carrying the item it met.
 */
const deleteSession = (key: ItemKey, unless?: { condition: string; values?: Record<string, unknown> }) =>
  db().send(
    new DeleteCommand({
      TableName: tableName(),
      Key: key,
      ReturnValues: 'ALL_OLD',
      ...(unless
        ? {
            ConditionExpression: unless.condition,
            ...(unless.values ? { ExpressionAttributeValues: unless.values } : {}),
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }
        : {}),
    }),
  );

/**
 * Ends a browser session, answering what it was. A person signing out of a live session
 * (`revokeFamilies`) also ends the refresh tokens it began without offline_access. A session
 * that lists none is one delete. Otherwise the refused delete shows its families: they are
 * revoked first, then the session is deleted on condition that it lists no family added
 * meanwhile, so a failure leaves the session to sign out of again, never a family nobody can
 * reach. A session past its lifetimes is deleted alone: its tokens keep their own.
 */
export const endSession = async (
  cookieValue: string | undefined,
  { revokeFamilies = false }: { revokeFamilies?: boolean } = {},
  now = Date.now(),
): Promise<SessionRecord | undefined> => {
  if (!cookieValue) return undefined;
  const key = SessionEntity.key({ digest: digestOf(cookieValue) });
  let unless: { condition: string; values?: Record<string, unknown> } | undefined = revokeFamilies
    ? { condition: 'attribute_not_exists(families)' }
    : undefined;
  for (let attempt = 0; unless && attempt < 3; attempt++) {
    try {
      const { Attributes } = await deleteSession(key, unless);
      return Attributes ? SessionEntity.decode(Attributes) : undefined;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const seen = SessionEntity.decode(conditionItem(error.Item) ?? {});
      if (!sessionIsLive(seen, now)) break;
      await revokeSessionFamilies(seen, now);
      // Gone meanwhile (another sign-out) is as good: what it listed is revoked.
      unless = {
        condition: 'attribute_not_exists(pk) OR families = :families',
        values: { ':families': seen.families },
      };
    }
  }
  const { Attributes } = await deleteSession(key);
  const ended = Attributes ? SessionEntity.decode(Attributes) : undefined;
  // Only when families kept being added while it was deleted: what the delete answered.
  if (revokeFamilies && ended && sessionIsLive(ended, now)) await revokeSessionFamilies(ended, now);
  return ended;
};

/** Revokes every refresh token family a session listed. */
export const revokeSessionFamilies = async (session: SessionRecord, now = Date.now()): Promise<void> => {
  await Promise.all([...(session.families ?? [])].map((familyId) => revokeRefreshFamily(familyId, now)));
};

/**
 * The families of a session that the same person's new sign-in replaced go on the new session,
 * so signing out of it ends them too.
 */
export const handOverFamilies = async (from: SessionRecord, toCookie: string): Promise<void> => {
  if (!from.families?.size) return;
  await writeOne(
    update(
      SessionEntity.key({ digest: digestOf(toCookie) }),
      {
        update: 'ADD families :families',
        condition: 'attribute_exists(pk)',
        values: { ':families': from.families },
      },
      gone,
    ),
  ).catch(ignoreGone);
};

/** The key of a browser session's item (the digest of its cookie), which codes carry. */
export const sessionDigestOf = (cookieValue: string): string => digestOf(cookieValue);

// Authorization codes -------------------------------------------------------------------------

export const issueAuthorizationCode = async (
  grant: Omit<AuthorizationCodeRecord, 'validUntil' | 'expiresAt' | 'redeemedFamily'>,
  lifetimeSeconds: number,
  now = Date.now(),
): Promise<string> => {
  const code = newOpaqueValue();
  const record: AuthorizationCodeRecord = {
    ...grant,
    validUntil: now + lifetimeSeconds * 1000,
    expiresAt: ttlSeconds(now + lifetimeSeconds * 1000),
  };
  await writeOne(put(AuthorizationCodeEntity.item({ digest: digestOf(code) }, record)));
  return code;
};

export type Redemption =
  | { outcome: 'redeemed'; grant: AuthorizationCodeRecord }
  /** The code was redeemed before: what it issued is revoked (RFC 6749 4.1.2). */
  | { outcome: 'replayed'; familyId: string }
  | { outcome: 'invalid' };

/**
 * Redeems a code in one conditional write that also checks every binding (client, redirect URI,
 * PKCE challenge, lifetime): a request that does not prove them all leaves the code untouched,
 * and only one request can ever redeem it.
 */
export const redeemAuthorizationCode = async (
  code: string,
  binding: { clientId: string; redirectUri: string; codeChallenge: string },
  familyId: string,
  now = Date.now(),
): Promise<Redemption> => {
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: AuthorizationCodeEntity.key({ digest: digestOf(code) }),
        UpdateExpression: 'SET redeemedFamily = :family',
        ConditionExpression:
          'attribute_exists(pk) AND attribute_not_exists(redeemedFamily) AND clientId = :client AND ' +
          'redirectUri = :redirect AND codeChallenge = :challenge AND validUntil > :now',
        ExpressionAttributeValues: {
          ':family': familyId,
          ':client': binding.clientId,
          ':redirect': binding.redirectUri,
          ':challenge': binding.codeChallenge,
          ':now': now,
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { outcome: 'redeemed', grant: AuthorizationCodeEntity.decode(Attributes ?? {}) };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const item = conditionItem(error.Item);
    const old = item ? AuthorizationCodeEntity.decode(item) : undefined;
    // Only the client the code was issued to can revoke through a replay.
    if (old?.redeemedFamily && old.clientId === binding.clientId) {
      return { outcome: 'replayed', familyId: old.redeemedFamily };
    }
    return { outcome: 'invalid' };
  }
};

// Refresh tokens ------------------------------------------------------------------------------

type RefreshGrant = Pick<
  RefreshTokenRecord,
  'clientId' | 'organizationId' | 'userId' | 'scope' | 'authTime' | 'amr' | 'provider' | 'providerBoundAt'
>;

export interface RefreshLifetimes {
  slidingSeconds: number;
  absoluteSeconds: number;
}

export const newFamilyId = (): string => randomUUID();

const refreshItem = (token: string, record: RefreshTokenRecord) =>
  RefreshTokenEntity.item({ digest: digestOf(token) }, record);

/**
 * Refresh token families a session may list: each code exchange without offline_access adds one
 * (a renewal every five minutes for the session's 12 hours is 144), so the item stays far below
 * DynamoDB's 400 KB whatever an application does.
 */
export const MAX_SESSION_FAMILIES = 1000;

/** Why a session could not take a family: gone (signed out, replaced, expired) or full. */
const sessionRefuses = (seen: SeenItem) =>
  new PreconditionFailed(
    seen
      ? 'This browser session has begun too many sign-ins: sign in again'
      : 'The browser session of this code has ended (signed out, replaced by another sign-in, or expired)',
  );

/**
 * The first refresh token of a sign-in, with its family (one transaction). A family bound to the
 * browser session its code came from (`sessionDigest`: no offline_access) is listed on the session
 * in the same transaction, so signing out ends it; a session already ended, or holding
 * {@link MAX_SESSION_FAMILIES}, refuses it ({@link PreconditionFailed}). Undefined when the
 * family was revoked before it began.
 */
export const startRefreshFamily = async (
  familyId: string,
  grant: RefreshGrant,
  lifetimes: RefreshLifetimes,
  now = Date.now(),
  sessionDigest?: string,
): Promise<string | undefined> => {
  const token = newOpaqueValue();
  const endsAt = now + lifetimes.absoluteSeconds * 1000;
  const family = {
    id: familyId,
    clientId: grant.clientId,
    organizationId: grant.organizationId,
    userId: grant.userId,
    endsAt,
    expiresAt: ttlSeconds(endsAt),
  };
  try {
    await transact([
      // Not over a family revoked before it began (revokeRefreshFamily).
      create(RefreshFamilyEntity.item(family, family), gone),
      put(
        refreshItem(token, {
          ...grant,
          familyId,
          familyEndsAt: endsAt,
          expiresAt: ttlSeconds(Math.min(endsAt, now + lifetimes.slidingSeconds * 1000)),
        }),
      ),
      ...(sessionDigest
        ? [
            update(
              SessionEntity.key({ digest: sessionDigest }),
              {
                update: 'ADD families :family',
                condition:
                  'attribute_exists(pk) AND (attribute_not_exists(families) OR size(families) < :max)',
                values: { ':family': new Set([familyId]), ':max': MAX_SESSION_FAMILIES },
                seeItemOnFailure: true,
              },
              sessionRefuses,
            ),
          ]
        : []),
    ]);
  } catch (error) {
    ignoreGone(error);
    return undefined;
  }
  return token;
};

export type Rotation =
  | { outcome: 'rotated'; token: string; grant: RefreshTokenRecord }
  /** A rotated token came back: the whole family is revoked (OAuth 2.0 Security BCP 4.14.2). */
  | { outcome: 'reused'; familyId: string }
  /** A live token, asked for a scope its sign-in was not granted: left as it was, still usable. */
  | { outcome: 'widened' }
  | { outcome: 'invalid' };

/** A sign-in's refresh tokens are honoured while it is neither revoked nor past its absolute end. */
const familyLive = <F extends { revoked?: boolean; endsAt: number }>(
  family: F | undefined,
  now: number,
): family is F => family !== undefined && !family.revoked && family.endsAt > now;

/** Why the rotation's transaction wrote nothing: the outcome to answer. */
class RotationRefused extends Error {
  constructor(readonly rotation: Rotation) {
    super(rotation.outcome);
  }
}

/**
 * Exchanges a refresh token for its successor in two round trips: a strongly consistent read of
 * the token decides every refusal, then one transaction marks it rotated (on condition that it
 * still is not, so a token is exchanged once), checks its family is neither revoked nor past its
 * absolute end, and writes the successor with a renewed sliding lifetime. Nothing is written
 * unless all three hold: a failed refresh leaves the token usable for the client's retry, and a
 * revocation committed meanwhile lets no successor out.
 */
export const rotateRefreshToken = async (
  token: string,
  clientId: string,
  lifetimes: RefreshLifetimes,
  now = Date.now(),
  requestedScopes: readonly string[] = [],
): Promise<Rotation> => {
  const digest = digestOf(token);
  const record = await RefreshTokenEntity.get({ digest });
  // Another client's token, even rotated, tells it nothing (not even that it exists).
  if (!record || record.clientId !== clientId) return { outcome: 'invalid' };
  if (record.rotated) return { outcome: 'reused', familyId: record.familyId };
  if (record.expiresAt <= Math.floor(now / 1000)) return { outcome: 'invalid' };
  // A refresh that asks for more than its sign-in was granted is refused before anything is
  // written (RFC 6749 section 6: the token stays usable). A token's scope never changes, so the
  // read decides it.
  const granted = new Set(record.scope.split(' '));
  if (requestedScopes.some((scope) => !granted.has(scope))) return { outcome: 'widened' };
  // What the successor carries: the predecessor as it is but its mark of rotation and expiry.
  const { rotated: _rotated, expiresAt: _expires, ...carried } = record;
  const { familyId } = record;
  // A token written before tokens carried their family's end learns it from the family.
  let familyEndsAt = record.familyEndsAt;
  if (familyEndsAt === undefined) {
    const family = await RefreshFamilyEntity.get({ id: familyId });
    if (!familyLive(family, now)) return { outcome: 'invalid' };
    familyEndsAt = family.endsAt;
  }
  const successor = newOpaqueValue();
  try {
    await transact([
      update(
        RefreshTokenEntity.key({ digest }),
        {
          update: 'SET rotated = :true',
          condition:
            'attribute_exists(pk) AND attribute_not_exists(rotated) AND clientId = :client AND expiresAt > :now',
          values: { ':true': true, ':client': clientId, ':now': Math.floor(now / 1000) },
          seeItemOnFailure: true,
        },
        // Rotated since the read: a concurrent refresh with the same token won, so this one is
        // the reuse (a conflict with it is retried by `transact` until it reads so).
        (seen) =>
          new RotationRefused(
            seen?.rotated === true && seen.clientId === clientId
              ? { outcome: 'reused', familyId }
              : { outcome: 'invalid' },
          ),
      ),
      // Revoked (sign-out, RFC 7009, a reuse) since the read, or not begun: no successor.
      check(
        RefreshFamilyEntity.key({ id: familyId }),
        {
          condition:
            'attribute_exists(pk) AND (attribute_not_exists(revoked) OR revoked = :false) AND endsAt > :nowMillis',
          values: { ':false': false, ':nowMillis': now },
        },
        () => new RotationRefused({ outcome: 'invalid' }),
      ),
      put(
        // A field added to grants is carried without being named here.
        refreshItem(successor, {
          ...carried,
          familyEndsAt,
          expiresAt: ttlSeconds(Math.min(familyEndsAt, now + lifetimes.slidingSeconds * 1000)),
        }),
      ),
    ]);
  } catch (error) {
    if (error instanceof RotationRefused) return error.rotation;
    throw error;
  }
  return { outcome: 'rotated', token: successor, grant: { ...record, rotated: true } };
};

/** How long the mark of a family revoked before it began is kept: far longer than a code lives. */
const EARLY_REVOCATION_SECONDS = 3600;

/**
 * Revokes every refresh token of a family (reuse, code replay, RFC 7009 revocation). A family not
 * begun yet (a code replayed while its first exchange is still under way) is marked revoked, so
 * it never begins: `startRefreshFamily` refuses to write over the mark.
 */
export const revokeRefreshFamily = async (familyId: string, now = Date.now()): Promise<void> => {
  await writeOne(
    update(RefreshFamilyEntity.key({ id: familyId }), {
      update: 'SET revoked = :true, expiresAt = if_not_exists(expiresAt, :expiresAt)',
      values: { ':true': true, ':expiresAt': ttlSeconds(now) + EARLY_REVOCATION_SECONDS },
    }),
  );
};

/**
 * The family of a refresh token presented for revocation (RFC 7009), with the client it was
 * issued to: only that client may revoke it (section 2.1).
 */
export const refreshFamilyOf = async (
  token: string,
): Promise<{ familyId: string; clientId: string } | undefined> => {
  const record = await RefreshTokenEntity.get({ digest: digestOf(token) });
  return record && { familyId: record.familyId, clientId: record.clientId };
};

/**
 * A refresh token as introspection sees it (RFC 7662): held by `clientId`, neither rotated nor
 * expired, of a sign-in neither revoked nor past its absolute end (what `rotateRefreshToken`
 * writes under, read instead); with `expiresAt`, epoch seconds, the earlier of the two ends.
 */
export const liveRefreshToken = async (
  token: string,
  clientId: string,
  now = Date.now(),
): Promise<RefreshTokenRecord | undefined> => {
  const record = await RefreshTokenEntity.get({ digest: digestOf(token) });
  if (!record || record.clientId !== clientId || record.rotated || record.expiresAt <= Math.floor(now / 1000))
    return undefined;
  const family = await RefreshFamilyEntity.get({ id: record.familyId });
  if (!familyLive(family, now)) return undefined;
  return { ...record, expiresAt: Math.min(record.expiresAt, Math.floor(family.endsAt / 1000)) };
};

// Attempts per client address -----------------------------------------------------------------

/** Counts a sign-in attempt from an address (one atomic ADD); answers this minute's count. */
export const countSignInAttempt = async (address: string, now = Date.now()): Promise<number> => {
  const epochMinute = Math.floor(now / 60_000);
  const counted = await writeOne(
    update(SignInAttemptsEntity.key({ address, epochMinute }), {
      update: 'ADD attempts :one SET expiresAt = :expiresAt',
      values: { ':one': 1, ':expiresAt': (epochMinute + 2) * 60 },
    }),
    { returnNew: true },
  );
  return Number(counted?.attempts ?? 1);
};
