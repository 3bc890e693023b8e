import { createHash } from 'node:crypto';
import { Conflict, NotFound } from '../domain/errors.js';
import * as z from '../zod.js';
import { auditWrites } from './audit-records.js';
import { defineEntity } from './entity.js';
import { keys } from './keys.js';
import { queryPartition } from './query.js';
import { type UserRecord, userTarget, versioned } from './user-repository.js';
import {
  assignments,
  check,
  concurrentChange,
  create,
  remove,
  retryOnConcurrentChange,
  transact,
  update,
  type Write,
} from './writes.js';

/**
 * A person's upstream identity at an SSO provider (OpenID Connect Core 5.7: `iss` and `sub` are
 * the only stable identifier), pinned at their first federated sign-in. From then on the provider
 * signs in whoever holds that subject, whatever email the upstream says, and nobody else into
 * this account: an upstream that gives the person's address to someone else cannot hand them
 * the account (docs/single-sign-on.md). Kept per provider, as an upstream may give each client
 * its own subjects (pairwise identifiers, Core 8), and with the provider's issuer: a subject of
 * another issuer is another person's, should the operator point the provider elsewhere.
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
      /** The provider's issuer when it was linked. */
      issuer: z.string(),
      /** The upstream's `sub`: an identifier, not a secret. */
      subject: z.string(),
      /** Epoch ms. */
      linkedAt: z.number(),
    }),
});
export type SsoLinkRecord = z.output<typeof SsoLinkEntity.attributes>;

/** An upstream identity: the subject as one issuer gives it to one provider. */
export interface UpstreamSubject {
  clientId: string;
  issuer: string;
  subject: string;
}

/** Whose an upstream subject is, for the sign-in that brings it. */
const SsoSubjectEntity = defineEntity({
  name: 'SSO link',
  // Neither an issuer (a URL) nor a subject (printable ASCII) holds a line break.
  key: ({ organizationId, clientId, issuer, subject }: UpstreamSubject & { organizationId: string }) =>
    keys.ssoSubject(
      organizationId,
      clientId,
      createHash('sha256').update(`${issuer}\n${subject}`).digest('hex'),
    ),
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

/** The person the upstream subject is linked to, if anyone (strongly consistent). */
export const linkedUserId = async (orgId: string, upstream: UpstreamSubject) =>
  (await SsoSubjectEntity.get({ organizationId: orgId, ...upstream }))?.userId;

/** A link's condition: it is still the one read, of the same issuer and subject. */
const AS_READ = 'issuer = :readIssuer AND subject = :readSubject';
const asRead = (link: SsoLinkRecord) => ({ ':readIssuer': link.issuer, ':readSubject': link.subject });

/** A link the provider's issuer has changed since: the person is matched and linked anew. */
class LinkOfAnotherIssuer extends Error {
  constructor(readonly link: SsoLinkRecord) {
    super('The SSO link was made with another issuer');
  }
}

/**
 * Links the subject to the person in one transaction, refused with {@link SsoLinkTaken} when either
 * side is linked already (a concurrent first sign-in included), and with ConcurrentChange when the
 * person changed since `user` was read (deactivated, deleted by a directory and brought back, a
 * new email): the match is made again. A link of the provider's former issuer is replaced.
 * `verifiedEmail` rides along, as the provider vouched for the address the person was matched by.
 */
export const linkSsoSubject = async (
  user: Pick<UserRecord, 'organizationId' | 'id' | 'email' | 'version'>,
  upstream: UpstreamSubject & { verifiedEmail?: string | undefined },
  now = Date.now(),
): Promise<void> => {
  const { organizationId } = user;
  const { verifiedEmail, ...identity } = upstream;
  const record: SsoLinkRecord = { organizationId, userId: user.id, ...identity, linkedAt: now };
  const taken = () => new SsoLinkTaken();
  const link = (replacing?: SsoLinkRecord) => {
    const assigned = assignments(record, 'l');
    return update(
      SsoLinkEntity.key(record),
      {
        update: `SET ${assigned.update}`,
        condition: replacing ? AS_READ : 'attribute_not_exists(pk)',
        names: assigned.names,
        values: { ...assigned.values, ...(replacing ? asRead(replacing) : {}) },
        seeItemOnFailure: true,
      },
      (seen) => {
        const found = seen && SsoLinkEntity.decode(seen);
        return !replacing && found && found.issuer !== identity.issuer
          ? new LinkOfAnotherIssuer(found)
          : taken();
      },
    );
  };
  const attempt = async (replacing?: SsoLinkRecord) =>
    transact([
      link(replacing),
      replacing && remove(SsoSubjectEntity.key(replacing)),
      create(SsoSubjectEntity.item({ organizationId, ...identity }, { userId: user.id }), taken),
      verifiedEmail === undefined
        ? check(
            keys.user(organizationId, user.id),
            { condition: 'version = :version', values: { ':version': user.version } },
            concurrentChange,
          )
        : versioned(user, { update: 'SET verifiedEmail = :email', values: { ':email': verifiedEmail } }),
      ...(replacing
        ? await auditWrites(
            { organizationId, action: 'ssoLink.removed', targets: [userTarget(user), linkTarget(replacing)] },
            now,
          )
        : []),
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
  try {
    await attempt();
  } catch (error) {
    if (!(error instanceof LinkOfAnotherIssuer)) throw error;
    await attempt(error.link);
  }
};

/** The person's links, one per provider at most, in provider order. */
export const listSsoLinks = async (orgId: string, userId: string): Promise<SsoLinkRecord[]> =>
  (
    await queryPartition(keys.organizationPartition(orgId), keys.ssoLinkPrefix(userId), { consistent: true })
  ).map((item) => SsoLinkEntity.decode(item));

/**
 * The writes that unlink the person from each of `links` (as read: the same issuer and subject),
 * with their records; a link that changed or went meanwhile fails with `gone`.
 */
const unlinkWrites = async (
  user: Pick<UserRecord, 'organizationId' | 'id' | 'email'>,
  links: readonly SsoLinkRecord[],
  gone: () => Error,
  now = Date.now(),
): Promise<Write[]> => {
  const { organizationId } = user;
  const removals = links.flatMap((link) => [
    remove(SsoLinkEntity.key(link), { condition: AS_READ, values: asRead(link) }, gone),
    remove(SsoSubjectEntity.key(link)),
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
 * Unlinks the person from `links` as read, in one transaction; a link that changed or went
 * meanwhile fails it with `gone` (and nothing is unlinked).
 */
export const removeSsoLinks = async (
  user: Pick<UserRecord, 'organizationId' | 'id' | 'email'>,
  links: readonly SsoLinkRecord[],
  gone: () => Error,
  now = Date.now(),
) => transact(await unlinkWrites(user, links, gone, now));

/** Links unlinked per transaction: four items each (two deletes, the record and its copy) stay within 100. */
const UNLINKS_PER_TRANSACTION = 20;

/**
 * Unlinks the person from every provider, a transaction per 20 links: what a directory that
 * provisions a deleted person's address again does first (the address may be someone else's now).
 * Nobody links a deprovisioned person meanwhile (linkSsoSubject checks the person as read).
 */
export const removeAllSsoLinks = (user: Pick<UserRecord, 'organizationId' | 'id' | 'email'>) =>
  retryOnConcurrentChange(async () => {
    const links = await listSsoLinks(user.organizationId, user.id);
    for (let first = 0; first < links.length; first += UNLINKS_PER_TRANSACTION) {
      await removeSsoLinks(user, links.slice(first, first + UNLINKS_PER_TRANSACTION), concurrentChange);
    }
  });

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
  await removeSsoLinks(user, [link], notLinked, now);
};
