import { auditRoutes } from '../shared/api/routes/audit.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { admission } from '../shared/http/middleware/admission.js';
import { nextCursorLink } from '../shared/http/next-page-link.js';
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
      return {
        body: page.records,
        headers: nextCursorLink(
          auditRoutes.listAuditEvents,
          { ...filters, limit },
          encodeCursor(page.before),
        ),
      };
    },
  },
  { admission, registeredOrigin: isRegisteredOrigin },
);
