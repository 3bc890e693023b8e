import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { RouteDefinition } from '../../api/route-definition.js';
import { badRequest, payloadTooLarge, unsupportedMediaType } from '../errors.js';
import { requestState } from '../request-state.js';

const MULTIPART_FORM_DATA = /^multipart\/form-data\s*;(.*;)?\s*boundary=/i;

/**
 * Parses a multipart/form-data upload and keeps the one file part the route wants. The body is
 * whole in memory (API Gateway buffers it), so it is parsed with the runtime's own form-data parser
 * (undici, behind `Response.formData()`), which answers or fails at once on any input; the stream
 * parser Middy uses can wait forever on a part without headers.
 */
export const multipartFile = (route: RouteDefinition): MiddlewareObj<APIGatewayProxyEventV2> => {
  const upload = route.request.multipartFile;
  if (!upload) throw new Error(`${route.operationId} takes no upload`);
  return {
    before: async (request) => {
      const { headers, body, isBase64Encoded } = request.event;
      const contentType = headers['content-type'] ?? '';
      if (!MULTIPART_FORM_DATA.test(contentType)) {
        throw unsupportedMediaType('The request body must be multipart/form-data with a boundary');
      }
      const bytes = Buffer.from(body ?? '', isBase64Encoded ? 'base64' : 'utf8');
      let form: FormData;
      try {
        form = await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
      } catch {
        throw badRequest('The request body is not valid multipart/form-data');
      }
      const file = form.get(upload.field);
      if (!(file instanceof Blob)) {
        throw badRequest(`A file part named "${upload.field}" is required`, [
          { message: 'Required', field: `body.${upload.field}` },
        ]);
      }
      if (file.size > upload.maxBytes) {
        throw payloadTooLarge(`The file is larger than ${upload.maxBytes / (1024 * 1024)} MiB`);
      }
      requestState(request).upload = new Uint8Array(await file.arrayBuffer());
    },
  };
};
