import { keys } from '../store/keys.js';
import type { EndpointGroup } from './route-definition.js';

// Read by the CDK stack only: apart from the route definitions, so no function bundles it.

/**
 * What each group's function may do with the table, for least-privilege grants. Every management
 * function also writes its organization's rate-limit counters and, for non-GET routes, its
 * idempotency records; the stack scopes those writes to their own partitions. Audit records
 * (`AUDIT#`) every writing function may put, none may read (but `audit`), change or delete.
 */
export type TableAccess =
  | 'none'
  | 'read'
  /** Reads the table and the audit indexes, which no other function may read. */
  | 'read-audit'
  | 'read-write'
  /**
   * Reads the table; writes only items whose partition key matches one of these patterns; with
   * `readsAudit`, also reads the audit indexes (the digest function).
   */
  | { readonly writesPartitions: readonly string[]; readonly readsAudit?: boolean };

/**
 * What the steps after proving who someone is write: the pending request, a session, the code;
 * and the refresh token families a session ended (signed out, or replaced by another person's).
 */
const SIGN_IN_STEP_PARTITIONS = [
  keys.authorizationRequest('*').pk,
  keys.session('*').pk,
  keys.authorizationCode('*').pk,
  keys.refreshFamily('*').pk,
];

/** Failed sign-ins per person and attempts per client address: both hosted-page functions count them. */
const ATTEMPT_COUNT_PARTITIONS = [keys.signInFailures('*', '*').pk, keys.signInAttempts('*', '*').pk];

/** Emails on their way to the mailer (a security notice after a new authenticator or passkey too). */
const OUTBOX_PARTITION = keys.outboxMessage('*', 0, '*').pk;

export const GROUP_TABLE_ACCESS: Record<EndpointGroup, TableAccess> = {
  // Redeems codes, rotates and revokes refresh tokens (listing a family on the browser session
  // its code came from), spends private_key_jwt assertions, stores pushed authorization requests;
  // records refused and issued tokens.
  oauth: {
    writesPartitions: [
      keys.authorizationCode('*').pk,
      keys.refreshToken('*').pk,
      keys.refreshFamily('*').pk,
      keys.session('*').pk,
      keys.usedClientAssertion('*', '*').pk,
      keys.pushedRequest('*').pk,
    ],
  },
  // Pending requests (taking pushed ones), sessions, the codes it issues, attempt counts, security
  // notices; and in organizations' partitions users' TOTP secrets and recovery codes, and consents; the records
  // of all that.
  signin: {
    writesPartitions: [
      keys.pushedRequest('*').pk,
      ...SIGN_IN_STEP_PARTITIONS,
      ...ATTEMPT_COUNT_PARTITIONS,
      OUTBOX_PARTITION,
      keys.organizationPartition('*'),
    ],
  },
  // Emailed links and their outbox records, attempt counts; users' passwords; their records.
  accounts: {
    writesPartitions: [
      keys.passwordLink('*').pk,
      OUTBOX_PARTITION,
      ...ATTEMPT_COUNT_PARTITIONS,
      keys.organizationPartition('*'),
    ],
  },
  // Challenges; passkeys with their lookups and counts, in organizations' partitions (with their
  // records); then what the steps after a sign-in write, and attempt counts.
  passkeys: {
    writesPartitions: [
      keys.passkeyChallenge('*').pk,
      keys.passkeyLookup('*').pk,
      ...SIGN_IN_STEP_PARTITIONS,
      ...ATTEMPT_COUNT_PARTITIONS,
      OUTBOX_PARTITION,
      keys.organizationPartition('*'),
    ],
  },
  // Sign-ins sent to SSO providers; then what a password sign-in writes, and users created just
  // in time; the records of sign-ins.
  federation: {
    writesPartitions: [
      keys.federationState('*').pk,
      ...SIGN_IN_STEP_PARTITIONS,
      keys.organizationPartition('*'),
    ],
  },
  openapi: 'none',
  // Serves built files only.
  console: 'none',
  // Reads which origins registered applications use.
  cors: 'read',
  permissions: 'read',
  // The only function that reads audit records (through their indexes).
  audit: 'read-audit',
  // Users and groups as a directory provisions them, with their records; rate-limit counters.
  scim: 'read-write',
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
  // SCIM tokens: their lookup items, and in organizations' partitions their listing entries and
  // count; their records.
  'scim-tokens': {
    writesPartitions: [keys.scimTokenLookup('*').pk, keys.organizationPartition('*')],
  },
};
