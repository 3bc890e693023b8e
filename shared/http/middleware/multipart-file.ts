import type { MiddlewareObj } from '@middy/core';
import httpMultipartBodyParser from '@middy/http-multipart-body-parser';
import type { RouteDefinition } from '../../api/route-definition.js';
import { badRequest, payloadTooLarge } from '../errors.js';
import { requestState } from '../request-state.js';

interface Attachment {
  content: Buffer;
  truncated?: boolean;
}

/** Parses a multipart/form-data upload (Middy's parser) and keeps the one file part the route wants. */
export const multipartFile = (route: RouteDefinition): MiddlewareObj => {
  const upload = route.request.multipartFile;
  if (!upload) throw new Error(`${route.operationId} takes no upload`);
  const parser = httpMultipartBodyParser({
    busboy: { limits: { fileSize: upload.maxBytes, files: 1 } },
  });
  return {
    before: async (request) => {
      // biome-ignore lint/suspicious/noExplicitAny: Middy's parser is typed for its own event union
      await parser.before?.(request as any);
      const part = (request.event as { body?: Record<string, unknown> }).body?.[upload.field] as
        | Attachment
        | Attachment[]
        | undefined;
      const file = Array.isArray(part) ? part[0] : part;
      if (!file || !Buffer.isBuffer(file.content)) {
        throw badRequest(`A file part named "${upload.field}" is required`, [
          { message: 'Required', field: `body.${upload.field}` },
        ]);
      }
      if (file.truncated) {
        throw payloadTooLarge(`The file is larger than ${upload.maxBytes / (1024 * 1024)} MiB`);
      }
      requestState(request).upload = file.content;
    },
  };
};
