import { routeUrl } from '../shared/api/route-url.js';
import { auditRoutes } from '../shared/api/routes/audit.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { admission } from '../shared/http/middleware/admission.js';
import { decodeCursor, encodeCursor } from '../shared/schemas/audit.js';
import { queryAuditRecords } from '../shared/store/audit-records.js';
import { isRegisteredOrigin } from '../shared/store/browser-origins.js';

/** The audit log, read only (docs/audit.md). */
export const handler = groupHandler(
  auditRoutes,
  {
    listAuditEvents: async ({ query }, { principal }) => {
      const { limit, cursor, ...filters } = query;
      const before = cursor === undefined ? undefined : decodeCursor(cursor);
      const page = await queryAuditRecords(principal.organizationId, filters, {
        limit,
        ...(before ? { before } : {}),
      });
      if (!page.before) return { body: page.records };
      const next = new URLSearchParams();
      for (const [name, value] of Object.entries({ ...filters, limit }))
        if (value !== undefined) next.set(name, String(value));
      next.set('cursor', encodeCursor(page.before));
      return {
        body: page.records,
        headers: { link: `<${routeUrl(auditRoutes.listAuditEvents, {}, next)}>; rel="next"` },
      };
    },
  },
  { admission, registeredOrigin: isRegisteredOrigin },
);
