import type { Request } from '@middy/core';
import type { RouteDefinition } from '../../api/route-definition.js';
import type { AuditTarget } from '../../audit/record.js';
import { isScimTokenValue } from '../../domain/scim-token-value.js';
import { asOneLine } from '../../schemas/text.js';
import { writeAuditRecord } from '../../store/audit-records.js';
import { toApiError } from '../error-mapping.js';
import { logger } from '../logger.js';
import { requestState } from '../request-state.js';

/** The refusals a write records: denied by permissions, or failed on what it named. */
const RECORDED = new Map<number, 'denied' | 'failure'>([
  [403, 'denied'],
  [404, 'failure'],
  [409, 'failure'],
  [422, 'failure'],
]);

/** What a path parameter names, by its name; `{id}` names what the action acts on. */
const TARGET_TYPES: Record<string, string> = {
  roleName: 'role',
  roleId: 'managedRole',
  policyId: 'policy',
  userGroupId: 'group',
  pluginId: 'plugin',
  // Only SSO providers are named by `{clientId}` (the client id they have at their issuer).
  clientId: 'ssoProvider',
  agreementId: 'agreement',
};

const targetsOf = (route: RouteDefinition, path: Record<string, string | undefined>): AuditTarget[] => {
  const action = route.audit?.[0] ?? '';
  return (
    Object.entries(path)
      .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[0] !== 'type')
      // A 403 comes before validation: a SCIM token's value pasted as an id is kept nowhere, not
      // even here (shared/schemas/scim-tokens.ts).
      .filter(([, id]) => !isScimTokenValue(id))
      .map(([name, id]) => ({
        type: TARGET_TYPES[name] ?? action.slice(0, action.indexOf('.')),
        // Unvalidated when permissions refused first: one line, bounded, never trusted further.
        id: asOneLine(id).slice(0, 128),
      }))
  );
};

/**
 * Records a refused write (403, 404, 409, 422) after its answer is decided: best effort, so a
 * failure to record is logged and never changes the answer. Reads and unaudited routes record
 * nothing.
 */
export const recordRefusal = async (request: Request, route: RouteDefinition): Promise<void> => {
  const action = route.audit?.[0];
  const { principal } = requestState(request);
  if (!action || route.method === 'GET' || !principal) return;
  const error = toApiError(request.error);
  const outcome = RECORDED.get(error.status);
  if (!outcome) return;
  try {
    await writeAuditRecord({
      organizationId: principal.organizationId,
      action,
      targets: targetsOf(
        route,
        (request.event as { pathParameters?: Record<string, string> }).pathParameters ?? {},
      ),
      outcome,
      reason: `${error.status} ${error.message}`.slice(0, 300),
    });
  } catch (failure) {
    logger.warn('audit record of a refusal not written', { error: failure as Error });
  }
};
