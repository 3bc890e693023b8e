import type { Request } from '@middy/core';
import type { Context } from 'aws-lambda';
import type { RouteDefinition } from '../api/route-definition.js';
import type { Principal } from '../auth/principal.js';

/** What the middleware chain learns about a request; kept on the Lambda context for the handler. */
export interface RequestState {
  route: RouteDefinition;
  requestId: string;
  receivedAt: number;
  principal?: Principal;
  input?: { path: unknown; query: unknown; body: unknown };
  /** A read's admission, running beside its handler (middleware/admission.ts). */
  admission?: Promise<void>;
  /** The file of a multipart upload route. */
  upload?: Uint8Array;
}

type ContextWithState = Context & { idp?: RequestState };

export const stateOfContext = (context: Context): RequestState => {
  const withState = context as ContextWithState;
  withState.idp ??= {} as RequestState;
  return withState.idp;
};

export const requestState = (request: Request): RequestState => stateOfContext(request.context);
