import { auditQuery, auditRecordModel, MAX_AUDIT_PAGE } from '../../schemas/audit.js';
import * as z from '../../zod.js';
import { ok, routeGroup } from '../route-definition.js';

/** The audit log (docs/audit.md): read only; nothing changes or deletes a record. */
export const auditRoutes = routeGroup('audit')({
  listAuditEvents: {
    route: 'GET /idp/auditEvents',
    summary: "The organization's audit records, newest first",
    description:
      'Audit records of the caller\'s organization, newest first: every change with its actor, targets and changed fields, every sign-in and refusal. Filters: `since` (inclusive) and `until` (exclusive) in epoch ms, `action` (exact, or a prefix ending in `.`), `actorId`, `targetId`, `outcome`. Pages of `limit` records (100 by default, at most 1000), and fewer where more would pass 4 MiB, follow `Link: <...>; rel="next"`, whose opaque `cursor` continues below the page. With several filters, or large records, a page can hold fewer records than `limit` while more follow. A record appears within about a second of its change.',
    permissions: ['AUDIT.READ'],
    request: { query: auditQuery },
    response: ok('One page of records', z.array(auditRecordModel).check(z.maxLength(MAX_AUDIT_PAGE))),
    extension: true,
  },
});
