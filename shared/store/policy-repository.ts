import { randomUUID } from 'node:crypto';
import { changesBetween } from '../audit/changes.js';
import { Conflict, NotFound } from '../domain/errors.js';
import { MAX_POLICIES_PER_ORGANIZATION } from '../domain/limits.js';
import { archive } from './archive.js';
import { auditWrites } from './audit-records.js';
import { PolicyEntity, PolicyNameGuardEntity, type PolicyRecord } from './entities.js';
import { keys } from './keys.js';
import { queryListingPrefix } from './query.js';
import {
  concurrentChange,
  guard,
  IS_LIVE,
  put,
  remove,
  retryOnConcurrentChange,
  transact,
  update,
} from './writes.js';

export type { PolicyRecord } from './entities.js';

const nameGuard = (orgId: string, name: string, policyId: string) =>
  guard(
    PolicyNameGuardEntity.key({ organizationId: orgId, name }),
    { policyId },
    () => new Conflict('Policy', 'A policy with this name already exists'),
  );

/** A policy as the audit log names it. */
const policyTarget = (policy: Pick<PolicyRecord, 'id' | 'name'>) => ({
  type: 'policy',
  id: policy.id,
  name: policy.name,
});

/** Creates a policy and its name guard (unique among policies that are not archived: a conflict). */
export const createPolicy = async (
  input: { organizationId: string; name: string; createdBy: string },
  now = Date.now(),
): Promise<PolicyRecord> => {
  const policy: PolicyRecord = {
    id: randomUUID(),
    ...input,
    archived: false,
    createdAt: now,
    updatedAt: now,
  };
  const { organizationId: _org, ...audited } = policy;
  await transact([
    ...(await auditWrites(
      {
        organizationId: policy.organizationId,
        action: 'policy.created',
        targets: [policyTarget(policy)],
        changes: changesBetween(undefined, audited),
      },
      now,
    )),
    put(PolicyEntity.item(policy, policy)),
    nameGuard(policy.organizationId, policy.name, policy.id),
    update(
      keys.organization(policy.organizationId),
      {
        update: 'ADD livePolicies :one',
        condition: 'attribute_not_exists(livePolicies) OR livePolicies < :max',
        values: { ':one': 1, ':max': MAX_POLICIES_PER_ORGANIZATION },
      },
      () =>
        new Conflict(
          'Policy',
          `An organization has at most ${MAX_POLICIES_PER_ORGANIZATION} policies; archive one first`,
        ),
    ),
  ]);
  return policy;
};

/** Every policy that is not archived, oldest first: one Query of the listing (paged by DynamoDB only). */
export const listPolicies = async (orgId: string): Promise<PolicyRecord[]> =>
  (await queryListingPrefix(orgId, keys.policyListingPrefix)).map(PolicyEntity.decode);

export const requirePolicy = async (orgId: string, policyId: string): Promise<PolicyRecord> => {
  const policy = await PolicyEntity.get({ organizationId: orgId, id: policyId });
  if (!policy || policy.archived) throw new NotFound('Policy', policyId);
  return policy;
};

/** Renames the policy and moves its name guard in one transaction (a conflict when the name is taken). */
export const renamePolicy = (orgId: string, policyId: string, name: string, now = Date.now()) =>
  retryOnConcurrentChange(async () => {
    const policy = await requirePolicy(orgId, policyId);
    if (policy.name === name) return;
    const guardMoves = policy.name.toLowerCase() !== name.toLowerCase();
    await transact([
      ...(await auditWrites(
        {
          organizationId: orgId,
          action: 'policy.updated',
          targets: [policyTarget({ id: policyId, name })],
          changes: changesBetween({ name: policy.name }, { name }),
        },
        now,
      )),
      update(
        keys.policy(orgId, policyId),
        {
          update: 'SET #name = :name, updatedAt = :now',
          // The name read above is still the name: nobody renamed or archived it since.
          condition: `#name = :previous AND ${IS_LIVE}`,
          names: { '#name': 'name' },
          values: { ':name': name, ':previous': policy.name, ':now': now, ':false': false },
        },
        concurrentChange,
      ),
      guardMoves && nameGuard(orgId, name, policyId),
      guardMoves && remove(PolicyNameGuardEntity.key({ organizationId: orgId, name: policy.name })),
    ]);
  });

/** Archives the policy: unlisted, unreadable, its name free, its id hidden in references. */
export const archivePolicy = (orgId: string, policyId: string): Promise<void> =>
  retryOnConcurrentChange(async () => {
    const policy = await requirePolicy(orgId, policyId);
    await archive(
      orgId,
      { entity: 'Policy', key: keys.policy(orgId, policyId), id: policyId },
      {
        key: PolicyNameGuardEntity.key({ organizationId: orgId, name: policy.name }),
        idAttribute: 'policyId',
      },
      await auditWrites({
        organizationId: orgId,
        action: 'policy.archived',
        targets: [policyTarget(policy)],
        changes: changesBetween({ archived: false }, { archived: true }),
      }),
    );
  });
