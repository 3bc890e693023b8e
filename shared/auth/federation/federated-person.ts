import { emailVerified } from '../../domain/email-verification.js';
import { Conflict } from '../../domain/errors.js';
import { federatedAuthTime, upstreamSignInEnded } from '../../domain/federated-authentication.js';
import { logger } from '../../http/logger.js';
import { countMetric } from '../../observability/metrics.js';
import { asOneLine, cutText, DISPLAY_NAME_MAX } from '../../schemas/text.js';
import type { SignInOption } from '../../store/sign-in-providers.js';
import { linkedUserId, linkSsoSubject, SsoLinkTaken } from '../../store/sso-links.js';
import type { SsoProvider } from '../../store/sso-provider-repository.js';
import {
  createFederatedUser,
  findUserByEmail,
  getUser,
  type UserRecord,
  updateUserAttributes,
} from '../../store/user-repository.js';
import { retryOnConcurrentChange } from '../../store/writes.js';
import type { Person } from '../sign-in-steps.js';
import type { UpstreamIdentity } from './upstream.js';

/**
 * Who the upstream's validated answer is in the organization: the person its subject is linked
 * to; otherwise matched by verified email, or created just in time when the provider allows it,
 * and linked; or why nobody is.
 */

type Outcome =
  | { person: Person; user: UserRecord }
  /** `user`: the person it matched, when there is one. */
  | { refusal: string; message: string; user?: UserRecord; status?: 409; signInAgain?: true };

/** How the pages name a provider. */
export const providerName = (provider: { displayName?: string | undefined; clientId: string }) =>
  provider.displayName ?? provider.clientId;

/** A name as the API allows one (one line, at most 200 characters), from what the upstream claims. */
const nameOf = (claimed: string | undefined, email: string): string =>
  cutText(asOneLine(claimed ?? '').trim(), DISPLAY_NAME_MAX).trim() || email.slice(0, DISPLAY_NAME_MAX);

const findOrCreate = async (
  organizationId: string,
  provider: SsoProvider,
  identity: UpstreamIdentity,
  email: string,
  existing: UserRecord | undefined,
) => {
  if (existing || !provider.jitProvisioning) return existing;
  try {
    const created = await createFederatedUser({
      organizationId,
      email,
      name: nameOf(identity.name, email),
      userType: 'STANDARD',
      createdBy: `sso:${provider.clientId}`,
    });
    countMetric('UsersProvisioned');
    logger.info('user provisioned just in time', {
      organizationId,
      userId: created.id,
      ssoClientId: provider.clientId,
    });
    return created;
  } catch (error) {
    // A concurrent first sign-in of the same person created them.
    if (error instanceof Conflict) return findUserByEmail(organizationId, email);
    throw error;
  }
};

/**
 * The person the subject is linked to; an ACTIVE one's address is verified from now on when it is
 * the one the provider vouched for (an inactive one is refused, and nothing is written for it).
 */
const linkedAccount = async (
  linkedId: string,
  byEmail: UserRecord | undefined,
  organizationId: string,
  email: string,
): Promise<{ user?: UserRecord | undefined }> => {
  const user = linkedId === byEmail?.id ? byEmail : await getUser(organizationId, linkedId, true);
  if (user?.status !== 'ACTIVE' || emailVerified(user) || user.email.toLowerCase() !== email.toLowerCase())
    return { user };
  await updateUserAttributes(user.organizationId, user.id, { verifiedEmail: user.email });
  return { user: { ...user, verifiedEmail: user.email } };
};

/**
 * The account of the upstream's subject: the one it is linked to; otherwise the one its verified
 * email matches (or creates), linked to it from now on. `taken`: the matched account is linked to
 * another subject of the provider. Matched again when the person changed meanwhile.
 */
const accountOf = (
  organizationId: string,
  provider: SsoProvider,
  identity: UpstreamIdentity,
  email: string,
): Promise<{ user?: UserRecord | undefined; taken?: true; unvouched?: true }> =>
  retryOnConcurrentChange(async () => {
    const upstream = { clientId: provider.clientId, issuer: identity.issuer, subject: identity.subject };
    const [linkedId, byEmail] = await Promise.all([
      linkedUserId(organizationId, upstream),
      findUserByEmail(organizationId, email),
    ]);
    if (linkedId !== undefined) return linkedAccount(linkedId, byEmail, organizationId, email);
    // Only a provider that names the domains it speaks for vouches for an address: otherwise its
    // upstream could name anyone's (an administrator's) and take that account.
    if (!provider.emailDomains?.length) return byEmail ? { unvouched: true } : {};
    const user = await findOrCreate(organizationId, provider, identity, email, byEmail);
    if (user?.status !== 'ACTIVE') return { user };
    // The provider vouched for the email it was matched by: verified from now on, as written here.
    const verifiedEmail = emailVerified(user) ? undefined : user.email;
    try {
      await linkSsoSubject(user, { ...upstream, verifiedEmail });
    } catch (error) {
      if (!(error instanceof SsoLinkTaken)) throw error;
      // A concurrent sign-in linked the subject first (this person's, in another tab): whoever
      // holds it now. Otherwise the person is linked to another subject of the provider.
      const linkedMeanwhile = await linkedUserId(organizationId, upstream);
      if (linkedMeanwhile !== undefined)
        return linkedAccount(linkedMeanwhile, byEmail, organizationId, email);
      return { user, taken: true };
    }
    return { user: verifiedEmail === undefined ? user : { ...user, verifiedEmail } };
  }, 3);

export const federatedPerson = async (
  identity: UpstreamIdentity,
  provider: SsoProvider,
  target: { organizationId: string; organizationName: string },
  options: readonly SignInOption[],
): Promise<Outcome> => {
  const name = providerName(provider);
  const { email } = identity;
  if (!email || !identity.emailVerified) {
    return {
      refusal: 'email-not-verified',
      message: `${name} did not confirm your email address, so it cannot be matched to an account of ${target.organizationName}. Contact your administrator.`,
    };
  }
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  // A provider speaks only for its own domains when it has some, and never for another's.
  const servedElsewhere = options.some(
    (option) => option.clientId !== provider.clientId && option.emailDomains.includes(domain),
  );
  if ((provider.emailDomains?.length && !provider.emailDomains.includes(domain)) || servedElsewhere) {
    return {
      refusal: 'email-domain-not-served',
      message: `${name} does not sign in people with ${domain} addresses here. Contact your administrator.`,
    };
  }
  let account: Awaited<ReturnType<typeof accountOf>>;
  try {
    account = await accountOf(target.organizationId, provider, identity, email);
  } catch (error) {
    // The person kept changing (or the writes kept colliding) while this sign-in matched them.
    if (!(error instanceof Conflict)) throw error;
    return {
      refusal: 'concurrent-change',
      status: 409,
      message: 'Your account was being changed while you signed in. Try again.',
    };
  }
  const { user, taken, unvouched } = account;
  if (unvouched) {
    return {
      refusal: 'email-domain-not-served',
      message: `${name} names no email domains it signs in here, so it cannot be matched to your account. Contact your administrator.`,
    };
  }
  if (user && taken) {
    return {
      refusal: 'linked-to-another-identity',
      message: `This account is linked to another ${name} identity. Contact your administrator.`,
      user,
    };
  }
  if (!user) {
    return {
      refusal: 'no-such-user',
      message: `${email} has no account in ${target.organizationName}. Ask your administrator to invite you.`,
    };
  }
  if (user.status !== 'ACTIVE') {
    return { refusal: 'inactive', message: 'This account cannot sign in. Contact your administrator.', user };
  }
  // Trusted for MFA: the upstream's own multi-factor sign-in (RFC 8176 `mfa`) replaces the TOTP step.
  const mfa = provider.trustedForMfa === true && identity.amr.includes('mfa');
  if (upstreamSignInEnded(identity.authTime, user.credentialsChangedAt)) {
    return {
      refusal: 'upstream-sign-in-ended',
      message: `Your sign-in at ${name} is older than a change to your account here. Sign in at ${name} again.`,
      user,
      signInAgain: true,
    };
  }
  const authTime = federatedAuthTime(identity.authTime, Date.now(), user.credentialsChangedAt);
  // Which binding of the provider made the sign-in: it ends with that binding (sign-in-providers.ts).
  const boundAt = provider.boundAt?.[target.organizationId];
  return {
    user,
    person: {
      userId: user.id,
      authTime,
      amr: mfa ? ['fed', 'mfa'] : ['fed'],
      provider: provider.clientId,
      ...(boundAt !== undefined ? { providerBoundAt: boundAt } : {}),
    },
  };
};
