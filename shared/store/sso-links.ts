import { createHash } from 'node:crypto';
import { Conflict, NotFound } from '../domain/errors.js';
import * as z from '../zod.js';
import { auditWrites } from './audit-records.js';
import { defineEntity } from './entity.js';
import { keys } from './keys.js';
import { queryPartition } from './query.js';
import { type UserRecord, userTarget } from './user-repository.js';
import { create, remove, transact, update, type Write } from './writes.js';

/**
 * A person's upstream identity at an SSO provider (OpenID Connect Core 5.7: `iss` and `sub` are
 * the only stable identifier), pinned at their first federated sign-in. From then on the provider
 * signs in whoever holds that subject, whatever email the upstream says, and nobody else into
 * this account: an upstream that gives the person's address to someone else cannot hand them
 * the account (docs/single-sign-on.md). Keyed per provider rather than per issuer, as an
 * upstream may give each client its own subjects (pairwise identifiers, Core 8).
 */

export const SsoLinkEntity = defineEntity({
  name: 'SSO link',
  key: ({ organizationId, userId, clientId }: { organizationId: string; userId: string; clientId: string }) =>
    keys.ssoLink(organizationId, userId, clientId),
  attributes: () =>
    z.object({
      organizationId: z.string(),
      userId: z.string(),
      /** The SSO provider's client id. */
      clientId: z.string(),
      /** The upstream's `sub`: an identifier, not a secret. */
      subject: z.string(),
      /** Epoch ms. */
      linkedAt: z.number(),
    }),
});
export type SsoLinkRecord = z.output<typeof SsoLinkEntity.attributes>;

const MAX_LISTED = 100;

/** Whose an upstream subject is, for the sign-in that brings it. */
const SsoSubjectEntity = defineEntity({
  name: 'SSO link',
  key: ({
    organizationId,
    clientId,
    subject,
  }: {
    organizationId: string;
    clientId: string;
    subject: string;
  }) => keys.ssoSubject(organizationId, clientId, createHash('sha256').update(subject).digest('hex')),
  attributes: () => z.object({ userId: z.string() }),
});

/** Thrown when the person is linked to another subject of the provider, or the subject to another person. */
export class SsoLinkTaken extends Conflict {
  constructor() {
    super('SSO link', 'The account is linked to another identity of this SSO provider');
  }
}

const linkTarget = (link: Pick<SsoLinkRecord, 'clientId' | 'subject'>) => ({
  type: 'ssoLink',
  id: link.clientId,
  name: link.subject,
});

/** The person the provider's subject is linked to, if anyone (strongly consistent). */
export const linkedUserId = async (orgId: string, clientId: string, subject: string) =>
  (await SsoSubjectEntity.get({ organizationId: orgId, clientId, subject }))?.userId;

/**
 * Links the subject to the person in one transaction, refused with {@link SsoLinkTaken} when either
 * side is linked already (a concurrent first sign-in included); `verifiedEmail` rides along, as the
 * provider vouched for the address the person was matched by.
 */
export const linkSsoSubject = async (
  user: Pick<UserRecord, 'organizationId' | 'id' | 'email'>,
  link: { clientId: string; subject: string; verifiedEmail?: string | undefined },
  now = Date.now(),
): Promise<void> => {
  const organizationId = user.organizationId;
  const record: SsoLinkRecord = {
    organizationId,
    userId: user.id,
    clientId: link.clientId,
    subject: link.subject,
    linkedAt: now,
  };
  const taken = () => new SsoLinkTaken();
  await transact([
    create(SsoLinkEntity.item(record, record), taken),
    create(
      SsoSubjectEntity.item(
        { organizationId, clientId: link.clientId, subject: link.subject },
        { userId: user.id },
      ),
      taken,
    ),
    link.verifiedEmail !== undefined &&
      update(keys.user(organizationId, user.id), {
        update: 'SET verifiedEmail = :email',
        condition: 'attribute_exists(pk)',
        values: { ':email': link.verifiedEmail },
      }),
    ...(await auditWrites(
      {
        organizationId,
        action: 'ssoLink.created',
        actor: { type: 'user', id: user.id, name: user.email },
        targets: [userTarget(user), linkTarget(record)],
      },
      now,
    )),
  ]);
};

/**
 * The person's links, one per provider at most, in provider order; the first 100 (a link outlives
 * its provider's binding, but an organization has at most 50 providers at a time).
 */
export const listSsoLinks = async (orgId: string, userId: string): Promise<SsoLinkRecord[]> =>
  (await queryPartition(keys.organizationPartition(orgId), keys.ssoLinkPrefix(userId), { consistent: true }))
    .slice(0, MAX_LISTED)
    .map((item) => SsoLinkEntity.decode(item));

/**
 * The writes that unlink the person from each of `links` (as read), with their records: each
 * link's removal fails with `gone` when it changed or went meanwhile.
 */
export const unlinkWrites = async (
  user: Pick<UserRecord, 'organizationId' | 'id' | 'email'>,
  links: readonly SsoLinkRecord[],
  gone: (link: SsoLinkRecord) => Error,
  now = Date.now(),
): Promise<Write[]> => {
  const { organizationId } = user;
  const removals = links.flatMap((link) => [
    remove(
      SsoLinkEntity.key(link),
      { condition: 'subject = :subject', values: { ':subject': link.subject } },
      () => gone(link),
    ),
    remove(SsoSubjectEntity.key({ organizationId, clientId: link.clientId, subject: link.subject })),
  ]);
  const records = await Promise.all(
    links.map((link) =>
      auditWrites(
        { organizationId, action: 'ssoLink.removed', targets: [userTarget(user), linkTarget(link)] },
        now,
      ),
    ),
  );
  return [...removals, ...records.flat()];
};

/**
 * Unlinks the person from the provider (404 when not linked): their next sign-in through it is
 * matched by email again and links whoever the upstream says then.
 */
export const removeSsoLink = async (
  user: Pick<UserRecord, 'organizationId' | 'id' | 'email'>,
  clientId: string,
  now = Date.now(),
): Promise<void> => {
  const link = await SsoLinkEntity.get({ organizationId: user.organizationId, userId: user.id, clientId });
  const notLinked = () => new NotFound('SSO link', clientId);
  if (!link) throw notLinked();
  await transact(await unlinkWrites(user, [link], notLinked, now));
};
