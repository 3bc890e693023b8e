import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tooManyAttempts } from '../../shared/auth/sign-in-requests.js';
import { reloadConfig } from '../../shared/config.js';
import type { AuthorizationRequest } from '../../shared/domain/authorization.js';
import { db, tableName } from '../../shared/store/dynamo.js';
import { saveFederationState, takeFederationState } from '../../shared/store/federation-state.js';
import { type ItemKey, keys } from '../../shared/store/keys.js';
import { digestOf } from '../../shared/store/opaque-values.js';
import { SessionEntity } from '../../shared/store/sign-in-entities.js';
import {
  clearSignInFailures,
  completeAuthorizationRequest,
  countSignInAttempt,
  createSession,
  endCredentialCheck,
  endSession,
  issueAuthorizationCode,
  liveSession,
  MAX_SESSION_FAMILIES,
  newFamilyId,
  pendingAuthorizationRequest,
  recordSignInFailure,
  recordSignInProgress,
  redeemAuthorizationCode,
  refreshFamilyOf,
  renewSession,
  reserveCredentialCheck,
  revokeRefreshFamily,
  rotateRefreshToken,
  saveAuthorizationRequest,
  signInLockedUntil,
  startRefreshFamily,
} from '../../shared/store/sign-in-state.js';
import { fileTable, useDatabase } from '../support/database.js';
import { beforeCommand } from '../support/interleave.js';
import { getItem } from '../support/records.js';

/**
 * The sign-in state in the table (shared/store/sign-in-state.ts, federation-state.ts): pending
 * requests bound to a browser, sessions and their two lifetimes, single-use codes and rotating
 * refresh tokens, failure and attempt counts, the state of a federated sign-in. Clocks are the
 * `now` each function takes; every refusal starts from the same call done right.
 */

useDatabase();

afterEach(() => {
  vi.restoreAllMocks();
  process.env.IDP_TABLE_NAME = fileTable();
  reloadConfig();
});

/** The store pointed at a table that does not exist: every call fails, and not as a failed condition. */
const tableMissing = () => {
  process.env.IDP_TABLE_NAME = 'no-such-table';
  reloadConfig();
};

const NOW = Date.UTC(2031, 0, 1, 12);
const MINUTE = 60_000;

const request: AuthorizationRequest = {
  clientId: 'app',
  organizationId: 'org',
  redirectUri: 'https://app.example/cb',
  scope: 'openid',
  state: 's',
  codeChallenge: 'challenge',
};

describe('a pending authorization request', () => {
  it('is pending for 30 minutes, for the browser that made it only', async () => {
    const saved = await saveAuthorizationRequest(request, 'binding', {}, NOW);
    expect(saved).toMatchObject({ ...request, createdAt: NOW, expiresAt: NOW / 1000 + 1800 });
    expect(saved.browserDigest).toBe(digestOf('binding'));
    expect(await pendingAuthorizationRequest(saved.id, 'binding', NOW + 30 * MINUTE - 1000)).toEqual(saved);
    expect(await pendingAuthorizationRequest(saved.id, 'binding', NOW + 30 * MINUTE)).toBeUndefined();
    expect(await pendingAuthorizationRequest(saved.id, 'other binding', NOW)).toBeUndefined();
    expect(await pendingAuthorizationRequest(saved.id, undefined, NOW)).toBeUndefined();
    expect(await pendingAuthorizationRequest(saved.id, '', NOW)).toBeUndefined();
    expect(await pendingAuthorizationRequest('unknown', 'binding', NOW)).toBeUndefined();
  });

  it('records the progress of the person, setting and removing fields, while it exists', async () => {
    const saved = await saveAuthorizationRequest(request, 'binding', { totpEnrolment: 'SECRET' }, NOW);
    expect(saved.totpEnrolment).toBe('SECRET');
    expect(
      await recordSignInProgress(
        saved.id,
        { userId: 'u', authTime: 5, amr: ['pwd', 'mfa'], totpEnrolment: undefined },
        {},
      ),
    ).toBe(true);
    const item = await getItem(keys.authorizationRequest(saved.id));
    expect(item).toMatchObject({ userId: 'u', authTime: 5, amr: ['pwd', 'mfa'], state: 's' });
    expect(item).not.toHaveProperty('totpEnrolment');
    const asRead = { userId: 'u', authTime: 5 };
    expect(await recordSignInProgress(saved.id, { amr: ['pwd'] }, asRead)).toBe(true);
    expect(await getItem(keys.authorizationRequest(saved.id))).toMatchObject({ userId: 'u', amr: ['pwd'] });
    expect(
      await recordSignInProgress(saved.id, { amr: ['pwd'], userId: undefined, authTime: undefined }, asRead),
    ).toBe(true);
    const removed = await getItem(keys.authorizationRequest(saved.id));
    expect(removed).not.toHaveProperty('userId');
    expect(removed).not.toHaveProperty('authTime');

    expect(await completeAuthorizationRequest(saved.id)).toBe(true);
    expect(await completeAuthorizationRequest(saved.id)).toBe(false);
    expect(await recordSignInProgress(saved.id, { userId: 'u' }, {})).toBe(false);
    expect(await getItem(keys.authorizationRequest(saved.id))).toBeUndefined();
  });

  it("records nothing once another sign-in's progress was written since the step read the request", async () => {
    const saved = await saveAuthorizationRequest(request, 'binding', {}, NOW);
    const first = { userId: 'first', authTime: 5 };
    // Positive control: written as read (nobody yet), then as read again (the first person).
    expect(await recordSignInProgress(saved.id, { ...first, amr: ['pwd'] }, {})).toBe(true);
    expect(await recordSignInProgress(saved.id, { amr: ['pwd', 'otp', 'mfa'] }, first)).toBe(true);
    // A step that read the request naming nobody, or the first person, after another wrote it.
    expect(await recordSignInProgress(saved.id, { userId: 'second', authTime: 6, amr: ['pwd'] }, {})).toBe(
      false,
    );
    const second = { userId: 'second', authTime: 6 };
    expect(await recordSignInProgress(saved.id, { amr: ['pwd', 'otp', 'mfa'] }, second)).toBe(false);
    expect(await recordSignInProgress(saved.id, { amr: ['pwd'] }, { userId: 'first', authTime: 4 })).toBe(
      false,
    );
    expect(await getItem(keys.authorizationRequest(saved.id))).toMatchObject({
      ...first,
      amr: ['pwd', 'otp', 'mfa'],
    });
  });
});

describe('a pending request in a table that cannot be reached', () => {
  it('is an error, not a request answered or gone meanwhile', async () => {
    const saved = await saveAuthorizationRequest(request, 'binding', {}, NOW);
    tableMissing();
    await expect(completeAuthorizationRequest(saved.id)).rejects.toThrow();
    await expect(recordSignInProgress(saved.id, { userId: 'u' }, {})).rejects.toThrow();
  });
});

describe('a browser session', () => {
  const subject = { organizationId: 'org', userId: 'u', amr: ['pwd'], authTime: NOW - 1000 };
  const lifetimes = { idleSeconds: 3600, absoluteSeconds: 12 * 3600 };
  /** What a sign-in that uses the session does: read it live, then renew its idle hour. */
  const usedAt = async (cookieValue: string, now: number) => {
    const session = await liveSession(cookieValue, now);
    return session && renewSession(cookieValue, session, 3600, now);
  };

  it('lives an hour unused, and at most 12 hours however used', async () => {
    const { cookieValue, session } = await createSession(subject, lifetimes, NOW);
    expect(cookieValue).toMatch(/^[\w-]{43}$/);
    expect(session).toEqual({ ...subject, endsAt: NOW + 12 * 3600_000, expiresAt: NOW / 1000 + 3600 });
    expect(await getItem(keys.session(digestOf(cookieValue)))).toMatchObject(session);
    expect(await liveSession(cookieValue, NOW + 3600_000 - 1)).toEqual(session);
    expect(await liveSession(cookieValue, NOW + 3600_000)).toBeUndefined();
    expect(await liveSession(undefined, NOW)).toBeUndefined();
    expect(await liveSession('unknown', NOW)).toBeUndefined();

    // Each use renews the idle hour, never past the absolute end.
    for (let use = 1; use <= 13; use++) {
      const now = NOW + use * 50 * MINUTE;
      expect((await usedAt(cookieValue, now))?.expiresAt).toBe((now + 3600_000) / 1000);
    }
    expect((await getItem(keys.session(digestOf(cookieValue))))?.expiresAt).toBe(
      (NOW + 13 * 50 * MINUTE + 3600_000) / 1000,
    );
    const late = await usedAt(cookieValue, NOW + 11.5 * 3600_000);
    expect(late?.expiresAt).toBe((NOW + 12 * 3600_000) / 1000);
    expect(await liveSession(cookieValue, NOW + 12 * 3600_000 - 1)).toBeDefined();
    expect(await liveSession(cookieValue, NOW + 12 * 3600_000)).toBeUndefined();
    expect(await usedAt(cookieValue, NOW + 12 * 3600_000)).toBeUndefined();
  });

  it('ends at its absolute end even while its idle hour lasts', async () => {
    const { cookieValue } = await createSession(subject, { idleSeconds: 7200, absoluteSeconds: 3600 }, NOW);
    expect(await liveSession(cookieValue, NOW + 3600_000 - 1)).toBeDefined();
    expect(await liveSession(cookieValue, NOW + 3600_000)).toBeUndefined();
  });

  it('ended while it was being used is not brought back', async () => {
    const { cookieValue, session } = await createSession(subject, lifetimes, NOW);
    await endSession(cookieValue);
    // Read before the sign-out, renewed after it.
    vi.spyOn(SessionEntity, 'get').mockResolvedValueOnce(session);
    await usedAt(cookieValue, NOW);
    expect(await getItem(keys.session(digestOf(cookieValue)))).toBeUndefined();
  });

  it('ends once, answering what it was', async () => {
    const { cookieValue, session } = await createSession(subject, lifetimes, NOW);
    expect(await endSession(cookieValue)).toEqual(session);
    expect(await endSession(cookieValue)).toBeUndefined();
    expect(await endSession(undefined)).toBeUndefined();
    expect(await liveSession(cookieValue, NOW)).toBeUndefined();
    // Using an ended session neither renews nor recreates it.
    expect(await usedAt(cookieValue, NOW)).toBeUndefined();
    expect(await getItem(keys.session(digestOf(cookieValue)))).toBeUndefined();
  });
});

describe('an authorization code', () => {
  const grant = {
    clientId: 'app',
    organizationId: 'org',
    userId: 'u',
    redirectUri: 'https://app.example/cb',
    codeChallenge: 'challenge',
    scope: 'openid',
    nonce: 'n',
    authTime: NOW - 1000,
    amr: ['pwd'],
  };
  const binding = { clientId: 'app', redirectUri: 'https://app.example/cb', codeChallenge: 'challenge' };

  it('is redeemed once, with every binding, within its lifetime', async () => {
    const code = await issueAuthorizationCode(grant, 60, NOW);
    expect(await getItem(keys.authorizationCode(digestOf(code)))).toMatchObject({
      validUntil: NOW + 60_000,
      expiresAt: NOW / 1000 + 60,
    });
    for (const wrong of [
      { clientId: 'other' },
      { redirectUri: 'https://app.example/other' },
      { codeChallenge: 'x' },
    ]) {
      expect(await redeemAuthorizationCode(code, { ...binding, ...wrong }, 'f0', NOW)).toEqual({
        outcome: 'invalid',
      });
    }
    expect(await redeemAuthorizationCode(code, binding, 'f0', NOW + 60_000)).toEqual({ outcome: 'invalid' });
    const redeemed = await redeemAuthorizationCode(code, binding, 'f1', NOW + 59_999);
    expect(redeemed).toEqual({
      outcome: 'redeemed',
      grant: { ...grant, validUntil: NOW + 60_000, expiresAt: NOW / 1000 + 60, redeemedFamily: 'f1' },
    });
    // A replay by its client names what the first redemption started; anyone else learns nothing.
    expect(await redeemAuthorizationCode(code, binding, 'f2', NOW)).toEqual({
      outcome: 'replayed',
      familyId: 'f1',
    });
    expect(await redeemAuthorizationCode(code, { ...binding, clientId: 'other' }, 'f3', NOW)).toEqual({
      outcome: 'invalid',
    });
    expect(await redeemAuthorizationCode('unknown', binding, 'f4', NOW)).toEqual({ outcome: 'invalid' });
  });
});

/** What a refresh token family is begun with, and its lifetimes, in the refresh token tests. */
const familyGrant = {
  clientId: 'app',
  organizationId: 'org',
  userId: 'u',
  scope: 'openid',
  authTime: NOW,
  amr: ['pwd'],
};
const familyLifetimes = { slidingSeconds: 3600, absoluteSeconds: 4 * 3600 };

describe('refresh tokens', () => {
  /** A family begun, and its first token. */
  const begin = async (...args: Parameters<typeof startRefreshFamily>) => {
    const token = await startRefreshFamily(...args);
    if (token === undefined) throw new Error('The family did not begin');
    return token;
  };

  it('rotate at every use, each successor sliding, never past the family end', async () => {
    // Not on a whole second, as a real clock: a token's expiry is rounded up, the family's end is not.
    const start = NOW + 500;
    const long = { slidingSeconds: 3 * 3600, absoluteSeconds: 4 * 3600 };
    const familyId = newFamilyId();
    const first = await begin(familyId, familyGrant, long, start);
    expect(await getItem(keys.refreshFamily(familyId))).toMatchObject({
      id: familyId,
      clientId: 'app',
      endsAt: start + 4 * 3600_000,
      expiresAt: Math.ceil((start + 4 * 3600_000) / 1000),
    });
    expect(await getItem(keys.refreshToken(digestOf(first)))).toMatchObject({
      familyId,
      familyEndsAt: start + 4 * 3600_000,
      expiresAt: Math.ceil((start + 3 * 3600_000) / 1000),
    });
    expect(await refreshFamilyOf(first)).toEqual({ familyId, clientId: 'app' });
    expect(await refreshFamilyOf('not-a-token')).toBeUndefined();

    // Another client's use changes nothing.
    expect(await rotateRefreshToken(first, 'other', long, start)).toEqual({ outcome: 'invalid' });
    const rotated = await rotateRefreshToken(first, 'app', long, start + 1000);
    if (rotated.outcome !== 'rotated') throw new Error(rotated.outcome);
    expect(rotated.grant).toMatchObject({ ...familyGrant, familyId, rotated: true });
    const successor = await getItem(keys.refreshToken(digestOf(rotated.token)));
    expect(successor).toMatchObject({
      ...familyGrant,
      familyId,
      familyEndsAt: start + 4 * 3600_000,
      expiresAt: Math.ceil((start + 1000 + 3 * 3600_000) / 1000),
    });
    expect(successor).not.toHaveProperty('rotated');

    // Near the family's end the successor lives only until then, and not a moment after it.
    const late = await rotateRefreshToken(rotated.token, 'app', long, start + 2.5 * 3600_000);
    if (late.outcome !== 'rotated') throw new Error(late.outcome);
    expect((await getItem(keys.refreshToken(digestOf(late.token))))?.expiresAt).toBe(
      Math.ceil((start + 4 * 3600_000) / 1000),
    );
    expect(await rotateRefreshToken(late.token, 'app', long, start + 4 * 3600_000)).toEqual({
      outcome: 'invalid',
    });

    // A rotated token back again: its client hears the family (to revoke it); another client nothing.
    expect(await rotateRefreshToken(first, 'other', long, start)).toEqual({ outcome: 'invalid' });
    expect(await rotateRefreshToken(first, 'app', long, start)).toEqual({ outcome: 'reused', familyId });
    expect(await rotateRefreshToken('unknown', 'app', long, start)).toEqual({ outcome: 'invalid' });
  });

  it('expire after the sliding lifetime unused', async () => {
    const first = await begin(newFamilyId(), familyGrant, familyLifetimes, NOW);
    expect(await rotateRefreshToken(first, 'app', familyLifetimes, NOW + 3600_000)).toEqual({
      outcome: 'invalid',
    });
    expect((await rotateRefreshToken(first, 'app', familyLifetimes, NOW + 3600_000 - 1000)).outcome).toBe(
      'rotated',
    );
  });

  it('of a revoked family are refused, though not rotated yet', async () => {
    const familyId = newFamilyId();
    const first = await begin(familyId, familyGrant, familyLifetimes, NOW);
    await revokeRefreshFamily(familyId);
    expect(await getItem(keys.refreshFamily(familyId))).toMatchObject({ revoked: true });
    expect(await rotateRefreshToken(first, 'app', familyLifetimes, NOW)).toEqual({ outcome: 'invalid' });
    // A family revoked before it began (a code replayed while its first exchange is under way)
    // never begins.
    const early = newFamilyId();
    await revokeRefreshFamily(early);
    expect(await getItem(keys.refreshFamily(early))).toMatchObject({ revoked: true });
    expect(await startRefreshFamily(early, familyGrant, familyLifetimes, NOW)).toBeUndefined();
    expect(await getItem(keys.refreshFamily(early))).not.toHaveProperty('clientId');
  });

  it('whose family is missing are refused', async () => {
    const familyId = newFamilyId();
    const first = await begin(familyId, familyGrant, familyLifetimes, NOW);
    const { DeleteCommand } = await import('@aws-sdk/lib-dynamodb');
    const { db, tableName } = await import('../../shared/store/dynamo.js');
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.refreshFamily(familyId) }));
    expect(await rotateRefreshToken(first, 'app', familyLifetimes, NOW)).toEqual({ outcome: 'invalid' });
  });

  /**
   * Runs `meanwhile` just before the command that writes a successor (a Put of a refresh token,
   * alone or in a transaction), answering that successor's key once it ran.
   */
  const beforeSuccessor = (meanwhile: () => Promise<unknown>) => {
    const written: { key?: ItemKey } = {};
    const isRefreshToken = (item: { pk?: unknown; sk?: unknown } | undefined) =>
      typeof item?.pk === 'string' && item.pk.startsWith('REFRESH#');
    const puts = (input: Record<string, unknown>) => {
      const items = (input as { TransactItems?: { Put?: { Item?: { pk?: unknown; sk?: unknown } } }[] })
        .TransactItems;
      const single = (input as { Item?: { pk?: unknown; sk?: unknown } }).Item;
      const item = items ? items.find((entry) => isRefreshToken(entry.Put?.Item))?.Put?.Item : single;
      if (!isRefreshToken(item)) return false;
      written.key = { pk: String(item?.pk), sk: String(item?.sk) };
      return true;
    };
    return Object.assign(beforeCommand(puts, meanwhile), { written });
  };

  const throttled = async () => {
    throw Object.assign(new Error('Throughput exceeds the current capacity of your table'), {
      name: 'ProvisionedThroughputExceededException',
    });
  };

  it('whose successor could not be written stay usable, so that the retry rotates (not a reuse)', async () => {
    // Positive control: the successor's write goes through, and the token is spent.
    const control = await begin(newFamilyId(), familyGrant, familyLifetimes, NOW);
    const passing = beforeSuccessor(async () => undefined);
    const rotated = await rotateRefreshToken(control, 'app', familyLifetimes, NOW).finally(passing.stop);
    expect(passing.ran).toBe(true);
    expect(rotated.outcome).toBe('rotated');
    expect(await getItem(keys.refreshToken(digestOf(control)))).toMatchObject({ rotated: true });

    const token = await begin(newFamilyId(), familyGrant, familyLifetimes, NOW);
    const failing = beforeSuccessor(throttled);
    await expect(
      rotateRefreshToken(token, 'app', familyLifetimes, NOW).finally(failing.stop),
    ).rejects.toThrow('Throughput exceeds');
    expect(failing.ran).toBe(true);
    // Nothing was handed out, so nothing was spent: the client's retry is not a reuse.
    expect(await getItem(keys.refreshToken(digestOf(token)))).not.toHaveProperty('rotated');
    const retried = await rotateRefreshToken(token, 'app', familyLifetimes, NOW + 1000);
    expect(retried.outcome).toBe('rotated');
  });

  it('of a family revoked between the read and the rotation issue nothing, and stay unrotated', async () => {
    // Positive control: nothing happens meanwhile, and the successor is written.
    const control = await begin(newFamilyId(), familyGrant, familyLifetimes, NOW);
    const quiet = beforeSuccessor(async () => undefined);
    const rotated = await rotateRefreshToken(control, 'app', familyLifetimes, NOW).finally(quiet.stop);
    if (rotated.outcome !== 'rotated') throw new Error(rotated.outcome);
    expect(quiet.written.key).toEqual(keys.refreshToken(digestOf(rotated.token)));
    expect(await getItem(keys.refreshToken(digestOf(rotated.token)))).toBeDefined();

    // A sign-out or an RFC 7009 revocation commits after the token was read.
    const familyId = newFamilyId();
    const token = await begin(familyId, familyGrant, familyLifetimes, NOW);
    const revoking = beforeSuccessor(() => revokeRefreshFamily(familyId));
    expect(await rotateRefreshToken(token, 'app', familyLifetimes, NOW).finally(revoking.stop)).toEqual({
      outcome: 'invalid',
    });
    expect(revoking.ran).toBe(true);
    expect(await getItem(keys.refreshToken(digestOf(token)))).not.toHaveProperty('rotated');
    expect(revoking.written.key).toBeDefined();
    expect(await getItem(revoking.written.key as ItemKey)).toBeUndefined();
  });

  it('used twice at once are exchanged once: the other use is a reuse, not an error', async () => {
    // A use that commits between the other's read and its transaction.
    const familyId = newFamilyId();
    const token = await begin(familyId, familyGrant, familyLifetimes, NOW);
    let first: Awaited<ReturnType<typeof rotateRefreshToken>> | undefined;
    const racing = beforeSuccessor(async () => {
      first = await rotateRefreshToken(token, 'app', familyLifetimes, NOW);
    });
    const second = await rotateRefreshToken(token, 'app', familyLifetimes, NOW).finally(racing.stop);
    expect(first?.outcome).toBe('rotated');
    expect(second).toEqual({ outcome: 'reused', familyId });

    // Truly at once (a conflict between the two transactions is retried until one reads the other).
    const both = await begin(newFamilyId(), familyGrant, familyLifetimes, NOW);
    const outcomes = await Promise.all(
      [1, 2].map(() =>
        rotateRefreshToken(both, 'app', familyLifetimes, NOW).then((answer) => answer.outcome),
      ),
    );
    expect(outcomes.sort()).toEqual(['reused', 'rotated']);
  });

  it('written before they carried their family end rotate, ending with the family', async () => {
    /** A family's first token as it was written before tokens carried their family's end. */
    const beginLegacy = async (familyId: string, lifetimes = familyLifetimes) => {
      const token = await begin(familyId, familyGrant, lifetimes, NOW);
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.refreshToken(digestOf(token)),
          UpdateExpression: 'REMOVE familyEndsAt',
        }),
      );
      expect(await getItem(keys.refreshToken(digestOf(token)))).not.toHaveProperty('familyEndsAt');
      return token;
    };
    const long = { slidingSeconds: 3 * 3600, absoluteSeconds: 4 * 3600 };
    const familyId = newFamilyId();
    const legacy = await beginLegacy(familyId, long);
    const rotated = await rotateRefreshToken(legacy, 'app', long, NOW + 2.5 * 3600_000);
    if (rotated.outcome !== 'rotated') throw new Error(rotated.outcome);
    // The family's end, learnt from the family, caps the successor and is written on it.
    expect(await getItem(keys.refreshToken(digestOf(rotated.token)))).toMatchObject({
      familyId,
      familyEndsAt: NOW + 4 * 3600_000,
      expiresAt: Math.ceil((NOW + 4 * 3600_000) / 1000),
    });
    expect(await rotateRefreshToken(legacy, 'app', familyLifetimes, NOW)).toEqual({
      outcome: 'reused',
      familyId,
    });

    // One of a revoked family is refused, and left as it was.
    const revokedFamily = newFamilyId();
    const revoked = await beginLegacy(revokedFamily);
    await revokeRefreshFamily(revokedFamily);
    expect(await rotateRefreshToken(revoked, 'app', familyLifetimes, NOW)).toEqual({ outcome: 'invalid' });
    expect(await getItem(keys.refreshToken(digestOf(revoked)))).not.toHaveProperty('rotated');
  });
});

describe('failed sign-ins and attempts', () => {
  it('counts failures per organization and email, locking for what the rule says', async () => {
    const waits: number[] = [];
    const rule = (failures: number) => {
      waits.push(failures);
      return failures >= 2 ? failures * 1000 : 0;
    };
    expect(await recordSignInFailure('org', 'Ann@Example.com', rule, NOW)).toEqual({
      failures: 1,
      locked: false,
    });
    expect(await signInLockedUntil('org', 'ann@example.com')).toBe(0);
    expect(await getItem(keys.signInFailures('org', 'ann@example.com'))).toMatchObject({
      failures: 1,
      lockedUntil: 0,
      expiresAt: NOW / 1000 + 24 * 3600,
    });
    // The failure that locks says so; one while the lock lasts extends it, and one after it locks again.
    expect(await recordSignInFailure('org', 'ann@example.com', rule, NOW + 1)).toEqual({
      failures: 2,
      locked: true,
    });
    expect(await signInLockedUntil('org', 'ann@example.com')).toBe(NOW + 1 + 2000);
    expect(await recordSignInFailure('org', 'ann@example.com', rule, NOW + 2)).toEqual({
      failures: 3,
      locked: false,
    });
    expect(await signInLockedUntil('org', 'ann@example.com')).toBe(NOW + 2 + 3000);
    expect(await recordSignInFailure('org', 'ann@example.com', rule, NOW + 2 + 3000)).toEqual({
      failures: 4,
      locked: true,
    });
    expect(waits).toEqual([1, 2, 3, 4]);
    expect(await signInLockedUntil('other-org', 'ann@example.com')).toBe(0);
  });

  it('reserves one check at a time; a reserved failure counts what was refused meanwhile, so no lock set meanwhile is lost', async () => {
    const rule = (failures: number) => (failures >= 5 ? (failures - 4) * 60_000 : 0);
    const email = 'bo@example.com';
    for (let failure = 0; failure < 3; failure++) await recordSignInFailure('org', email, rule, NOW);
    const reserved = await reserveCredentialCheck('org', email, NOW);
    expect(reserved).toEqual({ outcome: 'reserved', failures: 3 });
    // Another request meanwhile is refused, and counted without the reservation: 6 lock for 2 minutes.
    expect(await reserveCredentialCheck('org', email, NOW + 1)).toEqual({
      outcome: 'refused',
      locked: false,
    });
    for (let failure = 0; failure < 3; failure++) await recordSignInFailure('org', email, rule, NOW + 2);
    expect(await signInLockedUntil('org', email)).toBe(NOW + 2 + 120_000);
    // The reserved check fails too: 7 counted, and the longer lock of the count it met is kept.
    if (reserved.outcome !== 'reserved') throw new Error('not reserved');
    expect(await recordSignInFailure('org', email, rule, NOW + 3, reserved)).toEqual({
      failures: 7,
      locked: true,
    });
    expect(await signInLockedUntil('org', email)).toBe(NOW + 3 + 180_000);
    expect(await reserveCredentialCheck('org', email, NOW + 4)).toEqual({ outcome: 'refused', locked: true });
    // After the lock, one check again; the reservation ends with its failure.
    const after = await reserveCredentialCheck('org', email, NOW + 3 + 180_000);
    expect(after).toEqual({ outcome: 'reserved', failures: 7 });
    expect(await getItem(keys.signInFailures('org', email))).toHaveProperty('checkingUntil');
  });

  it('ends a reserved check whose count was cleared meanwhile without a stale lock', async () => {
    const rule = (failures: number) => (failures >= 5 ? 60_000 : 0);
    const email = 'cy@example.com';
    for (let failure = 0; failure < 4; failure++) await recordSignInFailure('org', email, rule, NOW);
    const reserved = await reserveCredentialCheck('org', email, NOW);
    if (reserved.outcome !== 'reserved') throw new Error('not reserved');
    // The person signs in another way (a passkey) or sets a password by link: the count is cleared.
    await clearSignInFailures('org', email);
    expect(await recordSignInFailure('org', email, rule, NOW + 1, reserved)).toEqual({
      failures: 1,
      locked: false,
    });
    expect(await getItem(keys.signInFailures('org', email))).toMatchObject({ failures: 1, lockedUntil: 0 });
    expect(await getItem(keys.signInFailures('org', email))).not.toHaveProperty('checkingUntil');
    // Ending a check whose count is gone writes nothing back.
    await reserveCredentialCheck('org', email, NOW + 2);
    await clearSignInFailures('org', email);
    await endCredentialCheck('org', email);
    expect(await getItem(keys.signInFailures('org', email))).toBeUndefined();
  });

  it('counts attempts per address and calendar minute', async () => {
    const minute = Math.floor(NOW / MINUTE) * MINUTE;
    expect(await countSignInAttempt('203.0.113.1', minute)).toBe(1);
    expect(await countSignInAttempt('203.0.113.1', minute + MINUTE - 1)).toBe(2);
    expect(await countSignInAttempt('203.0.113.2', minute)).toBe(1);
    expect(await countSignInAttempt('203.0.113.1', minute + MINUTE)).toBe(1);
    expect(await getItem(keys.signInAttempts('203.0.113.1', minute / MINUTE))).toMatchObject({
      attempts: 2,
      expiresAt: minute / 1000 + 120,
    });
  });
});

describe('the per-address sign-in limit', () => {
  const from = (sourceIp: string) =>
    ({ requestContext: { http: { sourceIp } } }) as unknown as APIGatewayProxyEventV2;

  it("counts an IPv6 client's /64 as one address, and another /64 apart", async () => {
    vi.stubEnv('IDP_SIGNIN_ATTEMPTS_PER_MINUTE', '3');
    reloadConfig();
    // Up to the limit from three addresses of one /64 (each an address of its own, as an attacker
    // holding the block would send them); the fourth, from yet another of its addresses, is over.
    for (const host of ['1', '2', 'a:b:c'])
      expect(await tooManyAttempts(from(`2001:db8:7:1::${host}`))).toBe(false);
    expect(await tooManyAttempts(from('2001:db8:7:1:ffff::9'))).toBe(true);
    // Positive control: an address of the next /64 is its own count.
    expect(await tooManyAttempts(from('2001:db8:7:2::1'))).toBe(false);
  });
});

describe('the state of a federated sign-in', () => {
  const BROWSER = 'binding-cookie-of-the-browser';
  const fields = {
    requestId: 'r',
    browserDigest: digestOf(BROWSER),
    providerClientId: 'sso',
    issuer: 'https://upstream.example',
    nonce: 'n',
    codeVerifier: 'v',
  };

  it('is taken once, within 10 minutes, by its own browser, and stored as a digest only', async () => {
    const state = await saveFederationState(fields, NOW);
    expect(state).toMatch(/^[\w-]{43}$/);
    expect(await getItem(keys.federationState(digestOf(state)))).toMatchObject({
      ...fields,
      createdAt: NOW,
      expiresAt: NOW / 1000 + 600,
    });
    expect(await getItem(keys.federationState(state))).toBeUndefined();
    // Another browser's binding, or none, leaves it in place.
    expect(await takeFederationState(state, 'another-browser', NOW)).toBeUndefined();
    expect(await takeFederationState(state, undefined, NOW)).toBeUndefined();
    expect(await takeFederationState(state, BROWSER, NOW + 10 * MINUTE - 1)).toEqual({
      ...fields,
      createdAt: NOW,
      expiresAt: NOW / 1000 + 600,
    });
    expect(await takeFederationState(state, BROWSER, NOW)).toBeUndefined();
  });

  it('is refused once expired, and used up all the same', async () => {
    const state = await saveFederationState(fields, NOW);
    expect(await takeFederationState(state, BROWSER, NOW + 10 * MINUTE)).toBeUndefined();
    expect(await getItem(keys.federationState(digestOf(state)))).toBeUndefined();
    expect(await takeFederationState('unknown', BROWSER, NOW)).toBeUndefined();
  });

  it('in a table that cannot be reached is an error, not a state unknown', async () => {
    const state = await saveFederationState(fields, NOW);
    tableMissing();
    await expect(takeFederationState(state, BROWSER, NOW)).rejects.toThrow();
  });
});

describe('refresh token families of a browser session', () => {
  const sessionLifetimes = { idleSeconds: 3600, absoluteSeconds: 12 * 3600 };
  const familyRevoked = async (familyId: string) =>
    (await getItem(keys.refreshFamily(familyId)))?.revoked === true;

  /** A live session and one family it began. */
  const sessionWithFamily = async () => {
    const { cookieValue } = await createSession(
      { organizationId: 'org', userId: 'u', amr: ['pwd'], authTime: NOW },
      sessionLifetimes,
      NOW,
    );
    const familyId = newFamilyId();
    expect(
      await startRefreshFamily(familyId, familyGrant, familyLifetimes, NOW, digestOf(cookieValue)),
    ).toBeTruthy();
    return { cookieValue, familyId };
  };

  it('are revoked when a person signs out of the live session, and left when it had expired', async () => {
    const live = await sessionWithFamily();
    expect(await familyRevoked(live.familyId)).toBe(false);
    await endSession(live.cookieValue, { revokeFamilies: true }, NOW + MINUTE);
    expect(await familyRevoked(live.familyId)).toBe(true);
    // Past its idle lifetime (TTL not yet run): deleted alone; its tokens keep their own lifetimes.
    const expired = await sessionWithFamily();
    expect(await endSession(expired.cookieValue, { revokeFamilies: true }, NOW + 2 * 3600_000)).toBeTruthy();
    expect(await familyRevoked(expired.familyId)).toBe(false);
    expect(await getItem(keys.session(digestOf(expired.cookieValue)))).toBeUndefined();
  });

  it('are refused past the cap, and for a session that has ended, so no family is left unreachable', async () => {
    const { cookieValue } = await sessionWithFamily();
    // Full, as a thousand exchanges would leave it.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.session(digestOf(cookieValue)),
        UpdateExpression: 'SET families = :full',
        ExpressionAttributeValues: {
          ':full': new Set(Array.from({ length: MAX_SESSION_FAMILIES }, (_, index) => `family-${index}`)),
        },
      }),
    );
    await expect(
      startRefreshFamily(newFamilyId(), familyGrant, familyLifetimes, NOW, digestOf(cookieValue)),
    ).rejects.toThrow('This browser session has begun too many sign-ins: sign in again');
    await endSession(cookieValue);
    await expect(
      startRefreshFamily(newFamilyId(), familyGrant, familyLifetimes, NOW, digestOf(cookieValue)),
    ).rejects.toThrow(/The browser session of this code has ended/);
    // Positive control: without a session (offline_access), the same family begins.
    expect(await startRefreshFamily(newFamilyId(), familyGrant, familyLifetimes, NOW)).toBeTruthy();
  });
});
