import { describe, expect, it } from 'vitest';
import {
  beyondCallerMessage,
  clientSecretShownTo,
  permissionsBeyond,
  policiesBeyond,
  takeoverTypeRefusal,
  userTypeRefusal,
} from '../../shared/domain/access-ceiling.js';
import { ALL_PERMISSION_IDS, MANAGED_ROLES } from '../../shared/domain/permission-catalogue.js';

describe('permissionsBeyond', () => {
  const held = new Set(['USER.LIST', 'USER.DETAILS']);

  it('answers nothing for what the caller holds, or for nothing given', () => {
    expect(permissionsBeyond(held, ['USER.LIST'])).toEqual([]);
    expect(permissionsBeyond(held, [])).toEqual([]);
    expect(permissionsBeyond(new Set(), [])).toEqual([]);
  });

  it('answers each permission given that is not held, once, sorted', () => {
    expect(permissionsBeyond(held, ['SCIM.ADMIN', 'USER.LIST', 'AUDIT.READ', 'SCIM.ADMIN'])).toEqual([
      'AUDIT.READ',
      'SCIM.ADMIN',
    ]);
  });
});

describe('reading the client list (every client secret)', () => {
  it('gives every permission: only a caller holding all may give API_CLIENTS.READ', () => {
    const all = new Set(ALL_PERMISSION_IDS);
    expect(permissionsBeyond(all, ['API_CLIENTS.READ'])).toEqual([]);
    const allButOne = new Set(ALL_PERMISSION_IDS.filter((id) => id !== 'AUDIT.READ'));
    expect(permissionsBeyond(allButOne, ['API_CLIENTS.READ'])).toEqual(['AUDIT.READ']);
    // Positive control: the same caller gives the other readers.
    expect(permissionsBeyond(allButOne, ['API_CLIENTS.WRITE', 'USER.LIST'])).toEqual([]);
  });

  it('is in no managed role but administrator', () => {
    const holders = MANAGED_ROLES.filter((role) => role.permissions.includes('API_CLIENTS.READ'));
    expect(holders.map((role) => role.id)).toEqual(['administrator']);
  });

  it('shows a RESTRICTED caller only the secrets of RESTRICTED clients within its policies, a STANDARD one all', () => {
    const restricted = { userType: 'RESTRICTED' as const, policies: ['p1'] };
    const standard = { userType: 'STANDARD' as const, policies: [] };
    expect(clientSecretShownTo(restricted, { clientType: 'RESTRICTED', policies: ['p1'] })).toBe(true);
    expect(clientSecretShownTo(restricted, { clientType: 'RESTRICTED', policies: ['p1', 'p2'] })).toBe(false);
    expect(clientSecretShownTo(restricted, { clientType: 'STANDARD', policies: [] })).toBe(false);
    expect(clientSecretShownTo(standard, { clientType: 'STANDARD', policies: [] })).toBe(true);
    expect(clientSecretShownTo(standard, { clientType: 'RESTRICTED', policies: ['p2'] })).toBe(true);
  });
});

describe('policiesBeyond', () => {
  it('answers, for a RESTRICTED caller, each policy given that its token lacks, once, sorted', () => {
    const restricted = { userType: 'RESTRICTED' as const, policies: ['p1'] };
    expect(policiesBeyond(restricted, ['p1'])).toEqual([]);
    expect(policiesBeyond(restricted, [])).toEqual([]);
    expect(policiesBeyond(restricted, ['p3', 'p1', 'p2', 'p3'])).toEqual(['p2', 'p3']);
  });

  it('answers nothing for a STANDARD caller, whom no policy bounds', () => {
    expect(policiesBeyond({ userType: 'STANDARD', policies: [] }, ['p1', 'p2'])).toEqual([]);
  });
});

describe('beyondCallerMessage', () => {
  it('names policies when they are what is beyond', () => {
    expect(beyondCallerMessage('Granting this policy', ['p2'], 'policies')).toBe(
      'Granting this policy would give policies the caller does not hold: p2',
    );
  });

  it('names up to five permissions, then how many more', () => {
    expect(beyondCallerMessage('Granting this role', ['A.B'])).toBe(
      'Granting this role would give permissions the caller does not hold: A.B',
    );
    const seven = ['A.A', 'A.B', 'A.C', 'A.D', 'A.E', 'A.F', 'A.G'];
    expect(beyondCallerMessage('This role', seven)).toBe(
      'This role would give permissions the caller does not hold: A.A, A.B, A.C, A.D, A.E and 2 more',
    );
  });
});

describe('userTypeRefusal', () => {
  const standard = { id: 'me', userType: 'STANDARD' as const };
  const restricted = { id: 'me', userType: 'RESTRICTED' as const };

  it('refuses a change of one’s own type, whichever type', () => {
    for (const caller of [standard, restricted])
      for (const wanted of ['STANDARD', 'RESTRICTED'] as const)
        expect(userTypeRefusal(caller, 'me', wanted)).toBe('No one changes their own user type');
  });

  it('refuses a RESTRICTED caller making anyone STANDARD, and nothing else', () => {
    expect(userTypeRefusal(restricted, 'other', 'STANDARD')).toBe(
      'A RESTRICTED caller cannot make a STANDARD user or client',
    );
    expect(userTypeRefusal(restricted, undefined, 'STANDARD')).toBeDefined();
    expect(userTypeRefusal(restricted, 'other', 'RESTRICTED')).toBeUndefined();
    expect(userTypeRefusal(standard, 'other', 'STANDARD')).toBeUndefined();
    expect(userTypeRefusal(standard, undefined, 'RESTRICTED')).toBeUndefined();
  });
});

describe('takeoverTypeRefusal', () => {
  it('refuses only a RESTRICTED caller acting on a STANDARD user or client', () => {
    expect(takeoverTypeRefusal('RESTRICTED', 'STANDARD')).toBe(
      'A RESTRICTED caller cannot change a STANDARD user or client',
    );
    expect(takeoverTypeRefusal('RESTRICTED', 'RESTRICTED')).toBeUndefined();
    expect(takeoverTypeRefusal('STANDARD', 'STANDARD')).toBeUndefined();
    expect(takeoverTypeRefusal('STANDARD', 'RESTRICTED')).toBeUndefined();
  });
});
