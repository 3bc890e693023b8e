import { randomUUID } from 'node:crypto';
import { IdempotencyRecordEntity } from './entities.js';
import { ConcurrentChange, concurrentChange, put, remove, update, writeOne } from './writes.js';

/** How long a response is remembered for repeats of its key. */
const RECORD_SECONDS = 24 * 60 * 60;

export type Claim =
  | { kind: 'held'; holder: string }
  | { kind: 'running' }
  | { kind: 'other-body' }
  | { kind: 'finished'; response: string };

/**
 * Takes the record of a key for one request, with one conditional write: a free key (never used,
 * expired, or held by a request that died) becomes held by this request. Otherwise the record
 * says why not: another request holds it, it was used with another body, or it finished.
 */
export const claimRecord = async (
  hash: string,
  bodyHash: string,
  heldForMillis: number,
  now = Date.now(),
): Promise<Claim> => {
  const holder = randomUUID();
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeOne(
        put(
          IdempotencyRecordEntity.item(
            { hash },
            {
              status: 'IN_PROGRESS',
              bodyHash,
              holder,
              heldUntil: now + heldForMillis,
              expiresAt: Math.floor(now / 1000) + RECORD_SECONDS,
            },
          ),
          {
            condition:
              'attribute_not_exists(pk) OR expiresAt < :nowSeconds OR (#status = :inProgress AND heldUntil < :now)',
            names: { '#status': 'status' },
            values: { ':nowSeconds': Math.floor(now / 1000), ':now': now, ':inProgress': 'IN_PROGRESS' },
          },
          concurrentChange,
        ),
      );
      return { kind: 'held', holder };
    } catch (error) {
      if (!(error instanceof ConcurrentChange)) throw error;
    }
    const existing = await IdempotencyRecordEntity.get({ hash });
    // Released between the two calls: try to take it again.
    if (!existing) continue;
    if (existing.bodyHash !== bodyHash) return { kind: 'other-body' };
    if (existing.status === 'IN_PROGRESS' || existing.response === undefined) return { kind: 'running' };
    return { kind: 'finished', response: existing.response };
  }
  return { kind: 'running' };
};

/** Keeps the response of the request that held the record (its holder only). */
export const completeRecord = async (hash: string, holder: string, response: string, now = Date.now()) => {
  await writeOne(
    update(
      IdempotencyRecordEntity.key({ hash }),
      {
        update: 'SET #status = :completed, #response = :response, expiresAt = :expires',
        condition: 'holder = :holder',
        names: { '#status': 'status', '#response': 'response' },
        values: {
          ':completed': 'COMPLETED',
          ':response': response,
          ':expires': Math.floor(now / 1000) + RECORD_SECONDS,
          ':holder': holder,
        },
      },
      concurrentChange,
    ),
  );
};

/** Frees the key after the request failed, so a retry runs again (its holder only). */
export const releaseRecord = async (hash: string, holder: string) => {
  await writeOne(
    remove(
      IdempotencyRecordEntity.key({ hash }),
      { condition: 'holder = :holder', values: { ':holder': holder } },
      concurrentChange,
    ),
  );
};
