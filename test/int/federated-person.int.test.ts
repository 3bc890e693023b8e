import { describe, expect, it } from 'vitest';
import { federatedPerson } from '../../shared/auth/federation/federated-person.js';
import type { UpstreamIdentity } from '../../shared/auth/federation/upstream.js';
import { listSsoLinks } from '../../shared/store/sso-links.js';
import type { SsoProvider } from '../../shared/store/sso-provider-repository.js';
import {
  createUser,
  findUserByEmail,
  getUser,
  setUserStatus,
  updateUserProfile,
} from '../../shared/store/user-repository.js';
import { useDatabase } from '../support/database.js';
import { createTestOrganization, uniqueEmail } from '../support/records.js';

/**
 * Who an upstream's answer signs in (shared/auth/federation/federated-person.ts), against the
 * store: the link first, then the verified email; an inactive person is neither linked nor
 * vouched for; a person created just in time is linked; two sign-ins of one person at once both
 * sign them in.
 */

useDatabase();

const ISSUER = 'https://login.corp.example';
const provider = (organizationId: string, settings: Partial<SsoProvider> = {}): SsoProvider => ({
  clientId: 'corp-login',
  clientSecretExpirationDate: 0,
  organizationIds: [organizationId],
  issuer: ISSUER,
  // The domain of the people below (uniqueEmail): a provider vouches only for its own domains.
  emailDomains: ['example.com'],
  createdAt: 0,
  createdBy: 'test',
  updatedAt: 0,
  updatedBy: 'test',
  version: 1,
  ...settings,
});
const identity = (email: string, subject: string): UpstreamIdentity => ({
  issuer: ISSUER,
  subject,
  email,
  emailVerified: true,
  name: 'Upstream Person',
  amr: ['pwd'],
  authTime: undefined,
});

const organization = async () => {
  const { id, name } = await createTestOrganization();
  return { organizationId: id, organizationName: name };
};
const person = async (organizationId: string, email = uniqueEmail('federated')) =>
  (await createUser({ organizationId, email, name: 'Person', userType: 'STANDARD', createdBy: 'test' })).user;

const signIn = (
  target: { organizationId: string; organizationName: string },
  upstream: UpstreamIdentity,
  settings?: Partial<SsoProvider>,
) => federatedPerson(upstream, provider(target.organizationId, settings), target, []);

describe('the person an upstream answer signs in', () => {
  it('refuses a linked person who is inactive, and vouches for nothing then', async () => {
    const target = await organization();
    const ada = await person(target.organizationId);
    expect(await signIn(target, identity(ada.email, 'ada'))).toMatchObject({ person: { userId: ada.id } });
    const moved = uniqueEmail('moved');
    await updateUserProfile(target.organizationId, ada.id, { name: 'Ada', email: moved });
    await setUserStatus(target.organizationId, ada.id, 'INACTIVE');

    expect(await signIn(target, identity(moved, 'ada'))).toMatchObject({
      refusal: 'inactive',
      user: { id: ada.id },
    });
    expect((await getUser(target.organizationId, ada.id, true))?.verifiedEmail).toBe(ada.email);
    // Positive control: active again, the same answer signs her in and vouches for the new address.
    await setUserStatus(target.organizationId, ada.id, 'ACTIVE');
    expect(await signIn(target, identity(moved, 'ada'))).toMatchObject({ person: { userId: ada.id } });
    expect((await getUser(target.organizationId, ada.id, true))?.verifiedEmail).toBe(moved);
  });

  it('links a person matched by email only while they are active', async () => {
    const target = await organization();
    const [active, inactive] = [await person(target.organizationId), await person(target.organizationId)];
    await setUserStatus(target.organizationId, inactive.id, 'INACTIVE');
    expect(await signIn(target, identity(active.email, 'active'))).toMatchObject({
      person: { userId: active.id },
    });
    expect(await signIn(target, identity(inactive.email, 'inactive'))).toMatchObject({ refusal: 'inactive' });
    expect(await listSsoLinks(target.organizationId, active.id)).toHaveLength(1);
    expect(await listSsoLinks(target.organizationId, inactive.id)).toEqual([]);
  });

  it('links a person created just in time', async () => {
    const target = await organization();
    const email = uniqueEmail('newcomer').replace('@example.com', '@corp.example');
    const jit = { jitProvisioning: true, emailDomains: ['corp.example'] };
    const outcome = await signIn(target, identity(email, 'newcomer'), jit);
    const created = await findUserByEmail(target.organizationId, email);
    expect(outcome).toMatchObject({ person: { userId: created?.id } });
    expect(await listSsoLinks(target.organizationId, created?.id ?? '')).toEqual([
      expect.objectContaining({ clientId: 'corp-login', issuer: ISSUER, subject: 'newcomer' }),
    ]);
  });

  it('names a person created just in time by the first 200 characters of a longer name, never half an emoji', async () => {
    const target = await organization();
    const jit = { jitProvisioning: true, emailDomains: ['corp.example'] };
    const nameGiven = async (name: string) => {
      const email = uniqueEmail('named').replace('@example.com', '@corp.example');
      await signIn(target, { ...identity(email, email), name }, jit);
      return (await findUserByEmail(target.organizationId, email))?.name;
    };
    const long = `${'Long name '.repeat(20)}${'x'.repeat(4800)}`;
    expect(await nameGiven('N'.repeat(200))).toBe('N'.repeat(200));
    expect(await nameGiven('N'.repeat(501))).toBe('N'.repeat(200));
    expect(await nameGiven(long)).toBe(long.slice(0, 200).trim());
    // An emoji is two UTF-16 units: one that would end past the 200th unit is left out whole.
    expect(await nameGiven(`${'a'.repeat(199)}😀`)).toBe('a'.repeat(199));
    expect(await nameGiven('😀'.repeat(150))).toBe('😀'.repeat(100));
  });

  it('signs one person in from two sign-ins at once (two tabs), linking them once', async () => {
    const target = await organization();
    const grace = await person(target.organizationId);
    const outcomes = await Promise.all([1, 2].map(() => signIn(target, identity(grace.email, 'grace'))));
    expect(outcomes).toEqual(
      [1, 2].map(() => expect.objectContaining({ person: expect.objectContaining({ userId: grace.id }) })),
    );
    expect(await listSsoLinks(target.organizationId, grace.id)).toHaveLength(1);
  });
});
