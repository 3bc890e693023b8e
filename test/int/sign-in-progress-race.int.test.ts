import { beforeAll, describe, expect, it } from 'vitest';
import { authorize, submitSignIn } from '../../shared/auth/browser-sign-in.js';
import { submitContinue, submitTotp } from '../../shared/auth/sign-in-step-forms.js';
import { sealTotpSecret } from '../../shared/auth/totp-sealing.js';
import { newTotpSecret } from '../../shared/domain/totp.js';
import { keys } from '../../shared/store/keys.js';
import { redeemAuthorizationCode } from '../../shared/store/sign-in-state.js';
import { type UserRecord, updateUserAttributes } from '../../shared/store/user-repository.js';
import { useDatabase } from '../support/database.js';
import {
  alertOf,
  authorizationQuery,
  CHALLENGE,
  PASSWORD,
  type Page,
  PagesBrowser,
  pendingTotpSecret,
  personWithPassword,
  REDIRECT,
  requestIdOf,
  signInSetup,
  textOf,
  totpCodeAt,
} from '../support/hosted-pages.js';
import { beforeCommand, sameKey } from '../support/interleave.js';
import { getItem } from '../support/records.js';

/**
 * A step writes its progress on a pending request only while the request names whom the step read
 * it naming (recordSignInProgress). Otherwise a password of another person posted on the same
 * request, whose progress landed between an enrolment's read and its write, would be left holding
 * the enrolling person's `mfa`: someone who knows the victim's password but not their second
 * factor (a member of the organization not yet enrolled, or after resetting their own) would be
 * signed in as the victim with `amr` `["pwd","otp","mfa"]`.
 */

useDatabase();

let shared: Awaited<ReturnType<typeof signInSetup>>;
let victim: UserRecord;
beforeAll(async () => {
  shared = await signInSetup({ mfaEnabled: true });
  victim = await personWithPassword(shared.organization.id);
  // The victim has an authenticator app: a password alone must never sign them in.
  const owner = { organizationId: shared.organization.id, userId: victim.id };
  await updateUserAttributes(owner.organizationId, owner.userId, {
    totpSecret: await sealTotpSecret(owner, newTotpSecret()),
  });
});

/** The person and amr a page that redirects with a code signed in, if any. */
const signedIn = async (page: Page) => {
  const location = page.headers?.location;
  if (typeof location !== 'string') return undefined;
  const code = new URL(location, 'https://idp.invalid').searchParams.get('code');
  if (!code) return undefined;
  const redemption = await redeemAuthorizationCode(
    code,
    { clientId: shared.application.id, redirectUri: REDIRECT, codeChallenge: CHALLENGE },
    'family',
  );
  return redemption.outcome === 'redeemed'
    ? { userId: redemption.grant.userId, amr: redemption.grant.amr }
    : undefined;
};

const isProgressWrite = (input: Record<string, unknown>, request: string) =>
  sameKey(input.Key, keys.authorizationRequest(request)) &&
  typeof input.UpdateExpression === 'string' &&
  (input.UpdateExpression as string).startsWith('SET ');

describe("a pending request taken over between a step's read and its write", () => {
  it('positive control: the victim password after the attacker identified on the request is refused', async () => {
    const attacker = await personWithPassword(shared.organization.id);
    const browser = new PagesBrowser();
    const request = requestIdOf(await browser.get(authorize, authorizationQuery(shared.application.id)));
    await browser.post(submitSignIn, { request, email: attacker.email, password: PASSWORD });
    const taken = await browser.post(submitSignIn, { request, email: victim.email, password: PASSWORD });
    expect(taken.statusCode).toBe(400);
    // And the victim's password alone leads to the code challenge, never a code.
    const alone = new PagesBrowser();
    const own = requestIdOf(await alone.get(authorize, authorizationQuery(shared.application.id)));
    const page = await alone.post(submitSignIn, { request: own, email: victim.email, password: PASSWORD });
    expect(page.statusCode).toBe(200);
    expect(await signedIn(page)).toBeUndefined();
  });

  it('never signs the victim in with the attacker enrolment as their second factor', async () => {
    const attacker = await personWithPassword(shared.organization.id);
    const browser = new PagesBrowser();
    const request = requestIdOf(await browser.get(authorize, authorizationQuery(shared.application.id)));

    let enrolment: Promise<Page> | undefined;
    let victimSignIn: Promise<Page> | undefined;
    let enrolmentPaused: () => void = () => {};
    const enrolmentAtItsWrite = new Promise<void>((resolve) => {
      enrolmentPaused = resolve;
    });
    // The enrolment's own write of its progress (amr only, no userId) waits for the victim's.
    const enrolmentWrite = beforeCommand(
      (input) =>
        isProgressWrite(input, request) &&
        !String(input.UpdateExpression).includes('#userId') &&
        String(input.UpdateExpression).includes('#amr'),
      async () => {
        enrolmentPaused();
        await victimSignIn;
      },
    );
    // The victim's password was read with the request still fresh; just before its progress
    // is written, the attacker identifies on the request and posts their enrolment code, which
    // reads the request (attacker's) and pauses before its own write.
    const victimWrite = beforeCommand(
      (input) =>
        isProgressWrite(input, request) &&
        (input.ExpressionAttributeValues as Record<string, unknown> | undefined)?.[':userId'] === victim.id,
      async () => {
        const own = await browser.post(submitSignIn, { request, email: attacker.email, password: PASSWORD });
        expect(own.headers?.location).toMatch(/^\/signin\/enrol/);
        const secret = await pendingTotpSecret(request);
        enrolment = browser.post(submitTotp, { request, code: totpCodeAt(secret) });
        await enrolmentAtItsWrite;
      },
    );
    try {
      victimSignIn = browser.post(submitSignIn, { request, email: victim.email, password: PASSWORD });
      const victimPage = await victimSignIn;
      expect(victimWrite.ran).toBe(true);
      // The attacker's progress came between the victim's read and write: the victim's is not
      // written, and the page says the request is over.
      expect(victimPage.statusCode).toBe(400);
      // The attacker's enrolment, as read, is theirs alone.
      const codesPage = await (enrolment as Promise<Page>);
      expect(enrolmentWrite.ran).toBe(true);
      expect(codesPage.statusCode, alertOf(codesPage) ?? textOf(codesPage).slice(0, 200)).toBe(200);
    } finally {
      victimWrite.stop();
      enrolmentWrite.stop();
    }
    const pending = await getItem(keys.authorizationRequest(request));
    // What the request now holds, and what Continue makes of it.
    const finished = await browser.post(submitContinue, { request });
    const person = await signedIn(finished);
    // The code Continue issues is the attacker's own; never the victim's.
    expect(pending).toMatchObject({ userId: attacker.id, amr: ['pwd', 'otp', 'mfa'] });
    expect(person).toEqual({ userId: attacker.id, amr: ['pwd', 'otp', 'mfa'] });
  });
});
