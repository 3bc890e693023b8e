import { checkRegistration, registrationOptions } from '../../shared/passkeys/ceremonies.js';
import { addPasskey } from '../../shared/store/passkeys.js';
import type { UserRecord } from '../../shared/store/user-repository.js';
import { SoftAuthenticator } from './soft-authenticator.js';

/** The issuer of the int tests (vitest.config.ts): the RP ID is its host, its origin the only one. */
export const LOCAL_RP = { rpId: 'localhost', origin: 'http://localhost' };

/**
 * A passkey of the person, made by `authenticator` for the service's registration options and
 * checked and stored as an enrolment would (the pages that enrol are tested on their own).
 */
export const storedPasskey = async (
  user: Pick<UserRecord, 'id' | 'email' | 'name' | 'organizationId'>,
  authenticator = new SoftAuthenticator(LOCAL_RP),
  name = 'Laptop',
) => {
  const options = await registrationOptions(user, 'Org', []);
  const checked = await checkRegistration(authenticator.register(options), options.challenge);
  if (!checked.verified) throw new Error(checked.reason);
  const passkey = await addPasskey({
    ...checked.value,
    organizationId: user.organizationId,
    userId: user.id,
    name,
  });
  return { authenticator, passkey };
};
