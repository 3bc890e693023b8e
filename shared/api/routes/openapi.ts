import * as z from '../../zod.js';
import { routeGroup } from '../route-definition.js';

/** The OpenAPI document of the management API. */
export const openApiRoutes = routeGroup('openapi')({
  getOpenApiDocument: {
    route: 'GET /idp/openapi.json',
    kind: 'public',
    summary: 'This OpenAPI document',
    description:
      'Public, no token: every management operation with its schemas, limits and examples, generated from the route table. It does not describe itself.',
    response: { status: 200, description: 'OpenAPI 3.0.0 document', body: z.looseObject({}) },
  },
});
