import { createOpenApiDocument } from '../shared/api/openapi.js';
import { openApiRoutes } from '../shared/api/routes/openapi.js';
import { config } from '../shared/config.js';
import { groupHandler } from '../shared/http/group-handler.js';

let document: ReturnType<typeof createOpenApiDocument> | undefined;

/** `GET /idp/openapi.json`, generated once per instance from the route table. */
export const handler = groupHandler(openApiRoutes, {
  getOpenApiDocument: () => {
    document ??= createOpenApiDocument(config().publicOrigin);
    return { body: document as unknown as Record<string, unknown> };
  },
});
