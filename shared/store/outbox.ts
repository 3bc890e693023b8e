import { randomUUID } from 'node:crypto';
import { Conflict } from '../domain/errors.js';
import { type OutboxMessage, OutboxMessageEntity } from './entities.js';
import { create } from './writes.js';

/**
 * The transactional outbox: each email is recorded in the same transaction as the change that
 * causes it. The record names recipient and kind, never the link it carries (a credential).
 */

export type OutboxEmail = Pick<OutboxMessage, 'type' | 'organizationId' | 'userId' | 'to' | 'name'>;

export interface OutboxRef {
  organizationId: string;
  createdAt: number;
  messageId: string;
}

export const outboxPut = (email: OutboxEmail, now: number) => {
  const messageId = randomUUID();
  const ref: OutboxRef = { organizationId: email.organizationId, createdAt: now, messageId };
  return {
    ref,
    write: create(
      OutboxMessageEntity.item(ref, { messageId, ...email, createdAt: now }),
      () => new Conflict('Outbox message', 'A message with this id exists'),
    ),
  };
};
