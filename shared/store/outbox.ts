import { randomUUID } from 'node:crypto';
import { Conflict } from '../domain/errors.js';
import { EMAIL_TYPES } from '../email/messages.js';
import * as z from '../zod.js';
import { defineEntity } from './entity.js';
import { keys } from './keys.js';
import { create } from './writes.js';

/**
 * The transactional outbox: each email is recorded in the same transaction as the change that
 * causes it. The record names recipient and kind, never the link it carries (a credential).
 */

export const OutboxMessageEntity = defineEntity({
  name: 'Outbox message',
  key: ({
    organizationId,
    createdAt,
    messageId,
  }: {
    organizationId: string;
    createdAt: number;
    messageId: string;
  }) => keys.outboxMessage(organizationId, createdAt, messageId),
  attributes: () =>
    z.object({
      messageId: z.string(),
      type: z.enum(EMAIL_TYPES),
      organizationId: z.string(),
      userId: z.string(),
      to: z.string(),
      name: z.string(),
      createdAt: z.number(),
    }),
});
export type OutboxMessage = z.output<typeof OutboxMessageEntity.attributes>;

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
