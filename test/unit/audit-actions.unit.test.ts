import { decodeTime, isValid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS, actionFilter, isAuditAction, namespaceOf } from '../../shared/audit/actions.js';
import { type AuditActor, type AuditEvent, auditRecord, SYSTEM_ACTOR } from '../../shared/audit/record.js';
import { auditScope, withAuditScope } from '../../shared/audit/scope.js';

describe('actionFilter', () => {
  it('takes an action of the log as an exact filter', () => {
    expect(actionFilter('user.created')).toEqual({ exact: 'user.created' });
    expect(actionFilter('user.role.granted')).toEqual({ exact: 'user.role.granted' });
    for (const action of AUDIT_ACTIONS) expect(actionFilter(action)).toEqual({ exact: action });
  });

  it('takes a prefix ending in a dot that some action starts with, at any depth', () => {
    expect(actionFilter('user.')).toEqual({ prefix: 'user.' });
    expect(actionFilter('user.role.')).toEqual({ prefix: 'user.role.' });
    expect(actionFilter('password.reset.')).toEqual({ prefix: 'password.reset.' });
  });

  it('refuses an unknown action, a prefix no action starts with, a prefix without its dot, and nothing', () => {
    for (const filter of [
      'user.deleted',
      'User.created',
      'user.created ',
      'nobody.',
      'user.rol.',
      'user.role',
      'user',
      '.',
      '',
    ]) {
      expect(actionFilter(filter), JSON.stringify(filter)).toBeUndefined();
    }
  });

  it('knows exactly the listed actions', () => {
    expect(isAuditAction('group.created')).toBe(true);
    expect(isAuditAction('group.')).toBe(false);
    expect(new Set(AUDIT_ACTIONS).size).toBe(AUDIT_ACTIONS.length);
  });
});

describe('namespaceOf', () => {
  it('is the first segment of an action or a prefix, with its dot', () => {
    expect(namespaceOf('user.created')).toBe('user.');
    expect(namespaceOf('user.role.granted')).toBe('user.');
    expect(namespaceOf('user.role.')).toBe('user.');
    expect(namespaceOf('user.')).toBe('user.');
    expect(namespaceOf('sso.provider.secret.updated')).toBe('sso.');
  });

  it('names a namespace every action of which starts with it', () => {
    for (const action of AUDIT_ACTIONS) {
      expect(action.startsWith(namespaceOf(action))).toBe(true);
      expect(actionFilter(namespaceOf(action))).toEqual({ prefix: namespaceOf(action) });
    }
  });
});

describe('auditRecord', () => {
  const now = 1_790_000_000_123;
  const admin: AuditActor = {
    type: 'user',
    id: 'admin-1',
    name: 'Admin',
    ip: '198.51.100.7',
    userAgent: 'Browser/1',
  };
  const event: AuditEvent = {
    organizationId: 'org-1',
    action: 'user.updated',
    targets: [{ type: 'user', id: 'user-1', name: 'ann@x.io' }],
    changes: { name: { from: 'Ann', to: 'Anne' } },
  };

  it('records the event by the scope actor, a success by default, at `now`', () => {
    const record = auditRecord(event, { actor: admin }, now);
    expect(record).toEqual({
      id: record.id,
      organizationId: 'org-1',
      time: now,
      action: 'user.updated',
      actor: admin,
      targets: event.targets,
      outcome: 'success',
      changes: event.changes,
    });
  });

  it('keeps an outcome the event names', () => {
    expect(auditRecord({ ...event, outcome: 'failure' }, { actor: admin }, now).outcome).toBe('failure');
    expect(auditRecord({ ...event, outcome: 'denied' }, { actor: admin }, now).outcome).toBe('denied');
  });

  it('has a ULID id whose time is the record time, unique per record', () => {
    const records = Array.from({ length: 50 }, () => auditRecord(event, { actor: admin }, now));
    for (const record of records) {
      expect(isValid(record.id)).toBe(true);
      expect(decodeTime(record.id)).toBe(record.time);
    }
    expect(new Set(records.map((record) => record.id)).size).toBe(50);
    const later = auditRecord(event, { actor: admin }, now + 1);
    expect(records.every((record) => record.id < later.id)).toBe(true);
  });

  it('leaves out empty changes and details the event does not give', () => {
    const record = auditRecord({ ...event, changes: {}, reason: undefined }, { actor: admin }, now);
    expect(record).not.toHaveProperty('changes');
    expect(record).not.toHaveProperty('reason');
    expect(record).not.toHaveProperty('requestId');
    expect(auditRecord({ ...event, changes: undefined }, { actor: admin }, now)).not.toHaveProperty(
      'changes',
    );
  });

  it('copies the reason, sign-in details, count and request id', () => {
    const record = auditRecord(
      {
        organizationId: 'org-1',
        action: 'signin.failed',
        targets: [],
        outcome: 'failure',
        reason: 'wrong password',
        signIn: { application: 'app-1', amr: ['pwd'] },
        count: 3,
      },
      { actor: admin, requestId: 'req-42' },
      now,
    );
    expect(record).toMatchObject({
      reason: 'wrong password',
      signIn: { application: 'app-1', amr: ['pwd'] },
      count: 3,
      requestId: 'req-42',
    });
  });

  it('takes an actor the event names over the scope, keeping the scope address and user agent', () => {
    const signIn = auditRecord(
      { ...event, action: 'signin.succeeded', actor: { type: 'user', id: 'user-1', name: 'ann@x.io' } },
      { actor: { type: 'system', id: 'idp', ip: '203.0.113.9', userAgent: 'Phone/2' } },
      now,
    );
    expect(signIn.actor).toEqual({
      type: 'user',
      id: 'user-1',
      name: 'ann@x.io',
      ip: '203.0.113.9',
      userAgent: 'Phone/2',
    });
  });
});

describe('audit scope', () => {
  it('is the system outside any scope, and the given actor inside one, across awaits', async () => {
    expect(auditScope()).toEqual({ actor: SYSTEM_ACTOR });
    const scope = { actor: { type: 'client', id: 'client-1' } as AuditActor, requestId: 'req-1' };
    const seen = await withAuditScope(scope, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return auditScope();
    });
    expect(seen).toBe(scope);
    expect(auditScope()).toEqual({ actor: SYSTEM_ACTOR });
  });

  it('keeps concurrent scopes apart', async () => {
    // Both scopes wait inside, and the first entered resumes last.
    const gate = () => {
      let resolve = () => {};
      const promise = new Promise<void>((done) => {
        resolve = done;
      });
      return { promise, resolve };
    };
    const gates = [gate(), gate()] as const;
    const inScope = (id: string, gate: Promise<void>) =>
      withAuditScope({ actor: { type: 'user', id } }, async () => {
        await gate;
        return auditScope().actor.id;
      });
    const answers = Promise.all([inScope('a', gates[0].promise), inScope('b', gates[1].promise)]);
    gates[1].resolve();
    gates[0].resolve();
    expect(await answers).toEqual(['a', 'b']);
  });
});
