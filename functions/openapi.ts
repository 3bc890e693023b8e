import { createOpenApiDocument } from '../shared/api/openapi.js';
import { tokenSettings } from '../shared/auth/token-service.js';
import { groupHandler } from '../shared/http/group-handler.js';

let document: ReturnType<typeof createOpenApiDocument> | undefined;

/** `GET /idp/openapi.json`, generated once per instance from the route table. */
export const handler = groupHandler('openapi', {
  getOpenApiDocument: () => {
    document ??= createOpenApiDocument(tokenSettings().issuer);
    return { body: document as unknown as Record<string, unknown> };
  },
});
