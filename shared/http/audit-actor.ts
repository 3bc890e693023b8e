import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { AuditActor } from '../audit/record.js';
import { asOneLine } from '../schemas/text.js';

type WithJwtClaims = APIGatewayProxyEventV2 & {
  requestContext: { authorizer?: { jwt?: { claims?: Record<string, unknown> } } };
};

/**
 * Who a request acts as, for its audit records: the verified token's subject on management routes
 * (API Gateway's authorizer passes these scalar claims as they are), with the application a
 * person acts through, an anonymous person on hosted
 * pages until the page learns who; and always the address and user agent API Gateway saw.
 */
export const actorOfRequest = (event: APIGatewayProxyEventV2): AuditActor => {
  const claims = (event as WithJwtClaims).requestContext.authorizer?.jwt?.claims;
  const { sourceIp, userAgent } = event.requestContext.http;
  const subject = typeof claims?.sub === 'string' ? claims.sub : undefined;
  const type = subject && claims?.principal_type === 'client' ? 'client' : 'user';
  // A person's token names the application they act through (RFC 9068 `client_id`).
  const clientId = type === 'user' && typeof claims?.client_id === 'string' ? claims.client_id : undefined;
  // And their name, when the sign-in granted `profile` (shared/auth/sign-in-tokens.ts).
  const name =
    type === 'user' && typeof claims?.name === 'string' ? asOneLine(claims.name).slice(0, 200) : '';
  return {
    type,
    id: subject ?? 'anonymous',
    ...(name ? { name } : {}),
    ...(clientId ? { clientId } : {}),
    ...(sourceIp ? { ip: sourceIp } : {}),
    // As sent, but one line and bounded: a record answers it back.
    ...(userAgent ? { userAgent: asOneLine(userAgent).slice(0, 512) } : {}),
  };
};
