import { InvalidReference } from './errors.js';

/**
 * Policies apply to RESTRICTED API clients only (spec section 2): a STANDARD client that would
 * carry some is refused. The store applies it to every registration; the operator CLI asks it
 * before it makes anything for a client it would then refuse.
 */
export const refuseStandardClientPolicies = (
  clientType: 'STANDARD' | 'RESTRICTED',
  policies: readonly string[],
) => {
  if (clientType === 'STANDARD' && policies.length > 0) {
    throw new InvalidReference('Only a RESTRICTED client carries policies', [
      { message: 'Must be empty for a STANDARD client', field: 'policies', rejectedValue: policies },
    ]);
  }
};
