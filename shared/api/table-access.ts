import { AUDIT_PREFIX, keys } from '../store/keys.js';
import type { EndpointGroup } from './route-definition.js';

// Read by the CDK stack only: apart from the route definitions, so no function bundles it.

/**
 * What each group's function may do with the table, for least-privilege grants. Every management
 * function also writes its organization's rate-limit counters and, for non-GET routes, its
 * idempotency records; the stack scopes those writes to their own partitions.
 */
export type TableAccess =
  | 'none'
  | 'read'
  | 'read-write'
  /** Reads the table; writes only items whose partition key matches one of these patterns. */
  | { readonly writesPartitions: readonly string[] };

/** What the steps after proving who someone is write: the pending request, a session, the code. */
const SIGN_IN_STEP_PARTITIONS = [
  keys.authorizationRequest('*').pk,
  keys.session('*').pk,
  keys.authorizationCode('*').pk,
];

/** The audit records of sign-ins and of the token endpoint (docs/audit.md), each in a partition of its own. */
const AUDIT_PARTITIONS = `${AUDIT_PREFIX}*`;

/** Failed sign-ins per person and attempts per client address: both hosted-page functions count them. */
const ATTEMPT_COUNT_PARTITIONS = [keys.signInFailures('*', '*').pk, keys.signInAttempts('*', '*').pk];

export const GROUP_TABLE_ACCESS: Record<EndpointGroup, TableAccess> = {
  // Redeems codes, rotates and revokes refresh tokens; records refused and issued tokens.
  oauth: {
    writesPartitions: [
      keys.authorizationCode('*').pk,
      keys.refreshToken('*').pk,
      keys.refreshFamily('*').pk,
      AUDIT_PARTITIONS,
    ],
  },
  // Pending requests, sessions, the codes it issues, attempt counts; and in organizations'
  // partitions users' TOTP secrets and recovery codes, and consents; the records of all that.
  signin: {
    writesPartitions: [
      ...SIGN_IN_STEP_PARTITIONS,
      ...ATTEMPT_COUNT_PARTITIONS,
      keys.organizationPartition('*'),
      AUDIT_PARTITIONS,
    ],
  },
  // Emailed links and their outbox records, attempt counts; users' passwords; their records.
  accounts: {
    writesPartitions: [
      keys.passwordLink('*').pk,
      keys.outboxMessage('*', 0, '*').pk,
      ...ATTEMPT_COUNT_PARTITIONS,
      keys.organizationPartition('*'),
      AUDIT_PARTITIONS,
    ],
  },
  // Sign-ins sent to SSO providers; then what a password sign-in writes, and users created just
  // in time; the records of sign-ins.
  federation: {
    writesPartitions: [
      keys.federationState('*').pk,
      ...SIGN_IN_STEP_PARTITIONS,
      keys.organizationPartition('*'),
      AUDIT_PARTITIONS,
    ],
  },
  openapi: 'none',
  // Reads which origins registered applications use.
  cors: 'read',
  permissions: 'read',
  // Reads audit records (and its organization's audit settings).
  audit: 'read',
  organizations: 'read-write',
  users: 'read-write',
  'user-pictures': 'read-write',
  'user-passwords': 'read-write',
  'user-groups': 'read-write',
  roles: 'read-write',
  policies: 'read-write',
  clients: 'read-write',
  // The function that handles secrets writes its providers and their bindings, nothing else.
  sso: { writesPartitions: [keys.ssoProvider('*').pk, keys.ssoProviderBindingPartition('*')] },
};
