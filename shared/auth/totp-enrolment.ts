import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { renderSVG } from 'uqr';
import { otpauthUri } from '../domain/totp.js';
import { totpEnrolmentPage } from '../pages/account-pages.js';
import { errorPage } from '../pages/sign-in-pages.js';
import { getUser } from '../store/user-repository.js';
import { pendingRequestOf, signInTarget } from './sign-in-requests.js';
import { EXPIRED, type Page, WRONG_CODE } from './sign-in-steps.js';
import { openTotpSecret } from './totp-sealing.js';

/**
 * `GET /signin/enrol?request=...`: the enrolment page of a pending sign-in whose person has no
 * TOTP secret yet: the key's `otpauth://` URI as a QR code and as text, and the code form that
 * posts to `/signin/totp`. Only the browser that made the request sees the key.
 */
const ISSUER_LABEL_LENGTH = 40;

/** The URI as a QR code; none for one too long to fit (the key and the link still show as text). */
const qrCodeOf = (uri: string): { qrSvg?: string } => {
  try {
    return { qrSvg: renderSVG(uri, { border: 2 }) };
  } catch {
    return {};
  }
};

/** A passkey offered instead of the code was refused (shared/passkeys/passkey-sign-in.ts). */
const PASSKEY_REFUSED =
  'The passkey could not be used. Try it again, or set up your authenticator app with the key below.';

export const showTotpEnrolment = async (event: APIGatewayProxyEventV2): Promise<Page> => {
  const query = new URLSearchParams(event.rawQueryString);
  const pending = await pendingRequestOf(event, query.get('request'));
  if (!pending?.totpEnrolment || !pending.userId) return errorPage(400, EXPIRED);
  const [user, target, secret] = await Promise.all([
    getUser(pending.organizationId, pending.userId, true),
    signInTarget(pending.organizationId, pending.clientId),
    openTotpSecret({ organizationId: pending.organizationId, userId: pending.userId }, pending.totpEnrolment),
  ]);
  if (!secret) return errorPage(400, EXPIRED);
  if (user?.status !== 'ACTIVE')
    return errorPage(403, 'This account cannot sign in. Contact your administrator.');
  // The issuer is only the app's label for the key: a long name (200 characters of CJK are 3,600
  // in the URI, twice) would not fit a QR code.
  const issuer = [...target.names.organizationName].slice(0, ISSUER_LABEL_LENGTH).join('');
  const uri = otpauthUri({ issuer, account: user.email, secret });
  return totpEnrolmentPage({
    ...target.names,
    requestId: pending.id,
    secret,
    otpauthUri: uri,
    ...qrCodeOf(uri),
    ...(query.get('retry')
      ? { error: WRONG_CODE }
      : query.get('passkey') === 'refused'
        ? { error: PASSKEY_REFUSED }
        : {}),
    passkeys: (user.passkeyCount ?? 0) > 0,
  });
};
