import { createHash } from 'node:crypto';
import { publishAgreement } from '../../shared/store/consent-repository.js';
import { assignPlugin, definePlugin } from '../../shared/store/plugin-repository.js';
import { configureSsoProvider, getSsoProvider } from '../../shared/store/sso-provider-repository.js';
import { idFromLocation } from './api.js';
import { type FuzzContext, PLUGIN_PERMISSION } from './malformed-requests.js';
import type { TestService } from './service.js';

/**
 * The fuzz test's organization: a little data so that path parameters name things that exist,
 * and a snapshot of everything the API shows of it, taken before and after the fuzzing.
 */

/** One user, group, role, policy, client and SCIM token through the API; plugin, agreement, SSO provider as operators make them. */
export const seedOrganization = async (service: TestService): Promise<FuzzContext> => {
  const adminToken = service.admin.token;
  const write = async <T>(method: string, path: string, body?: unknown) => {
    const response = await service.call<T>(method, path, { token: adminToken, body });
    if (response.status >= 300)
      throw new Error(`seeding ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response;
  };
  const { organizationId } = service;
  const userId = await service.createUser({ email: 'fuzz.seed@example.com', name: 'Fuzz Seed' });
  const roleName = 'Fuzz seed role';
  const roleId = idFromLocation(
    await write('POST', '/idp/roles', { name: roleName, permissions: ['USER.LIST'] }),
  );
  const policyId = idFromLocation(await write('POST', '/idp/policies', { name: 'Fuzz seed policy' }));
  const group = await write<{ userGroup: { id: string } }>('POST', '/idp/userGroups', {
    name: 'Fuzz seed group',
  });
  const client = await write<{ id: string }>('POST', '/idp/clients', {
    name: 'Fuzz seed client',
    clientType: 'STANDARD',
  });
  const scimToken = await write<{ id: string }>('POST', '/idp/scimTokens', { name: 'Fuzz seed directory' });
  const groupId = group.body.userGroup.id;
  await write('PUT', `/idp/users/${userId}/userGroups/${groupId}`);
  await write('PUT', `/idp/users/${userId}/additionalProperties/grant`, {
    additionalProperties: { seeded: 'yes' },
  });
  const pluginId = 'fuzz-plugin';
  await definePlugin({
    id: pluginId,
    permissionDefinitions: [{ id: 'fuzz-export', ...PLUGIN_PERMISSION, description: 'Export' }],
    dependentPermissions: [],
  });
  await assignPlugin(organizationId, pluginId);
  const agreement = await publishAgreement('https://example.com/fuzz-terms');
  const ssoClientId = 'fuzz-sso';
  await configureSsoProvider(
    { clientId: ssoClientId, organizationIds: [organizationId], clientSecret: 'seed' },
    'fuzz',
  );
  return {
    organizationId,
    adminToken,
    userToken: await service.userToken(userId),
    adminClientId: service.clientId,
    adminClientSecret: service.clientSecret,
    userId,
    groupId,
    roleId,
    roleName,
    policyId,
    clientId: client.body.id,
    pluginId,
    agreementId: agreement.id,
    ssoClientId,
    scimTokenId: scimToken.body.id,
  };
};

/** Secrets compared by digest, so a diff never prints one. */
const redacted = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value ?? null), (key, item) =>
    /secret/i.test(key) && typeof item === 'string' ? createHash('sha256').update(item).digest('hex') : item,
  );

/** Everything the API shows of the organization (and the SSO provider's version, its secret being write-only). */
export const snapshotOrganization = async (
  service: TestService,
  c: FuzzContext,
): Promise<Record<string, unknown>> => {
  const paths = [
    ...['/idp/users', '/idp/users?fetchInactive=true', '/idp/userGroups/list', '/idp/userGroups/count'],
    ...['/idp/roles', '/idp/policies', '/idp/clients', '/idp/clients/name', '/idp/getDefaultRole'],
    ...['/idp/additionalUserProperties', '/idp/sso-providers', '/idp/consent', '/idp/latestAgreement'],
    '/idp/scimTokens',
    ...['/idp/plugins', `/idp/users/${c.userId}`, `/idp/userGroups/${c.groupId}`, `/idp/roles/${c.roleId}`],
    ...[`/idp/roles/${c.roleId}/plugin/${c.pluginId}`, `/idp/policies/${c.policyId}`],
  ];
  const shown = await Promise.all(
    paths.map(async (path) => {
      const { status, body } = await service.call('GET', path, { token: c.adminToken });
      return [path, redacted({ status, body })] as const;
    }),
  );
  return {
    ...Object.fromEntries(shown),
    'SSO provider (store)': redacted(await getSsoProvider(c.ssoClientId)),
  };
};
