import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Conflict, NotFound } from '../../shared/domain/errors.js';
import { MAX_ADDITIONAL_PROPERTY_NAMES } from '../../shared/domain/limits.js';
import { batchPut } from '../../shared/store/batch.js';
import { keys } from '../../shared/store/keys.js';
import { queryPartition } from '../../shared/store/query.js';
import { changeAdditionalProperties } from '../../shared/store/user-grants.js';
import { listAdditionalPropertyNames, storedUser } from '../../shared/store/user-repository.js';
import { createTestOrganization, getItem, useDatabase } from '../support/service.js';
import { userRecord } from '../support/user-seeding.js';

/**
 * MAX_ADDITIONAL_PROPERTY_NAMES distinct names in use per organization. The names already in use
 * are seeded as their counter items and the organization's count, written directly.
 */
useDatabase();

const LIMIT = MAX_ADDITIONAL_PROPERTY_NAMES;

const seedUser = async (orgId: string) => {
  const user = userRecord(orgId);
  await batchPut([storedUser(user)]);
  return user.id;
};

/** `count` more names in use (`seed-<n>`), each held by one user elsewhere; counted on the organization unless told. */
const seedNamesInUse = async (orgId: string, count: number, options: { counted?: boolean } = {}) => {
  await batchPut(
    Array.from({ length: count }, (_, index) => ({
      ...keys.userPropertyName(orgId, `seed-${index}`),
      count: 1,
    })),
  );
  if (options.counted ?? true) {
    const organization = await getItem(keys.organization(orgId));
    const counted = Number(organization?.additionalPropertyNameCount ?? 0);
    await batchPut([{ ...organization, additionalPropertyNameCount: counted + count }]);
  }
};

const namesInUse = async (orgId: string) =>
  (await getItem(keys.organization(orgId)))?.additionalPropertyNameCount as number | undefined;
const countOf = async (orgId: string, name: string) =>
  (await getItem(keys.userPropertyName(orgId, name)))?.count as number | undefined;
const propertiesOf = async (orgId: string, userId: string) =>
  (await getItem(keys.user(orgId, userId)))?.additionalProperties ?? {};
/** Counter items with a positive count: what the listing answers. */
const positiveCounters = async (orgId: string) =>
  (
    await queryPartition(keys.organizationPartition(orgId), keys.userPropertyNamePrefix, { consistent: true })
  ).filter((item) => Number(item.count) > 0).length;

describe(`at most ${LIMIT} additional property names in use per organization`, () => {
  it('up to the limit; a new name beyond is a Conflict that changes nothing; names in use stay usable', async () => {
    const orgId = (await createTestOrganization()).id;
    await seedNamesInUse(orgId, LIMIT - 2);
    const [a, b] = [await seedUser(orgId), await seedUser(orgId)];

    await changeAdditionalProperties(orgId, a, { set: { x: 1 } });
    expect(await namesInUse(orgId)).toBe(LIMIT - 1);

    // Two new names with room for one: refused whole.
    const refused = changeAdditionalProperties(orgId, a, { set: { y: 'y', z: 'z', x: 2 } });
    await expect(refused).rejects.toBeInstanceOf(Conflict);
    await expect(refused).rejects.toThrow(
      `An organization's users hold at most ${LIMIT} distinct additional property names; 2 new one(s) would go beyond that`,
    );
    expect(await propertiesOf(orgId, a)).toEqual({ x: 1 });
    expect([await countOf(orgId, 'x'), await countOf(orgId, 'y'), await namesInUse(orgId)]).toEqual([
      1,
      undefined,
      LIMIT - 1,
    ]);

    await changeAdditionalProperties(orgId, a, { set: { y: 'y' } });
    expect(await namesInUse(orgId)).toBe(LIMIT);
    expect(await listAdditionalPropertyNames(orgId)).toHaveLength(LIMIT);

    // At the limit: names in use can be given to more users, and values changed; no new name.
    await changeAdditionalProperties(orgId, b, { set: { x: 'b', 'seed-0': {} } });
    await changeAdditionalProperties(orgId, a, { set: { x: 3 } });
    expect([await countOf(orgId, 'x'), await countOf(orgId, 'seed-0')]).toEqual([2, 2]);
    await expect(changeAdditionalProperties(orgId, b, { set: { w: 1 } })).rejects.toBeInstanceOf(Conflict);
    expect(await propertiesOf(orgId, b)).toEqual({ x: 'b', 'seed-0': {} });

    // A name still held by another user keeps its place; its last user letting go frees it.
    await changeAdditionalProperties(orgId, a, { remove: ['x'] });
    expect([await countOf(orgId, 'x'), await namesInUse(orgId)]).toEqual([1, LIMIT]);
    await expect(changeAdditionalProperties(orgId, b, { set: { w: 1 } })).rejects.toBeInstanceOf(Conflict);
    await changeAdditionalProperties(orgId, a, { remove: ['y'] });
    expect([await getItem(keys.userPropertyName(orgId, 'y')), await namesInUse(orgId)]).toEqual([
      undefined,
      LIMIT - 1,
    ]);
    expect(await listAdditionalPropertyNames(orgId)).not.toContain('y');
    await changeAdditionalProperties(orgId, b, { set: { w: 1 } });
    const listed = await listAdditionalPropertyNames(orgId);
    expect(listed).toHaveLength(LIMIT);
    expect(listed).toEqual(expect.arrayContaining(['w', 'x', 'seed-0']));
    expect(await positiveCounters(orgId)).toBe(LIMIT);
  });

  it('a missing user is still NotFound and counts nothing', async () => {
    const orgId = (await createTestOrganization()).id;
    const missing = randomUUID();
    await expect(changeAdditionalProperties(orgId, missing, { set: { x: 1 } })).rejects.toMatchObject({
      constructor: NotFound,
      entity: 'User',
      id: missing,
    });
    expect([await countOf(orgId, 'x'), await namesInUse(orgId)]).toEqual([undefined, undefined]);
  });

  it('concurrent changes keep every count exact, and admit exactly the room left', async () => {
    const orgId = (await createTestOrganization()).id;
    const users = await Promise.all(Array.from({ length: 8 }, () => seedUser(orgId)));
    await Promise.all(
      users.map((userId, index) =>
        changeAdditionalProperties(orgId, userId, { set: { shared: index, [`own-${index}`]: 1 } }),
      ),
    );
    expect([await countOf(orgId, 'shared'), await namesInUse(orgId), await positiveCounters(orgId)]).toEqual([
      8, 9, 9,
    ]);
    await Promise.all(
      users.map((userId) => changeAdditionalProperties(orgId, userId, { remove: ['shared'] })),
    );
    expect([await getItem(keys.userPropertyName(orgId, 'shared')), await namesInUse(orgId)]).toEqual([
      undefined,
      8,
    ]);

    // Room for two more names: of eight users bringing in a name each, exactly two succeed.
    await seedNamesInUse(orgId, LIMIT - 2 - 8);
    expect(await namesInUse(orgId)).toBe(LIMIT - 2);
    const outcomes = await Promise.allSettled(
      users.map((userId, index) =>
        changeAdditionalProperties(orgId, userId, { set: { [`late-${index}`]: 1 } }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(2);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected')
        expect(String(outcome.reason)).toContain(`at most ${LIMIT} distinct`);
    }
    expect([await namesInUse(orgId), await positiveCounters(orgId)]).toEqual([LIMIT, LIMIT]);
  });

  it('an organization whose names were never counted counts them at its first new name', async () => {
    const orgId = (await createTestOrganization()).id;
    await seedNamesInUse(orgId, 3, { counted: false });
    // An item an earlier version left at 0: not in use, not counted, taken over when used again.
    await batchPut([{ ...keys.userPropertyName(orgId, 'unused'), count: 0 }]);
    const users = await Promise.all(Array.from({ length: 4 }, () => seedUser(orgId)));
    await Promise.all(
      users.map((userId, index) =>
        changeAdditionalProperties(orgId, userId, { set: { [`new-${index}`]: 1, unused: 1 } }),
      ),
    );
    expect([await namesInUse(orgId), await countOf(orgId, 'unused')]).toEqual([3 + 4 + 1, 4]);
    expect(await listAdditionalPropertyNames(orgId)).toHaveLength(3 + 4 + 1);
  });
});
