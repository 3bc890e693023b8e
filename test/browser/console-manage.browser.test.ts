import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it, vi } from 'vitest';
import { consoleClientId, enableConsole } from '../../shared/console/console-application.js';
import { addPasskey } from '../../shared/store/passkeys.js';
import { assignPlugin, definePlugin } from '../../shared/store/plugin-repository.js';
import { createRole } from '../../shared/store/role-repository.js';
import { linkSsoSubject } from '../../shared/store/sso-links.js';
import { addUserToGroup } from '../../shared/store/user-grants.js';
import { createUser, getUser } from '../../shared/store/user-repository.js';
import { idFromLocation } from '../support/api.js';
import { auditTrail } from '../support/audit.js';
import { screenshotter, seriousAccessibilityViolations } from '../support/chromium.js';
import { consoleInChromium } from '../support/console-browser.js';
import { personWithPassword } from '../support/hosted-pages.js';
import { type ClientCaller, newRole, rolesApi, uniqueEmail, useService } from '../support/service.js';

/**
 * The console's pages for one user group, one role and one user's grants, and the policies
 * screen (docs/console.md), driven by a person holding the managed role `administrator`; each
 * change is read back through the API. Screenshots (IDP_TEST_SCREENSHOTS=1) in .tmp/screenshots/console-manage.
 */

const service = useService();
const shot = screenshotter('console-manage');
const chromium = consoleInChromium(() => `${service.baseUrl}/console/${admin.orgId}`);

let page: Page;
let admin: ClientCaller;
let administrator: { id: string; email: string };
const made = { group: '', role: '', plugin: '', user: '', policy: '', latecomers: '' };
const GROUP_MEMBERS = 21;
const grace = { email: uniqueEmail('grace') };

const api = <T = unknown>(method: string, path: string, body?: unknown) =>
  service.call<T>(method, path, { token: admin.token, ...(body === undefined ? {} : { body }) });

beforeAll(async () => {
  admin = await service.freshOrganization({ name: 'Acme Console Pages' });
  const person = await personWithPassword(admin.orgId);
  administrator = { id: person.id, email: person.email };
  made.plugin = `reports-${randomUUID()}`;
  const [granted, group, role, user, policy] = await Promise.all([
    api('PUT', `/idp/users/${person.id}/managedRoles/administrator`),
    api<{ userGroup: { id: string } }>('POST', '/idp/userGroups', { name: 'Night shift' }),
    newRole(rolesApi(service, admin.token), 'Reporters', ['USER.LIST']),
    service.createUser({ as: admin, email: grace.email, name: 'Grace Granted' }),
    api('POST', '/idp/policies', { name: 'Auditors' }),
    enableConsole(admin.orgId, 'test'),
    definePlugin({
      id: made.plugin,
      permissionDefinitions: [
        { id: `${made.plugin}-view`, module: 'reports', actionName: 'VIEW', description: 'See reports' },
        {
          id: `${made.plugin}-export`,
          module: 'reports',
          actionName: 'EXPORT',
          description: 'Export reports',
        },
      ],
      dependentPermissions: [],
    }).then(() => assignPlugin(admin.orgId, made.plugin)),
  ]);
  expect([granted.status, group.status, policy.status]).toEqual([204, 201, 204]);
  Object.assign(made, {
    group: group.body.userGroup.id,
    role,
    user,
    policy: idFromLocation(policy),
  });
  await Promise.all([
    getUser(admin.orgId, user).then((record) =>
      linkSsoSubject(record as NonNullable<typeof record>, {
        clientId: 'corp-login',
        issuer: 'https://login.corp.example',
        subject: 'grace-at-corp',
      }),
    ),
    addPasskey({
      organizationId: admin.orgId,
      userId: user,
      credentialId: `grace-${user}`,
      publicKey: 'pQECAyYgASFYIA',
      signCount: 0,
      backupEligible: true,
      backedUp: true,
      aaguid: '00000000-0000-0000-0000-000000000000',
      name: 'Grace’s laptop',
    }),
  ]);
  // More roles than the 100 the console once offered (its first page), the newest made last.
  await Promise.all(
    Array.from({ length: 100 }, (_, index) =>
      createRole({
        organizationId: admin.orgId,
        name: `Filler ${index}`,
        permissions: [],
        createdBy: 'test',
      }),
    ),
  );
  made.latecomers = await newRole(rolesApi(service, admin.token), 'Latecomers');
  // More members than a page shows (20), written straight to the table.
  await Promise.all(
    Array.from({ length: GROUP_MEMBERS }, async (_, index) => {
      const { user: member } = await createUser({
        organizationId: admin.orgId,
        email: uniqueEmail(`member-${String(index).padStart(2, '0')}`),
        name: `Member ${index}`,
        userType: 'STANDARD',
        createdBy: 'test',
      });
      await addUserToGroup(admin.orgId, member.id, made.group);
    }),
  );
});

const signedIn = async () => {
  page = await chromium.openPage();
  await chromium.signIn(administrator.email);
};

/** Opens a page of the console by its address, as a link or a reload would. */
const visit = (place: string) => page.evaluate(`location.hash = ${JSON.stringify(place)}`);
const status = () => page.getByRole('status').textContent();
const today = () => new Date().toISOString().slice(0, 10);
const held = (title: string) =>
  page.getByRole('list', { name: title, exact: true }).locator('li').allTextContents();

it('creates, renames and archives a policy', async () => {
  await signedIn();
  await chromium.openScreen('Policies');
  await page.getByLabel('Name').fill('Contractors');
  await page.getByRole('button', { name: 'Create policy' }).click();
  await expect.poll(status).toBe('Contractors was created.');
  await page.getByRole('button', { name: 'Rename Contractors' }).click();
  await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('rename-policy-title');
  await page.getByLabel('New name').fill('Contract staff');
  await page.getByRole('button', { name: 'Rename', exact: true }).click();
  await expect.poll(status).toBe('Contractors is now Contract staff.');
  await page.getByRole('cell', { name: 'Contract staff', exact: true }).waitFor();
  await shot(page, 'policies');
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
  await page.getByRole('button', { name: 'Archive Contract staff' }).click();
  // Archiving cannot be undone: the console asks first.
  await page.getByRole('alertdialog').getByRole('button', { name: 'Archive', exact: true }).click();
  await expect.poll(status).toBe('Contract staff was archived: it grants nothing any more.');
  const policies = await api<{ name: string }[]>('GET', '/idp/policies');
  expect(policies.body.map((policy) => policy.name)).toEqual(['Auditors']);
});

it('grants a user a managed role, a policy and the newest of 102 roles, and sets and removes their additional properties', async () => {
  await signedIn();
  await visit(`#/users/${made.user}`);
  await page.getByRole('heading', { name: 'Grace Granted', level: 1 }).waitFor();
  await page.getByLabel('Grant a managed role').selectOption('read-only');
  await page.getByRole('button', { name: 'Grant managed role' }).click();
  await expect.poll(status).toBe('read-only was granted.');
  expect(await held('Managed roles')).toEqual(['read-only Revoke managed role read-only']);
  // Every role is offered, the 102nd too.
  await page.getByLabel('Grant a role').selectOption('Latecomers');
  await page.getByRole('button', { name: 'Grant role' }).click();
  await expect.poll(status).toBe('Latecomers was granted.');
  expect(await held('Roles')).toEqual(['Latecomers Revoke role Latecomers']);
  await page.getByLabel('Grant a policy').selectOption('Auditors');
  await page.getByRole('button', { name: 'Grant policy' }).click();
  await expect.poll(status).toBe('Auditors was granted.');
  await page.getByRole('button', { name: 'Revoke policy Auditors' }).click();
  await expect.poll(status).toBe('Auditors was revoked.');
  expect(await held('Policies')).toEqual(['No policy.']);

  await page.getByLabel('Property to set').fill('costCentre');
  await page.getByLabel('Value').fill('4711');
  await page.getByRole('button', { name: 'Set property' }).click();
  await expect.poll(status).toBe('costCentre was set.');
  await expect.poll(() => page.locator('.note').last().textContent()).toContain('costCentre');
  // What is not a number is said before anything is sent.
  await page.getByLabel('Property to set').fill('level');
  await page.getByLabel('Value').fill('high');
  await page.getByLabel('As', { exact: true }).selectOption('Number');
  await page.getByRole('button', { name: 'Set property' }).click();
  await expect.poll(() => page.getByRole('alert').textContent()).toBe('level: "high" is not a number.');
  await shot(page, 'user-grants');
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
  await page.getByLabel('Property to remove').fill('costCentre');
  await page.getByRole('button', { name: 'Remove property' }).click();
  await expect.poll(status).toBe('costCentre was removed.');

  // Her sign-in methods: a passkey and an SSO link, each removable.
  expect(await held('Passkeys')).toEqual([
    `Grace’s laptop, added ${today()}, never used Remove passkey Grace’s laptop`,
  ]);
  expect(await held('Single sign-on links')).toEqual([
    `corp-login: grace-at-corp at https://login.corp.example, since ${today()} Unlink corp-login`,
  ]);
  await page.getByRole('button', { name: 'Unlink corp-login' }).click();
  await expect
    .poll(status)
    .toBe('The link to corp-login was removed: the next sign-in through it links again.');
  expect(await held('Single sign-on links')).toEqual(['Not linked to any SSO provider.']);
  expect((await api('GET', `/idp/users/${made.user}/sso-links`)).body).toEqual([]);
  await page.getByRole('button', { name: 'Remove passkey Grace’s laptop' }).click();
  await expect.poll(status).toBe('The passkey Grace’s laptop was removed.');
  expect(await held('Passkeys')).toEqual(['No passkey.']);

  // The profile, the user type and the status: the spec's User has neither, the page finds both.
  const standing = () => page.locator('dl.standing dd').allTextContents();
  await expect.poll(standing).toEqual([grace.email, 'Active', 'Standard']);
  await page.getByLabel('Name', { exact: true }).fill('Grace Renamed');
  await page.getByRole('button', { name: 'Save profile' }).click();
  await expect.poll(status).toBe('The profile was saved.');
  await page.getByRole('heading', { name: 'Grace Renamed', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Sign out everywhere' }).click();
  await expect
    .poll(status)
    .toBe(`${grace.email} was signed out everywhere: each application asks them to sign in again.`);
  expect(
    (
      await api<{ action: string }[]>(
        'GET',
        `/idp/auditEvents?action=user.sessions.ended&targetId=${made.user}`,
      )
    ).body,
  ).toHaveLength(1);
  await page.getByRole('button', { name: 'Make restricted' }).click();
  await expect.poll(status).toBe(`${grace.email} is now a restricted user.`);
  await page.getByRole('button', { name: 'Deactivate' }).click();
  await expect.poll(status).toBe(`${grace.email} was deactivated: they can no longer sign in.`);
  expect(await standing()).toEqual([grace.email, 'Inactive: cannot sign in', 'Restricted']);
  // Read again from the API on a fresh visit.
  await page.reload();
  await expect.poll(standing).toEqual([grace.email, 'Inactive: cannot sign in', 'Restricted']);

  const user = await api<{ managedRoles: string[]; policies: string[] }>('GET', `/idp/users/${made.user}`);
  expect(user.body).toMatchObject({
    name: 'Grace Renamed',
    roles: [made.latecomers],
    managedRoles: ['read-only'],
    policies: [],
  });
  const records = await api<
    { action: string; changes?: Record<string, unknown>; actor: Record<string, unknown> }[]
  >('GET', '/idp/auditEvents?action=user.properties.');
  expect(records.body.map((record) => record.action)).toEqual([
    'user.properties.revoked',
    'user.properties.granted',
  ]);
  expect(JSON.stringify(records.body[1]?.changes)).toContain('4711');
  // The administrator acted through the console's application, and the record names both.
  expect(records.body[1]?.actor).toMatchObject({
    type: 'user',
    id: administrator.id,
    name: 'Person',
    clientId: consoleClientId(admin.orgId),
  });
});

it('edits a user group, assigns it a role, a managed role and a policy, and pages and changes its members', async () => {
  await signedIn();
  await chromium.openScreen('User groups');
  await page.getByRole('link', { name: 'Night shift' }).click();
  await page.getByRole('heading', { name: 'Night shift', level: 1 }).waitFor();
  await page.getByLabel('Description').fill('Covers 22:00 to 06:00');
  await page.getByLabel('Status').selectOption('INACTIVE');
  await page.getByRole('button', { name: 'Save group' }).click();
  await expect.poll(status).toBe('Night shift was saved.');

  await page.getByLabel('Grant a role').selectOption('Reporters');
  await page.getByRole('button', { name: 'Grant role' }).click();
  await expect.poll(status).toBe('Reporters was granted to the group.');
  await page.getByLabel('Grant a managed role').selectOption('read-only');
  await page.getByRole('button', { name: 'Grant managed role' }).click();
  await expect.poll(status).toBe('read-only was granted to the group.');
  await page.getByLabel('Grant a policy').selectOption('Auditors');
  await page.getByRole('button', { name: 'Grant policy' }).click();
  await expect.poll(status).toBe('Auditors was granted to the group.');

  // Members, a page of 20 at a time.
  const members = page.getByRole('table', { name: 'Members' }).locator('tbody tr');
  await expect.poll(() => members.count()).toBe(20);
  const pages = page.getByRole('navigation', { name: 'Members pages' });
  await pages.getByRole('button', { name: 'Next page' }).click();
  await expect.poll(() => members.count()).toBe(GROUP_MEMBERS - 20);
  expect(await pages.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
  await pages.getByRole('button', { name: 'Previous page' }).click();
  await expect.poll(() => members.count()).toBe(20);

  const joining = { email: uniqueEmail('newcomer'), id: '' };
  joining.id = await service.createUser({ as: admin, email: joining.email, name: 'Nadia Newcomer' });
  await page.getByLabel('Email of the user to add').fill(joining.email);
  await page.getByRole('button', { name: 'Add member' }).click();
  await expect.poll(status).toBe(`${joining.email} joined the group.`);
  await page.getByLabel('Email of the user to add').fill('nobody@example.com');
  await page.getByRole('button', { name: 'Add member' }).click();
  await expect
    .poll(() => page.getByRole('alert').textContent())
    .toBe('No user has the email nobody@example.com.');
  // Members are listed by id, so the newcomer may be on this page: someone else leaves.
  const leaving =
    (await members.filter({ hasNotText: joining.email }).first().locator('td').first().textContent()) ?? '';
  await page.getByRole('button', { name: `Remove ${leaving}` }).click();
  await expect.poll(status).toBe(`${leaving} left the group.`);
  await shot(page, 'group');
  expect(await seriousAccessibilityViolations(page)).toEqual([]);

  const group = await api<{ userGroup: Record<string, unknown> }>('GET', `/idp/userGroups/${made.group}`);
  expect(group.body.userGroup).toMatchObject({
    description: 'Covers 22:00 to 06:00',
    status: 'INACTIVE',
    roles: [made.role],
    managedRoles: ['read-only'],
    policies: [made.policy],
  });
  const joined = await api<{ userGroups: string[] }>('GET', `/idp/users/${joining.id}`);
  expect(joined.body.userGroups).toEqual([made.group]);
});

it("changes a role's permissions, seeing what they bring along, and its plugin permissions; managed roles are read-only", async () => {
  await signedIn();
  await chromium.openScreen('Roles');
  const managed = page.getByRole('table', { name: 'Managed roles' });
  await managed.getByRole('cell', { name: 'administrator', exact: true }).waitFor();
  // Read-only: what a row offers is to become the default role, nothing else.
  expect(await managed.getByRole('button').allTextContents()).toEqual([
    'Make administrator the default',
    'Make read-only the default',
    'Make user-manager the default',
  ]);
  await managed.getByRole('button', { name: 'Make read-only the default' }).click();
  await expect.poll(status).toBe('read-only is the default role: new users get it.');
  await managed.getByRole('cell', { name: 'read-only (default)' }).waitFor();
  await page.getByRole('button', { name: 'Clear the default role' }).click();
  await expect.poll(status).toBe('New users get no role.');
  expect((await api('GET', '/idp/getDefaultRole')).body).toEqual({ isStandardRole: null });
  await shot(page, 'roles-and-managed-roles');
  expect(await seriousAccessibilityViolations(page)).toEqual([]);

  await page.getByRole('link', { name: 'Reporters' }).click();
  await page.getByRole('heading', { name: 'Reporters', level: 1 }).waitFor();
  const userUpdate = page.getByRole('checkbox', { name: /^USER\.UPDATE / });
  // The catalogue's dependencies are shown beside each permission.
  expect(await page.locator('label', { has: userUpdate }).textContent()).toMatch(
    /brings along .*USER\.DETAILS/,
  );
  await userUpdate.check();
  await page.getByRole('button', { name: 'Save permissions', exact: true }).click();
  await expect.poll(status).toBe('The permissions of Reporters were saved.');
  await expect.poll(() => page.locator('.note').first().textContent()).toContain('USER.DETAILS');

  await page.getByRole('checkbox', { name: /^reports\.EXPORT/ }).check();
  await page.getByRole('button', { name: `Save permissions of ${made.plugin}` }).click();
  await expect.poll(status).toBe(`The permissions of plugin ${made.plugin} were saved.`);
  await shot(page, 'role');
  expect(await seriousAccessibilityViolations(page)).toEqual([]);

  const role = await api<{ permissions: string[] }>('GET', `/idp/roles/${made.role}`);
  expect(role.body.permissions).toEqual(['USER.LIST', 'USER.UPDATE']);
  const plugin = await api<{ pluginPermissions: string[] }>(
    'GET',
    `/idp/roles/${made.role}/plugin/${made.plugin}`,
  );
  expect(plugin.body.pluginPermissions).toEqual([`${made.plugin}-export`]);
});

it("changes an application's redirect URIs, algorithm and pushed requests, an API client's addresses, and a private_key_jwt client's keys", async () => {
  const [application, apiClient] = await Promise.all([
    api<{ id: string }>('POST', '/idp/clients', {
      name: 'Storefront',
      clientType: 'STANDARD',
      flowType: 'authorization_code',
      redirectUris: ['https://shop.example/callback'],
    }),
    api<{ id: string }>('POST', '/idp/clients', { name: 'Nightly export', clientType: 'STANDARD' }),
  ]);
  const registered = (id: string) => api<Record<string, unknown>>('GET', `/idp/clients/${id}`);
  const save = () => page.getByRole('button', { name: 'Save', exact: true }).click();
  const alert = () => page.getByRole('alert').textContent();
  await signedIn();
  const algorithm = page.getByLabel('ID tokens signed with', { exact: true });
  const pushedOnly = page.getByLabel('Sign-in requests must be pushed first (PAR, RFC 9126)');
  const redirects = page.getByLabel('Redirect URIs (one per line)');
  await chromium.openScreen('Clients');
  await page.getByRole('link', { name: 'Storefront', exact: true }).click();
  await page.getByRole('heading', { name: 'Storefront', level: 1 }).waitFor();
  expect(await algorithm.inputValue()).toBe('RS256');
  await redirects.fill('https://shop.example/callback\nhttps://shop.example/again');
  await algorithm.selectOption('ES256');
  await pushedOnly.check();
  await save();
  await expect.poll(status).toBe('Storefront was saved.');
  expect((await registered(application.body.id)).body).toMatchObject({
    redirectUris: ['https://shop.example/callback', 'https://shop.example/again'],
    idTokenSignedResponseAlg: 'ES256',
    requirePushedAuthorizationRequests: true,
  });
  // The form shows what was saved.
  await expect.poll(() => algorithm.inputValue()).toBe('ES256');
  expect(await pushedOnly.isChecked()).toBe(true);
  await shot(page, 'client-page');
  expect(await seriousAccessibilityViolations(page)).toEqual([]);

  // Only what changed is sent: nothing changed is refused in words, a rename changes the name alone.
  await save();
  await expect.poll(alert).toContain('Give at least one field to change');
  const since = Date.now();
  await page.getByLabel('Name', { exact: true }).fill('Storefront EU');
  await save();
  await expect.poll(status).toBe('Storefront EU was saved.');
  expect((await registered(application.body.id)).body).toMatchObject({ idTokenSignedResponseAlg: 'ES256' });
  const [renamed] = await auditTrail(admin.orgId, {
    action: 'client.updated',
    targetId: application.body.id,
    since,
  });
  expect(Object.keys(renamed?.changes ?? {}).filter((field) => !field.startsWith('lastModified'))).toEqual([
    'name',
  ]);
  // What the API refuses is said, and nothing changes: an application keeps a redirect URI.
  await redirects.fill('');
  await save();
  await expect.poll(alert).toContain('redirect URI');
  expect((await registered(application.body.id)).body.redirectUris).toHaveLength(2);

  await visit(`#/clients/${apiClient.body.id}`);
  await page.getByRole('heading', { name: 'Nightly export', level: 1 }).waitFor();
  expect(await page.getByLabel(/Redirect URIs/).count()).toBe(0);
  const addresses = page.getByLabel(/Used only from these addresses/);
  // Not an address though made of its characters: Node's isIP would refuse it, so does the page.
  await addresses.fill('10.0.0');
  await save();
  await expect.poll(alert).toContain('Must be an IPv4 or IPv6 address or CIDR block');
  await addresses.fill('203.0.113.0/24\n2001:db8::/32');
  await save();
  await expect.poll(status).toBe('Nightly export was saved.');
  expect((await registered(apiClient.body.id)).body).toMatchObject({
    remoteAddresses: ['203.0.113.0/24', '2001:db8::/32'],
  });

  // A private_key_jwt client's keys are replaced as JSON; what is not a key set is refused in words.
  const keyOf = (kid: string) => ({
    ...(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }) as object),
    kid,
  });
  const signing = await api<{ id: string }>('POST', '/idp/clients', {
    name: 'Signing export',
    clientType: 'STANDARD',
    tokenEndpointAuthMethod: 'private_key_jwt',
    jwks: { keys: [keyOf('first')] },
  });
  await visit(`#/clients/${signing.body.id}`);
  await page.getByRole('heading', { name: 'Signing export', level: 1 }).waitFor();
  await page.getByText('first', { exact: true }).waitFor();
  const keySet = page.getByLabel(/Public keys \(a JWK Set, JSON\)/);
  await keySet.fill('{"keys": [');
  await save();
  await expect.poll(alert).toMatch(/^Public keys \(a JWK Set, JSON\)[^:]*: /);
  const next = { keys: [keyOf('second')] };
  await keySet.fill(JSON.stringify(next));
  await save();
  await expect.poll(status).toBe('Signing export was saved.');
  expect((await registered(signing.body.id)).body.jwks).toEqual(next);
  await page.getByText('second', { exact: true }).waitFor();

  // The console's own application is shown, never changed from here.
  await visit(`#/clients/${consoleClientId(admin.orgId)}`);
  await page.getByText("This is the console's own application").waitFor();
  expect(await page.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
  // Nor offered for deletion in the listing (the API answers 409), as other clients are.
  await visit('#/clients');
  await page.getByRole('button', { name: /^Delete Signing export/ }).waitFor();
  await page.getByText(consoleClientId(admin.orgId), { exact: true }).waitFor();
  const deleteOwn = new RegExp(`^Delete .*\\(client id ${consoleClientId(admin.orgId)}\\)$`);
  expect(await page.getByRole('button', { name: deleteOwn }).count()).toBe(0);
});

it('asks for a recent sign-in (RFC 9470) before a person changes their own email, and signs them in again for it', async () => {
  await signedIn();
  const own = `#/users/${administrator.id}`;
  const changeEmailTo = async (email: string) => {
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByRole('button', { name: 'Save profile' }).click();
  };
  const alert = () => page.getByRole('alert').textContent();
  // The positive control: within 5 minutes of the sign-in, the change needs nothing more.
  await visit(own);
  const fresh = uniqueEmail('fresh');
  await changeEmailTo(fresh);
  await expect.poll(status).toBe('The profile was saved.');
  administrator.email = fresh;
  // Six minutes on at the service (its clock only: the console's token is still valid).
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 6 * 60_000 });
  try {
    const later = uniqueEmail('later');
    await changeEmailTo(later);
    await expect.poll(alert).toMatch(/needs a sign-in of the last 5 minutes/);
    expect((await api<{ email: string }>('GET', `/idp/users/${administrator.id}`)).body.email).toBe(fresh);
    // Asked for a sign-in at most 300 s old: the session's is older, so the password is asked again.
    await page.getByRole('button', { name: 'Sign in again' }).click();
    // (This browser declined the passkey offer at the first sign-in: none is made now.)
    await chromium.submitSignInForm(fresh);
    // Back on the same screen, the person makes the change again.
    await page.getByRole('heading', { level: 1 }).filter({ hasText: 'Person' }).waitFor();
    expect(new URL(page.url()).hash).toBe(own);
    await changeEmailTo(later);
    await expect.poll(status).toBe('The profile was saved.');
    administrator.email = later;
  } finally {
    vi.useRealTimers();
  }
});
