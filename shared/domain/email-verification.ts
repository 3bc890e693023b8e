/**
 * OpenID Connect Core 5.1's `email_verified`: whether the person proved they hold the email
 * address they have now (an emailed link they used, or an SSO provider that vouched for it). An
 * email changed since is not verified until proven again; people who joined before this was
 * kept count as not verified until their next emailed link or federated sign-in.
 */
export const emailVerified = (user: { email: string; verifiedEmail?: string | undefined }): boolean =>
  user.verifiedEmail !== undefined && user.verifiedEmail === user.email;
