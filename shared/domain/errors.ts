/**
 * Refusals of the domain rules and the store. They name what was refused and speak no protocol:
 * the HTTP error middleware maps them to statuses once (shared/http/error-mapping.ts), the operator
 * CLI to exit codes once (bin/admin/cli.ts).
 */

/** A field of the caller's input that caused a refusal, relative to the input (`roles.1`). */
export interface FieldProblem {
  field: string;
  message: string;
  rejectedValue?: unknown;
}

export abstract class DomainError extends Error {
  constructor(
    message: string,
    readonly fields: readonly FieldProblem[] = [],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The entity does not exist, or not for this caller (another organization's is the same). */
export class NotFound extends DomainError {
  constructor(
    readonly entity: string,
    readonly id?: string,
    fields: readonly FieldProblem[] = [],
  ) {
    super(`${entity} not found`, fields);
  }
}

/** A uniqueness rule or a concurrent change refuses the write; repeating it may succeed later. */
export class Conflict extends DomainError {
  constructor(
    readonly entity: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Other requests changed what this one changes until it gave up: a Conflict that is no uniqueness
 * rule, which repeating the request may get past (SCIM answers it without `scimType: uniqueness`).
 */
export class ChangedMeanwhile extends Conflict {}

/**
 * The holder has the most of something it may have (a user in the most groups one may be in): a
 * Conflict until one is removed. SCIM answers it as the invalid member it is (400 invalidValue).
 */
export class HolderLimitReached extends Conflict {}

/** The input names something that does not exist or may not be used here (a field names it). */
export class InvalidReference extends DomainError {}

/** The state of things does not allow the operation (a rule, not a missing entity). */
export class PreconditionFailed extends DomainError {}

/** The input, or what it would make, is larger than a limit allows. */
export class LimitExceeded extends DomainError {}
