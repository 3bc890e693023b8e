import { randomUUID } from 'node:crypto';
import { bucketOf } from '../../shared/domain/paging.js';
import type { UserStatus } from '../../shared/schemas/users.js';
import { batchPut } from '../../shared/store/batch.js';
import { keys, LISTINGS } from '../../shared/store/keys.js';
import { storedUser, type UserRecord } from '../../shared/store/user-repository.js';

/** A user record the way createUser makes one, with `fields` over the defaults. */
export const userRecord = (orgId: string, fields: Partial<UserRecord> = {}): UserRecord => {
  const now = Date.now();
  const id = randomUUID();
  return {
    id,
    organizationId: orgId,
    email: `${id}@seeded.example`,
    name: 'Seeded user',
    status: 'ACTIVE',
    userType: 'STANDARD',
    sequence: 1,
    createdAt: now,
    updatedAt: now,
    createdBy: 'seed',
    canSendEmail: true,
    isInitial: false,
    version: 1,
    ...fields,
  };
};

/**
 * Writes the users of `sequences` the way createUser stores them, and the bucket counts of all
 * `total` users, in bulk. A page is found from the counts and read from its bucket on, so only the
 * users the pages under test can reach need to exist: a page that read anything before its bucket
 * would come back short or start at the wrong user. Answers the ids written, in sequence order.
 */
export const seedUsers = async (
  orgId: string,
  total: number,
  sequences: (sequence: number) => boolean,
  statusOf: (sequence: number) => UserStatus,
) => {
  const now = Date.now();
  const buckets = new Map<string, number>();
  const users: Record<string, unknown>[] = [];
  const ids: string[] = [];
  for (let sequence = 1; sequence <= total; sequence++) {
    const status = statusOf(sequence);
    const bucketKey = `${status}#${bucketOf(sequence)}`;
    buckets.set(bucketKey, (buckets.get(bucketKey) ?? 0) + 1);
    if (!sequences(sequence)) continue;
    const user = userRecord(orgId, {
      email: `user${sequence}@scale.example`,
      name: `User ${sequence} with a name of ordinary length`,
      status,
      sequence,
      createdAt: now + sequence,
      updatedAt: now + sequence,
      roles: new Set([randomUUID()]),
      isInitial: sequence === 1,
    });
    users.push(storedUser(user));
    ids.push(user.id);
  }
  const bucketItems = [...buckets].map(([bucketKey, bucketCount]) => {
    const [status, bucket] = bucketKey.split('#') as [UserStatus, string];
    return { ...keys.listingBucket(orgId, LISTINGS.users(status), Number(bucket)), count: bucketCount };
  });
  const slices = 8;
  const size = Math.ceil(users.length / slices);
  await Promise.all(
    Array.from({ length: slices }, (_, slice) => batchPut(users.slice(slice * size, (slice + 1) * size))),
  );
  await batchPut(bucketItems);
  return ids;
};
