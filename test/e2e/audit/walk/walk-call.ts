import type { AuditAction } from '../../../../shared/audit/actions.js';
import type { ClientCaller, TestService } from '../../../support/service.js';

export type { ClientCaller, TestService };

/**
 * One valid call of a write route for the route-table walk (route-walk.e2e.test.ts): what it
 * needs made first in a fresh organization, the call, and what its record must name. Each
 * endpoint group's calls live in a file of their own here.
 */
export interface WalkCall<S = Record<string, string>> {
  /** Makes what the call acts on, through the API (as `org`) or the store; answers what the call uses. */
  prepare?: (service: TestService, org: ClientCaller) => Promise<S>;
  /** The path with its parameters filled in (and a query, if any). */
  path: (made: S, org: ClientCaller) => string;
  body?: (made: S, org: ClientCaller) => unknown;
  /** A multipart/form-data body instead (a picture upload). */
  form?: (made: S, org: ClientCaller) => FormData;
  /**
   * Who calls, where not the organization's administrator client (a user acting on its own
   * account, its token made by `prepare`): the token, and the actor the record must name.
   */
  as?: (made: S) => { token: string; actor: { type: 'user' | 'client'; id: string } };
  /**
   * An id the record names among its targets, from what was made or from the answer (a created
   * resource's Location); absent for a route that records nothing (`audit: []`).
   */
  target?: (made: S, answer: { headers: Headers; body: unknown }) => string;
  /** The action expected, where the route names several. */
  action?: AuditAction;
}

/** A group's calls, keyed by operationId; `satisfies` keeps each call's own type. */
export type WalkCalls = Record<string, WalkCall<never>>;

export const walkCall = <S>(call: WalkCall<S>): WalkCall<never> => call as unknown as WalkCall<never>;
