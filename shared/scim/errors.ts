import { ApiError } from '../http/errors.js';

/** RFC 7644 section 3.12's `scimType` values this server answers. */
export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue';

/**
 * A refusal in SCIM's terms: an `ApiError` (so the chain maps it once, like any other) that also
 * names its `scimType`. The SCIM error renderer (shared/scim/error-body.ts) answers it in SCIM's
 * error shape.
 */
export class ScimError extends ApiError {
  constructor(
    status: number,
    readonly scimType: ScimType | undefined,
    detail: string,
  ) {
    super(status, detail);
    this.name = 'ScimError';
  }
}

export const invalidFilter = (detail: string) => new ScimError(400, 'invalidFilter', detail);
export const invalidSyntax = (detail: string) => new ScimError(400, 'invalidSyntax', detail);
export const invalidValue = (detail: string) => new ScimError(400, 'invalidValue', detail);
export const invalidPath = (detail: string) => new ScimError(400, 'invalidPath', detail);
export const noTarget = (detail: string) => new ScimError(400, 'noTarget', detail);
export const mutability = (detail: string) => new ScimError(400, 'mutability', detail);
/** More than one answer holds (RFC 7644 section 3.12: also what a too-wide filter gets). */
export const tooMany = (detail: string) => new ScimError(400, 'tooMany', detail);
/** An endpoint RFC 7644 names that this server does not offer (its ServiceProviderConfig says so). */
export const notImplemented = (detail: string) => new ScimError(501, undefined, detail);
