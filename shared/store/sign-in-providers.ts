import { keys } from './keys.js';
import { queryPartition } from './query.js';
import { SsoProviderBindingEntity } from './sso-entities.js';

/**
 * The SSO providers people of an organization may sign in through (those with an upstream
 * issuer), from the organization's bindings: one Query. Apart from the SSO repository, so that
 * the sign-in page's function bundles no secret store.
 */
export interface SignInOption {
  clientId: string;
  displayName: string;
  emailDomains: readonly string[];
  /** When it was bound to the organization; none on bindings written before that was kept. */
  boundAt?: number | undefined;
}

export const signInOptions = async (orgId: string): Promise<SignInOption[]> =>
  (await queryPartition(keys.ssoProviderBindingPartition(orgId)))
    .map(SsoProviderBindingEntity.decode)
    .filter((binding) => binding.issuer !== undefined)
    .map((binding) => ({
      clientId: binding.clientId,
      displayName: binding.displayName ?? binding.clientId,
      emailDomains: binding.emailDomains ?? [],
      boundAt: binding.boundAt,
    }));

/** The provider that serves the email's domain, if any (domains are stored lowercase). */
export const providerForEmail = (
  options: readonly SignInOption[],
  email: string,
): SignInOption | undefined => {
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return domain ? options.find((option) => option.emailDomains.includes(domain)) : undefined;
};

/**
 * The provider serving the email's domain when it is not the one that made a sign-in (`provider`,
 * undefined for a password's or a passkey's): such a sign-in no longer stands for the person, who
 * signs in at that provider, so that its offboarding holds.
 */
export const routedAround = (
  options: readonly SignInOption[],
  email: string,
  provider: string | undefined,
): SignInOption | undefined => {
  const routedTo = providerForEmail(options, email);
  return routedTo && routedTo.clientId !== provider ? routedTo : undefined;
};

/** What a sign-in (a session, a grant) records of the SSO provider that made it. */
export interface MadeThrough {
  /** Its client id; undefined for a password's or a passkey's sign-in. */
  provider?: string | undefined;
  /** When it was bound to the organization; none on sign-ins from before that was kept. */
  providerBoundAt?: number | undefined;
}

/**
 * Whether the provider that made a sign-in is no longer among the organization's sign-in options
 * as it was then (deleted, unbound, its issuer removed, or bound anew since: deleted and created
 * again under the same client id). Such a sign-in ends with it: the operator took the provider's
 * say away. A sign-in that records no bound time is compared by client id alone.
 */
export const providerWithdrawn = (options: readonly SignInOption[], signIn: MadeThrough): boolean => {
  if (signIn.provider === undefined) return false;
  const option = options.find(({ clientId }) => clientId === signIn.provider);
  return (
    option === undefined ||
    (signIn.providerBoundAt !== undefined && option.boundAt !== signIn.providerBoundAt)
  );
};

/**
 * The provider a person's own email change would take their account away from: the one serving
 * their address now, when it does not serve the new one. They could then set a password at the
 * new address and sign in without it, past the provider's offboarding.
 */
export const providerLosing = (
  options: readonly SignInOption[],
  from: string,
  to: string,
): SignInOption | undefined => {
  const serving = providerForEmail(options, from);
  return serving && providerForEmail(options, to)?.clientId !== serving.clientId ? serving : undefined;
};
