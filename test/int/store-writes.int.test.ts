import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { Conflict, NotFound } from '../../shared/domain/errors.js';
import { db, tableName } from '../../shared/store/dynamo.js';
import type { ItemKey } from '../../shared/store/keys.js';
import {
  addTo,
  ConcurrentChange,
  check,
  concurrentChange,
  create,
  guard,
  retryOnConcurrentChange,
  transact,
  update,
  writeOne,
} from '../../shared/store/writes.js';
import { useDatabase } from '../support/database.js';

/** The write builder against DynamoDB Local: the error a caller gets belongs to the item that failed. */
useDatabase();

const keyOf = (label: string): ItemKey => ({ pk: `TEST#${randomUUID()}`, sk: label });
const itemAt = async (key: ItemKey) =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

class First extends Error {}
class Second extends Error {}

describe('transactions', () => {
  it('answer the error of the item whose condition failed, whatever its position', async () => {
    const taken = keyOf('taken');
    await writeOne(create({ ...taken, owner: 'a' }, () => new First()));
    const free = keyOf('free');
    const items = [
      guard(free, { owner: 'b' }, () => new First()),
      guard(taken, { owner: 'b' }, () => new Second()),
    ];
    await expect(transact(items)).rejects.toBeInstanceOf(Second);
    await expect(transact([...items].reverse())).rejects.toBeInstanceOf(Second);
    // Nothing of a refused transaction was written.
    expect(await itemAt(free)).toBeUndefined();
    expect(await itemAt(taken)).toEqual({ ...taken, owner: 'a' });
  });

  it('leave out false and undefined entries, so optional items are written inline', async () => {
    const [first, second] = [keyOf('first'), keyOf('second')];
    await transact([addTo(first, 'count', 2), false, undefined, addTo(second, 'count', 3)]);
    expect([(await itemAt(first))?.count, (await itemAt(second))?.count]).toEqual([2, 3]);
  });

  it("check conditions without writing, and refuse with the check's error", async () => {
    const missing = keyOf('missing');
    const written = keyOf('written');
    const refused = transact([
      check(missing, { condition: 'attribute_exists(pk)' }, () => new NotFound('Thing', 'missing')),
      create({ ...written }, () => new First()),
    ]);
    await expect(refused).rejects.toMatchObject({ entity: 'Thing', id: 'missing' });
    expect(await itemAt(written)).toBeUndefined();
  });

  it('tell a refusal the item its failed condition met, when the write asked to see it', async () => {
    const present = keyOf('present');
    await writeOne(create({ ...present, count: 5 }, () => new First()));
    const seen: unknown[] = [];
    const full = (key: ItemKey) =>
      update(
        key,
        {
          update: 'ADD #count :one',
          condition: 'attribute_exists(pk) AND #count < :max',
          names: { '#count': 'count' },
          values: { ':one': 1, ':max': 5 },
          seeItemOnFailure: true,
        },
        (item) => {
          seen.push(item);
          return item ? new Conflict('Thing', 'full') : new NotFound('Thing');
        },
      );
    // The refusing item second, behind one that passes: its own reason carries the item.
    await expect(transact([addTo(keyOf('other'), 'count', 1), full(present)])).rejects.toThrow('full');
    await expect(transact([full(keyOf('missing'))])).rejects.toBeInstanceOf(NotFound);
    await expect(writeOne(full(present))).rejects.toThrow('full');
    await expect(writeOne(full(keyOf('missing')))).rejects.toBeInstanceOf(NotFound);
    // In the document client's types (numbers, not DynamoDB's own format).
    expect(seen).toEqual([{ ...present, count: 5 }, undefined, { ...present, count: 5 }, undefined]);
  });

  it('retry conflicts with concurrent transactions on the same items instead of refusing them', async () => {
    const counter = keyOf('contended');
    await Promise.all(
      Array.from({ length: 20 }, () =>
        transact([addTo(counter, 'count', 1), addTo(keyOf('other'), 'count', 1)]),
      ),
    );
    expect((await itemAt(counter))?.count).toBe(20);
  });
});

describe('single writes', () => {
  it("answer the item as it is afterwards, or the write's error when its condition fails", async () => {
    const key = keyOf('item');
    await writeOne(create({ ...key, version: 1 }, () => new First()));
    const after = await writeOne(
      update(
        key,
        { update: 'SET version = :next', condition: 'version = :v', values: { ':next': 2, ':v': 1 } },
        concurrentChange,
      ),
      { returnNew: true },
    );
    expect(after).toEqual({ ...key, version: 2 });
    await expect(
      writeOne(
        update(
          key,
          { update: 'SET version = :next', condition: 'version = :v', values: { ':next': 3, ':v': 1 } },
          concurrentChange,
        ),
      ),
    ).rejects.toBeInstanceOf(ConcurrentChange);
  });

  it('read-modify-writes retried on concurrent changes all land', async () => {
    const key = keyOf('versioned');
    await writeOne(create({ ...key, version: 0 }, () => new First()));
    const increment = () =>
      retryOnConcurrentChange(async () => {
        const version = Number((await itemAt(key))?.version);
        await writeOne(
          update(
            key,
            {
              update: 'SET version = :next',
              condition: 'version = :v',
              values: { ':next': version + 1, ':v': version },
            },
            concurrentChange,
          ),
        );
      });
    await Promise.all(Array.from({ length: 8 }, increment));
    expect((await itemAt(key))?.version).toBe(8);
  });

  it('give up on endless concurrent changes with a conflict', async () => {
    let attempts = 0;
    const refused = retryOnConcurrentChange(async () => {
      attempts++;
      throw new ConcurrentChange();
    }, 3);
    await expect(refused).rejects.toBeInstanceOf(Conflict);
    expect(attempts).toBe(3);
  });
});
