import { Conflict } from '../domain/errors.js';
import * as z from '../zod.js';
import { defineEntity, ttlSeconds } from './entity.js';
import { keys } from './keys.js';
import { create, writeOne } from './writes.js';

/** A client assertion (private_key_jwt) accepted once: its `jti` is kept until the assertion expires. */
const UsedClientAssertionEntity = defineEntity({
  name: 'Used client assertion',
  key: ({ clientId, jti }: { clientId: string; jti: string }) => keys.usedClientAssertion(clientId, jti),
  attributes: () => z.object({ expiresAt: z.number() }),
});

/**
 * Marks `jti` of `clientId` used until `expiresAtSeconds`, in one conditional write: of two
 * requests carrying the same assertion, exactly one gets through; the other is refused with a
 * {@link Conflict}. DynamoDB's TTL removes the item after it expired.
 */
export const spendClientAssertion = (
  clientId: string,
  jti: string,
  expiresAtSeconds: number,
): Promise<unknown> =>
  writeOne(
    create(
      UsedClientAssertionEntity.item({ clientId, jti }, { expiresAt: ttlSeconds(expiresAtSeconds * 1000) }),
      () => new Conflict('Client assertion', 'The client assertion was used before'),
    ),
  );
