import { auditRoutes } from '../shared/api/routes/audit.js';
import type { AuditRecord } from '../shared/audit/record.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { logger } from '../shared/http/logger.js';
import { admission } from '../shared/http/middleware/admission.js';
import { nextCursorLink } from '../shared/http/next-page-link.js';
import { auditRecordModel, decodeCursor, encodeCursor } from '../shared/schemas/audit.js';
import { queryAuditRecords } from '../shared/store/audit-records.js';
import { isRegisteredOrigin } from '../shared/store/browser-origins.js';
import * as z from '../shared/zod.js';

/**
 * A record that parses but no longer fits the record's schema (edited by hand in the table) is
 * left out like one that does not parse (`storedRecord`): the rest of its page still lists.
 */
const listable = (record: AuditRecord): boolean => {
  if (z.safeParse(auditRecordModel, record).success) return true;
  logger.error('audit record unreadable: left out of the listing', { recordId: String(record.id) });
  return false;
};

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
      const records = page.records.filter(listable);
      if (!page.before) return { body: records };
      return {
        body: records,
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
