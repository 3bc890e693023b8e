import { generateKeyPairSync } from 'node:crypto';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { consoleClientId, enableConsole } from '../../shared/console/console-application.js';
import { configureSsoProvider } from '../../shared/store/sso-provider-repository.js';
import { screenshotter, seriousAccessibilityViolations } from '../support/chromium.js';
import { consoleInChromium } from '../support/console-browser.js';
import { personWithPassword } from '../support/hosted-pages.js';
import { type ClientCaller, newRole, rolesApi, uniqueEmail, useService } from '../support/service.js';
import { PASSWORD } from '../support/sign-in-flow.js';

/**
 * The admin console in Chromium (docs/console.md): a person signs in through the hosted sign-in
 * (authorization code with PKCE, the console a public application), finds and creates users with
 * the typed client and their own token, and signs out; a person holding USER.LIST only sees the
 * users read-only. Screenshots (IDP_TEST_SCREENSHOTS=1) in .tmp/screenshots/console.
 */

const service = useService();
const shot = screenshotter('console');

let page: Page;
let admin: ClientCaller;
const people = {
  manager: { id: '', email: '' },
  /** An administrator: only one holding every permission registers an application. */
  owner: { id: '', email: '' },
  reader: { id: '', email: '' },
  apiReader: { id: '', email: '' },
  /** RESTRICTED, who may grant roles and read user groups (which the API serves STANDARD callers only). */
  restricted: { id: '', email: '' },
  /** RESTRICTED too: the one the restricted person grants a role to. */
  restrictedTarget: { id: '', email: '' },
};

const grantRole = async (userId: string, roleName: string) => {
  const granted = await service.call('PUT', `/idp/users/${userId}/roles/${roleName}/grant`, {
    token: admin.token,
  });
  expect(granted.status).toBe(204);
};

beforeAll(async () => {
  admin = await service.freshOrganization({ name: 'Acme Console' });
  const roles = rolesApi(service, admin.token);
  const [
    managerRole,
    readerRole,
    apiReaderRole,
    restrictedRole,
    manager,
    reader,
    apiReader,
    owner,
    restricted,
    target,
  ] = await Promise.all([
    newRole(roles, 'Console managers', [
      'USER.LIST',
      'USER.DETAILS',
      'USER.ADD',
      // The role the manager creates below gives it: no one gives what they do not hold.
      'USER.UPDATE',
      'USER_ROLES.GRANT',
      'USER.DELETE',
      'AUDIT.READ',
      'API_CLIENTS.READ',
      'API_CLIENTS.WRITE',
      'SSO.ADMIN',
      'USER_GROUP.READ',
      'USER_GROUP.GRANT',
      'USER_GROUP.ADD',
      'USER_GROUP.DELETE',
      'ROLES.LIST',
      'ROLES.ADD',
      'ROLES.UPDATE',
      'ROLES.DELETE',
      'PERMISSIONS.LIST',
      'UI.USERS',
      'UI.USER_GROUPS',
      'UI.ROLES',
      'UI.API_CLIENTS',
      'UI.SETTINGS',
    ]),
    newRole(roles, 'Console readers', ['USER.LIST', 'UI.USERS']),
    newRole(roles, 'API readers', ['USER.LIST']),
    newRole(roles, 'Restricted managers', [
      'USER.LIST',
      'USER.DETAILS',
      'USER_ROLES.GRANT',
      'ROLES.LIST',
      'USER_GROUP.READ',
      'API_CLIENTS.READ',
      'API_CLIENTS.WRITE',
      'UI.USERS',
      'UI.USER_GROUPS',
      'UI.API_CLIENTS',
    ]),
    personWithPassword(admin.orgId),
    personWithPassword(admin.orgId),
    personWithPassword(admin.orgId),
    personWithPassword(admin.orgId),
    personWithPassword(admin.orgId),
    personWithPassword(admin.orgId),
    enableConsole(admin.orgId, 'test'),
    configureSsoProvider(
      {
        clientId: `console-sso-${Date.now()}`,
        organizationIds: [admin.orgId],
        clientSecret: 'the first secret',
        issuer: 'https://login.example.com',
        displayName: 'Example Login',
      },
      'test',
    ),
  ]);
  expect(managerRole && readerRole && apiReaderRole && restrictedRole).toBeTruthy();
  const group = await service.call('POST', '/idp/userGroups', {
    token: admin.token,
    body: { name: 'Console team' },
  });
  expect(group.status).toBe(201);
  await Promise.all([
    grantRole(manager.id, 'Console managers'),
    grantRole(reader.id, 'Console readers'),
    grantRole(apiReader.id, 'API readers'),
    grantRole(restricted.id, 'Restricted managers'),
  ]);
  const madeRestricted = await Promise.all(
    [restricted.id, target.id].map((id) =>
      service.call('PUT', `/idp/users/${id}/userType/RESTRICTED`, { token: admin.token }),
    ),
  );
  expect(madeRestricted.map(({ status }) => status)).toEqual([204, 204]);
  // A name outside ASCII, as many people's are: the ID token carries it as UTF-8.
  const renamed = await service.call('PUT', `/idp/users/${reader.id}`, {
    token: admin.token,
    body: { name: 'Zoë Ñandú', email: reader.email },
  });
  expect(renamed.status).toBe(200);
  const madeOwner = await service.call('PUT', `/idp/users/${owner.id}/managedRoles/administrator`, {
    token: admin.token,
  });
  expect(madeOwner.status).toBe(204);
  Object.assign(people.owner, { id: owner.id, email: owner.email });
  Object.assign(people.manager, { id: manager.id, email: manager.email });
  Object.assign(people.reader, { id: reader.id, email: reader.email });
  Object.assign(people.apiReader, { id: apiReader.id, email: apiReader.email });
  Object.assign(people.restricted, { id: restricted.id, email: restricted.email });
  Object.assign(people.restrictedTarget, { id: target.id, email: target.email });
});

const consoleAddress = () => `${service.baseUrl}/console/${admin.orgId}`;
const chromium = consoleInChromium(consoleAddress);
const openPage = async (options?: { ownContext?: boolean }) => {
  page = await chromium.openPage(options);
};
const signIn = async (email: string) => {
  await chromium.signIn(email);
  await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
};

it('signs a person in with PKCE, finds and creates users with their token, and signs out', async () => {
  await openPage();
  await signIn(people.manager.email);
  expect(await page.locator('.who').textContent()).toBe(people.manager.email);
  await page.locator('tbody tr').first().waitFor();
  await shot(page, 'users');
  expect(await seriousAccessibilityViolations(page)).toEqual([]);

  // The screen's one status region is there, empty, before anything is said in it (a region
  // that appears already filled is not announced).
  const statusRegion = await page.getByRole('status').elementHandle();
  expect(await statusRegion?.textContent()).toBe('');
  const email = uniqueEmail('console-made');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Name').fill('Made In Console');
  await page.getByRole('button', { name: 'Create user' }).click();
  await expect.poll(() => page.getByRole('status').textContent()).toBe(`${email} was created and invited.`);
  // Said inside the region that was already there, not in a new one.
  expect(await statusRegion?.textContent()).toBe(`${email} was created and invited.`);

  await page.getByLabel('Search text').fill(email.slice(0, 14));
  await page.getByRole('button', { name: 'Search' }).click();
  await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
  expect(await page.locator('tbody tr td').first().textContent()).toBe(email);
  await shot(page, 'search');

  // The user's page: a role granted, then deactivated; each change is in the audit log.
  await page.getByRole('link', { name: email }).click();
  await page.getByRole('heading', { name: 'Made In Console', level: 1 }).waitFor();
  await page.getByLabel('Grant a role').selectOption('Console readers');
  await page.getByRole('button', { name: 'Grant role' }).click();
  await expect.poll(() => page.getByRole('status').textContent()).toBe('Console readers was granted.');
  // Listed, without Revoke: the person holds USER_ROLES.GRANT but not USER_ROLES.REVOKE.
  await expect
    .poll(() => page.locator('ul.plain').first().locator('li').allTextContents())
    .toEqual(['Console readers ']);
  expect(await page.getByRole('button', { name: /^Revoke/ }).count()).toBe(0);
  await page.getByLabel('Add to a group').selectOption('Console team');
  await page.getByRole('button', { name: 'Add to group' }).click();
  await expect.poll(() => page.getByRole('status').textContent()).toBe('Added to Console team.');
  await page.getByRole('button', { name: 'Deactivate' }).click();
  await expect
    .poll(() => page.getByRole('status').textContent())
    .toBe(`${email} was deactivated: they can no longer sign in.`);
  await shot(page, 'user');
  expect(await seriousAccessibilityViolations(page)).toEqual([]);

  // A screen opened by a link is a new page to a screen reader: its title, and the focus on its heading.
  expect(await page.title()).toBe(`Users – IDP console – ${admin.orgId}`);
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Audit log' }).click();
  await expect.poll(() => page.title()).toBe(`Audit log – IDP console – ${admin.orgId}`);
  await expect
    .poll(() => page.evaluate('document.activeElement.outerHTML'))
    .toMatch(/^<h1 [^>]*>Audit log<\/h1>$/);
  await page.getByLabel('Action').fill('user.');
  await page.getByRole('button', { name: 'Filter' }).click();
  const actions = () => page.locator('tbody tr td:nth-child(2)').allTextContents();
  await expect
    .poll(actions)
    .toEqual(
      expect.arrayContaining([
        'user.created',
        'user.role.granted',
        'user.group.added',
        'user.status.changed',
      ]),
    );
  await page.getByRole('button', { name: 'user.status.changed' }).first().click();
  await expect.poll(() => page.locator('pre').textContent()).toContain('INACTIVE');
  // Who by their id beside the name (anyone may share a name), and the application they acted through.
  const detail = (await page.locator('section.panel dl').textContent()) ?? '';
  expect(detail).toContain(`(user ${people.manager.id})`);
  expect(detail).toContain(`application ${consoleClientId(admin.orgId)}`);
  await shot(page, 'audit');
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
  await page.getByRole('link', { name: 'Users' }).click();

  // The form checks with the API's own schema before sending.
  await page.getByLabel('Email', { exact: true }).fill('not-an-email@');
  await page.getByLabel('Email', { exact: true }).evaluate((input) => input.removeAttribute('type'));
  await page.getByLabel('Name').fill('X');
  await page.getByRole('button', { name: 'Create user' }).click();
  // Named as the form labels it.
  await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^Email: /);

  // Tokens are in memory only.
  expect(await page.evaluate('JSON.stringify(localStorage)')).toBe('{}');

  // A second tab of the browser, signed in silently from the identity provider's session...
  const second = await page.context().newPage();
  try {
    await second.goto(`${consoleAddress()}#/users`);
    await second.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    // ...is signed out with the first: its access token would otherwise act for the person.
    await second.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await second.getByRole('button', { name: 'Create user' }).count()).toBe(0);
  } finally {
    await second.close();
  }
  // Signed out at the identity provider too: opening the console again asks to sign in, and
  // says nothing went wrong (the attempt without a page answered login_required).
  await page.goto(consoleAddress());
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  expect(await page.getByRole('alert').count()).toBe(0);
});

it('renews its sign-in before the token expires, and says so when a sign-out everywhere refused the renewal', async () => {
  // A context of its own: the clock faked below is the context's.
  await openPage({ ownContext: true });
  // The browser's clock only: the console renews a minute before its 15-minute token expires.
  await page.clock.install();
  await signIn(people.manager.email);
  const search = async () => {
    await page.getByLabel('Search text').fill(people.manager.email.slice(0, 14));
    await page.getByRole('button', { name: 'Search' }).click();
  };
  // Positive control: past the renewal point, the next call renews and goes through.
  await page.clock.fastForward('14:10');
  await search();
  await expect.poll(() => page.locator('tbody tr td').first().textContent()).toBe(people.manager.email);
  expect(await page.getByRole('alert').count()).toBe(0);

  const ended = await service.call('PUT', `/idp/users/${people.manager.id}/endSessions`, {
    token: admin.token,
  });
  expect(ended.status).toBe(204);
  await page.clock.fastForward('14:10');
  await search();
  // Refused: signed out, saying why, not the token endpoint's raw answer.
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  expect(await page.getByRole('alert').textContent()).toBe('Your sign-in has ended. Sign in again to go on.');
  expect(await page.getByRole('button', { name: 'Create user' }).count()).toBe(0);
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
});

it('shows a person holding only USER.LIST and UI.USERS the users, read-only', async () => {
  await openPage();
  await signIn(people.reader.email);
  await page.locator('tbody tr').first().waitFor();
  expect(await page.getByRole('button', { name: 'Create user' }).count()).toBe(0);
  expect(await page.getByRole('navigation', { name: 'Screens' }).getByRole('link').allTextContents()).toEqual(
    ['Users', 'My account'],
  );
  await shot(page, 'users-read-only');
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
  // Their own account: the permissions their token holds.
  await page.getByRole('link', { name: 'My account' }).click();
  await expect
    .poll(() => page.locator('ul.permissions li').allTextContents())
    .toEqual(['UI.USERS', 'USER.LIST']);
  expect(await page.locator('section p').first().textContent()).toBe(`Zoë Ñandú, ${people.reader.email}`);
  await shot(page, 'my-account');
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
  // Another screen by its address: refused in words (the API would refuse its calls anyway).
  await page.goto(`${consoleAddress()}#/audit`);
  await expect
    .poll(() => page.getByRole('alert').textContent())
    .toBe('You may not open Audit log: it needs AUDIT.READ.');
  // Each state has its heading (axe: page-has-heading-one), an unknown screen too.
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Audit log');
  await shot(page, 'refused');
  await page.goto(`${consoleAddress()}#/nothing`);
  await expect
    .poll(() => page.getByRole('alert').textContent())
    .toBe('This console has no screen "nothing".');
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('No such screen');
});

it('keeps the users screen from a person whose token may list users but who lacks UI.USERS', async () => {
  // The reader above, but for UI.USERS: the API would answer them, the console page is not theirs.
  await openPage();
  await chromium.signIn(people.apiReader.email);
  await page.getByRole('heading', { name: 'My account', level: 1 }).waitFor();
  expect(await page.getByRole('navigation', { name: 'Screens' }).getByRole('link').allTextContents()).toEqual(
    ['My account'],
  );
  await page.goto(`${consoleAddress()}#/users`);
  await expect
    .poll(() => page.getByRole('alert').textContent())
    .toBe('You may not open Users: it needs USER.LIST and UI.USERS.');
});

it('offers a RESTRICTED person the roles they may grant, and no user groups screen (the API serves those STANDARD callers only)', async () => {
  await openPage();
  await signIn(people.restricted.email);
  // Holding USER_GROUP.READ and UI.USER_GROUPS, as a STANDARD person listed "User groups" would.
  expect(await page.getByRole('navigation', { name: 'Screens' }).getByRole('link').allTextContents()).toEqual(
    ['Users', 'Clients', 'My account'],
  );
  await page.goto(`${consoleAddress()}#/users/${people.restrictedTarget.id}`);
  await page.getByRole('heading', { name: 'Person', level: 1 }).waitFor();
  // The roles are offered (a refused user groups listing took them all away) and granted.
  await expect.poll(() => page.locator('#grant-roles option').allTextContents()).toContain('API readers');
  await page.getByLabel('Grant a role').selectOption('API readers');
  await page.getByRole('button', { name: 'Grant role' }).click();
  await expect.poll(() => page.getByRole('status').textContent()).toBe('API readers was granted.');
  expect(await page.getByRole('alert').count()).toBe(0);
  expect(await page.getByLabel('Add to a group').count()).toBe(0);
  await page.goto(`${consoleAddress()}#/groups`);
  await expect
    .poll(() => page.getByRole('alert').textContent())
    .toBe('You may not open User groups: it needs USER_GROUP.READ and UI.USER_GROUPS and a STANDARD user.');
  // The clients they register are RESTRICTED: the API lets a RESTRICTED person make no STANDARD one.
  await page.goto(`${consoleAddress()}#/clients`);
  await page.getByLabel('Name').fill('Restricted robot');
  await page.getByRole('button', { name: 'Register' }).click();
  await expect.poll(() => page.getByRole('status').textContent()).toBe('Restricted robot was registered.');
});

it('registers an application, shows its secret once with a copy button, and rotates it; an API client with keys has none to show or rotate', async () => {
  await openPage();
  await signIn(people.owner.email);
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Clients' }).click();
  await page.getByLabel('Name').fill('Shop front');
  await page.getByLabel('Application people sign in to').check();
  await page.getByLabel(/Redirect URIs/).fill('https://shop.example/callback');
  await page.getByRole('button', { name: 'Register' }).click();
  await expect.poll(() => page.getByRole('status').textContent()).toBe('Shop front was registered.');
  const secret = async () => (await page.locator('code.secret').textContent()) ?? '';
  const first = await secret();
  expect(first.length).toBeGreaterThan(20);
  // The panel takes the focus: a keyboard or screen-reader user is taken to the secret.
  await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('secret-title');
  await page.getByRole('button', { name: 'Copy secret' }).click();
  await page.getByRole('button', { name: 'Copied' }).waitFor();
  expect(await page.evaluate('navigator.clipboard.readText()')).toBe(first);
  await shot(page, 'client-secret');
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
  const listed = await service.call<{ id: string; name: string }[]>('GET', '/idp/clients', {
    token: admin.token,
  });
  const made = listed.body.find((client) => client.name === 'Shop front');
  const details = await service.call('GET', `/idp/clients/${made?.id}`, { token: admin.token });
  expect(details.body).toMatchObject({
    flowType: 'authorization_code',
    redirectUris: ['https://shop.example/callback'],
  });
  // The form is empty again, ready for the next one.
  expect(await page.getByLabel('Name').inputValue()).toBe('');
  expect(await page.getByLabel('API client (client credentials)').isChecked()).toBe(true);
  await page.getByRole('button', { name: 'Done' }).click();
  expect(await page.locator('code.secret').count()).toBe(0);
  // The listing answers secrets; the console never shows them.
  expect(await page.locator('main').textContent()).not.toContain(first);

  // Client names need not be unique: each button's name carries the client id too.
  await page
    .getByRole('button', { name: `Rotate secret of Shop front (client id ${made?.id})`, exact: true })
    .click();
  await expect
    .poll(() => page.getByRole('status').textContent())
    .toBe(
      'The secret of Shop front was replaced: the old one works for its grace period (24 hours unless the operator set another).',
    );
  const second = await secret();
  expect(second.length).toBeGreaterThan(20);
  expect(second).not.toBe(first);
  await shot(page, 'clients');

  // An API client with public keys instead of a secret: no secret shown, its keys registered.
  await page.getByRole('button', { name: 'Done' }).click();
  await expect.poll(() => page.locator('code.secret').count()).toBe(0);
  const jwks = {
    keys: [
      {
        ...(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }) as object),
        kid: 'export-2026',
      },
    ],
  };
  await page.getByLabel('Name').fill('Key export');
  await page.getByLabel(/^Public keys instead of a secret/).fill(JSON.stringify(jwks));
  await page.getByRole('button', { name: 'Register' }).click();
  await expect.poll(() => page.getByRole('status').textContent()).toBe('Key export was registered.');
  // The new client's panel says it has no secret (wait for it: the previous panel held one).
  await page.getByText('No secret:').waitFor();
  expect(await page.locator('code.secret').count()).toBe(0);
  const keyed = (
    await service.call<{ id: string; name: string }[]>('GET', '/idp/clients', { token: admin.token })
  ).body.find((client) => client.name === 'Key export');
  const keyedDetails = await service.call('GET', `/idp/clients/${keyed?.id}`, { token: admin.token });
  expect(keyedDetails.body).toMatchObject({ tokenEndpointAuthMethod: 'private_key_jwt', jwks });
  // Its row offers no secret to rotate (a 409 in words before), while the application's still does.
  const rowOf = (name: string) => page.getByRole('row').filter({ hasText: name });
  await rowOf('Key export').waitFor();
  expect(
    await rowOf('Shop front')
      .getByRole('button', { name: /^Rotate secret/ })
      .count(),
  ).toBe(1);
  expect(
    await rowOf('Key export')
      .getByRole('button', { name: /^Delete/ })
      .count(),
  ).toBe(1);
  expect(
    await rowOf('Key export')
      .getByRole('button', { name: /^Rotate secret/ })
      .count(),
  ).toBe(0);

  // More clients than a page: the console reads the next page ahead, and keeps none of its secrets.
  const robots = await Promise.all(
    Array.from({ length: 21 }, (_, index) =>
      service.call<{ clientSecret: string }>('POST', '/idp/clients', {
        token: admin.token,
        body: { name: `Paged robot ${index}`, clientType: 'STANDARD' },
      }),
    ),
  );
  const robotSecrets = robots.map(({ body }) => body.clientSecret);
  expect(robotSecrets.every((value) => value.length > 20)).toBe(true);
  await page.evaluate('location.hash = "#/me"');
  await page.getByRole('heading', { name: 'My account', level: 1 }).waitFor();
  await page.evaluate('location.hash = "#/clients"');
  await page.getByRole('button', { name: 'Next page' }).and(page.locator(':not([aria-disabled])')).waitFor();
  const cdp = await page.context().newCDPSession(page);
  const chunks: string[] = [];
  cdp.on('HeapProfiler.addHeapSnapshotChunk', ({ chunk }) => void chunks.push(chunk));
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  await cdp.detach();
  const heap = chunks.join('');
  // The page read ahead is in memory (its rows' names), its secrets are not.
  expect(heap).toContain('Paged robot 20');
  expect(robotSecrets.filter((value) => heap.includes(value))).toEqual([]);
});

it('updates an SSO secret and warns that its new expiry is near', async () => {
  await openPage();
  await signIn(people.manager.email);
  await page
    .getByRole('navigation', { name: 'Screens' })
    .getByRole('link', { name: 'SSO providers' })
    .click();
  await page.getByRole('heading', { name: /^console-sso-/, level: 2 }).waitFor();
  expect(await page.locator('.warning, .error').count()).toBe(0);
  const inTenDays = new Date(Date.now() + 10 * 24 * 3600 * 1000).toISOString().slice(0, 10);
  await page.getByLabel('New client secret').fill('the second secret');
  await page.getByLabel('It expires on').fill(inTenDays);
  await page.getByRole('button', { name: /^Update the secret of / }).click();
  await expect
    .poll(() => page.getByRole('status').textContent())
    .toMatch(/^The secret of console-sso-\d+ was updated\.$/);
  await expect
    .poll(() => page.locator('.warning').textContent())
    .toMatch(/^The secret expires in (9|10) days: update it soon\.$/);
  expect(await page.locator('main').textContent()).not.toContain('the second secret');
  await shot(page, 'sso');
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
});

it('creates a user group and deletes it after a confirmation', async () => {
  await openPage();
  await signIn(people.manager.email);
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'User groups' }).click();
  await page.getByLabel('Name').fill('Support desk');
  await page.getByLabel('Description').fill('First-line support');
  await page.getByRole('button', { name: 'Create group' }).click();
  await expect.poll(() => page.getByRole('status').textContent()).toBe('Support desk was created.');
  await page.getByRole('cell', { name: 'First-line support' }).waitFor();
  await shot(page, 'groups');
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
  // Duplicating needs grants this person lacks: no button for it.
  expect(await page.getByRole('button', { name: /^Duplicate/ }).count()).toBe(0);
  // The confirmation takes the focus (its answer is the next thing to do); Cancel gives it back.
  const opener = page.getByRole('button', { name: 'Delete Support desk' });
  const focused = () => page.evaluate('document.activeElement.textContent');
  await opener.click();
  await page.getByRole('alertdialog').waitFor();
  await expect.poll(focused).toBe('Delete');
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('alertdialog').waitFor({ state: 'detached' });
  expect(await focused()).toBe('Delete Support desk');
  // So a keyboard user deletes with Enter twice.
  await page.keyboard.press('Enter');
  await page.getByRole('alertdialog').waitFor();
  await expect.poll(focused).toBe('Delete');
  await page.keyboard.press('Enter');
  await expect.poll(() => page.getByRole('status').textContent()).toBe('Support desk was deleted.');
  expect(await page.getByRole('cell', { name: 'Support desk', exact: true }).count()).toBe(0);
});

it('creates a role, shows what its permissions bring along, makes it the default and archives it', async () => {
  await openPage();
  await signIn(people.manager.email);
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Roles' }).click();
  await page.getByLabel('Name').fill('Editors');
  await page.getByRole('checkbox', { name: /^USER\.UPDATE / }).check();
  await page.getByRole('button', { name: 'Create role' }).click();
  await expect.poll(() => page.getByRole('status').textContent()).toBe('Editors was created.');
  const row = page.getByRole('row').filter({ hasText: 'Editors' });
  // USER.UPDATE depends on USER.DETAILS, which depends on USER.LIST (the catalogue's dependencies).
  await expect
    .poll(() => row.locator('td').nth(2).textContent())
    .toMatch(/USER\.DETAILS.*USER\.LIST|USER\.LIST.*USER\.DETAILS/);
  await page.getByRole('button', { name: 'Make Editors the default' }).click();
  await expect.poll(() => row.locator('td').first().textContent()).toBe('Editors (default)');
  await shot(page, 'roles');
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
  await page.getByRole('button', { name: 'Archive Editors' }).click();
  // It is the default role: the confirmation says what archiving it means for new users.
  await expect
    .poll(() => page.getByRole('alertdialog').textContent())
    .toContain('It is the default role: new users will get no role.');
  await page.getByRole('alertdialog').getByRole('button', { name: 'Archive', exact: true }).click();
  await expect.poll(() => page.getByRole('status').textContent()).toBe('Editors was archived.');
  await expect.poll(() => page.getByRole('row').filter({ hasText: 'Editors' }).count()).toBe(0);
});

/** Presses Tab until the element is focused, as a keyboard user would (at most 40 times). */
const tabTo = async (selector: string) => {
  for (let presses = 0; presses < 40; presses += 1) {
    if (await page.locator(selector).evaluate((element) => element === element.ownerDocument.activeElement))
      return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
};

it('signs in and creates a user with the keyboard alone', async () => {
  await openPage();
  await page.goto(consoleAddress());
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  await tabTo('button');
  await page.keyboard.press('Enter');
  await page.getByLabel('Email').waitFor();
  // The script is built on the first request locally: on a loaded machine that takes seconds.
  await expect
    .poll(() => page.locator('input[name="passkeys"]').inputValue(), { timeout: 30_000 })
    .toBe('available');
  await tabTo('#email');
  await page.keyboard.type(people.manager.email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Not now' }).waitFor();
  await tabTo('form[action="/signin/passkeys/skip"] button');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();

  const email = uniqueEmail('keyboard-made');
  await tabTo('#new-email');
  await page.keyboard.type(email);
  await page.keyboard.press('Tab');
  await page.keyboard.type('Made By Keyboard');
  await tabTo('form.panel button[type="submit"]');
  await page.keyboard.press('Enter');
  await expect.poll(() => page.getByRole('status').textContent()).toBe(`${email} was created and invited.`);
});
