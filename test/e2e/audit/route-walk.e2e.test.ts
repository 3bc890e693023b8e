import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../../shared/api/routes.js';
import type { AuditRecord } from '../../../shared/audit/record.js';
import { type ClientCaller, useFixture, useService } from '../../support/service.js';
import { CLIENTS_CALLS } from './walk/clients.js';
import { ORGANIZATIONS_CALLS } from './walk/organizations.js';
import { POLICIES_CALLS } from './walk/policies.js';
import { ROLES_CALLS } from './walk/roles.js';
import { SCIM_TOKENS_CALLS } from './walk/scim-tokens.js';
import { SSO_CALLS } from './walk/sso.js';
import { USER_GROUPS_CALLS } from './walk/user-groups.js';
import { USER_PASSWORDS_CALLS } from './walk/user-passwords.js';
import { USER_PICTURES_CALLS } from './walk/user-pictures.js';
import { USERS_CALLS } from './walk/users.js';
import type { WalkCall } from './walk/walk-call.js';

/**
 * Walks the route table: every write route names its audit actions, and one valid call of it
 * leaves exactly one success record with its action, the caller as actor, and what it acted on
 * among the targets. A new write route fails here until it names its actions and has its call.
 */
const service = useService();

/** Every group's calls, by operationId (walk/<group>.ts). */
const CALLS: Record<string, WalkCall<never>> = {
  ...USERS_CALLS,
  ...USER_PICTURES_CALLS,
  ...USER_PASSWORDS_CALLS,
  ...ROLES_CALLS,
  ...POLICIES_CALLS,
  ...USER_GROUPS_CALLS,
  ...CLIENTS_CALLS,
  ...SSO_CALLS,
  ...ORGANIZATIONS_CALLS,
  ...SCIM_TOKENS_CALLS,
};

const WRITES = ROUTES.filter((route) => route.kind === 'management' && route.method !== 'GET');

const records = async (org: ClientCaller): Promise<AuditRecord[]> => {
  const answer = await service.call<AuditRecord[]>('GET', '/idp/auditEvents?limit=1000', {
    token: org.token,
  });
  expect(answer.status).toBe(200);
  return answer.body;
};

describe('the route table, walked', () => {
  const walked = useFixture(() => service.freshOrganization());

  it('has a call for every write route, and every write route names its actions', () => {
    expect(WRITES.filter((route) => route.audit === undefined).map((route) => route.operationId)).toEqual([]);
    expect(Object.keys(CALLS).sort()).toEqual(WRITES.map((route) => route.operationId).sort());
  });

  for (const route of WRITES) {
    const actions = route.audit ?? [];
    it(`${route.operationId} (${route.method} ${route.path}) records ${actions.join(' or ') || 'nothing'}`, async () => {
      const call = CALLS[route.operationId] as unknown as WalkCall<Record<string, string>>;
      // One organization for the whole walk: each call's records are told apart by what was there before.
      const org = walked;
      const made = (await call.prepare?.(service, org)) ?? {};
      const before = new Set((await records(org)).map((record) => record.id));
      const caller = call.as?.(made) ?? {
        token: org.token,
        actor: { type: 'client', id: org.principalId },
      };
      const answer = await service.call(route.method, call.path(made, org), {
        token: caller.token,
        ...(call.body ? { body: call.body(made, org) } : {}),
        ...(call.form ? { form: call.form(made, org) } : {}),
      });
      expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
      const added = (await records(org)).filter((record) => !before.has(record.id));
      if (actions.length === 0) {
        expect(added).toEqual([]);
        return;
      }
      expect(added).toHaveLength(1);
      const [record] = added as [AuditRecord];
      expect(record.outcome).toBe('success');
      expect(record.action).toBe(call.action ?? actions[0]);
      expect(actions).toContain(record.action);
      expect(record.actor).toMatchObject(caller.actor);
      expect(record.targets.map((target) => target.id)).toContain(call.target?.(made, answer));
    });
  }
});
