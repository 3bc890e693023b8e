import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authorize, submitSignIn } from '../../shared/auth/browser-sign-in.js';
import { submitConsent, submitTotp } from '../../shared/auth/sign-in-step-forms.js';
import { config } from '../../shared/config.js';
import { logger } from '../../shared/http/logger.js';
import { countMetric } from '../../shared/observability/metrics.js';
import {
  type Agreement,
  hasAcceptedLatest,
  publishAgreement,
  recordConsent,
} from '../../shared/store/consent-repository.js';
import { db, tableName } from '../../shared/store/dynamo.js';
import { keys } from '../../shared/store/keys.js';
import { digestOf } from '../../shared/store/opaque-values.js';
import { endSession } from '../../shared/store/sign-in-state.js';
import { updateUserAttributes } from '../../shared/store/user-repository.js';
import { auditTrail } from '../support/audit.js';
import { useDatabase } from '../support/database.js';
import {
  alertOf,
  authorizationQuery,
  locationOf,
  PASSWORD,
  PagesBrowser,
  personWithPassword,
  requestIdOf,
  signInSetup,
  textOf,
  totpCodeAt,
} from '../support/hosted-pages.js';
import { getItem } from '../support/records.js';

/**
 * Consent to the latest agreement during a sign-in (shared/auth/sign-in-steps.ts and the consent
 * form of sign-in-step-forms.ts). Agreements are the whole database's, so this file has its own.
 */

vi.mock('../../shared/observability/metrics.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../shared/observability/metrics.js')>()),
  countMetric: vi.fn(),
}));
vi.mock('../../shared/store/consent-repository.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../shared/store/consent-repository.js')>();
  return { ...actual, recordConsent: vi.fn(actual.recordConsent) };
});

useDatabase();

afterEach(() => {
  vi.mocked(countMetric).mockClear();
  vi.restoreAllMocks();
});

const EXPIRED =
  'This sign-in page has expired or was opened in another browser. Go back to the application and sign in again.';

let shared: Awaited<ReturnType<typeof signInSetup>>;
let agreement: Agreement;
beforeAll(async () => {
  shared = await signInSetup();
  agreement = await publishAgreement('https://example.com/terms-1');
});

const sessionKey = (browser: PagesBrowser) =>
  keys.session(digestOf(browser.cookies.get('idp-session') ?? ''));
const sessionOf = (browser: PagesBrowser) => getItem(sessionKey(browser));

/** A new person's password, answered with the consent page. */
const consentAsked = async (browser = new PagesBrowser()) => {
  const user = await personWithPassword(shared.organization.id);
  const form = await browser.get(authorize, authorizationQuery(shared.application.id));
  const request = requestIdOf(form);
  const page = await browser.post(submitSignIn, { request, email: user.email, password: PASSWORD });
  return { browser, user, request, page };
};

describe('consent during a sign-in', () => {
  it('asks a person who has not accepted the latest agreement, then signs them in once they accept', async () => {
    const { browser, user, request, page } = await consentAsked();
    expect(page.statusCode).toBe(200);
    expect(requestIdOf(page)).toBe(request);
    expect(textOf(page)).toContain(`value="${agreement.id}"`);
    expect(textOf(page)).toContain('https://example.com/terms-1');
    expect(page.cookies).toBeUndefined();
    expect(await getItem(keys.authorizationRequest(request))).toMatchObject({
      userId: user.id,
      amr: ['pwd'],
    });

    const info = vi.spyOn(logger, 'info');
    const done = await browser.post(submitConsent, { request, decision: 'accept', agreement: agreement.id });
    expect(done.statusCode).toBe(303);
    expect(locationOf(done).searchParams.get('code')).toBeTruthy();
    expect(info).toHaveBeenCalledWith('agreement accepted', {
      organizationId: shared.organization.id,
      userId: user.id,
      agreementId: agreement.id,
    });
    expect(vi.mocked(countMetric)).toHaveBeenCalledWith('ConsentsGiven');
    expect(done.cookies).toEqual([expect.stringMatching(/^idp-session=/)]);
    expect(await hasAcceptedLatest(shared.organization.id, user.id)).toBe(true);
    // The same consent as the API's, by the person: then their sign-in.
    const records = await auditTrail(shared.organization.id, { actorId: user.id });
    expect(records.map((record) => record.action).sort()).toEqual(['consent.accepted', 'signin.succeeded']);
    expect(records.find((record) => record.action === 'consent.accepted')).toMatchObject({
      outcome: 'success',
      actor: { type: 'user', id: user.id, name: user.email, ip: browser.sourceIp },
      targets: [{ type: 'agreement', id: agreement.id }],
      changes: {
        agreementId: { from: null, to: agreement.id },
        userId: { from: null, to: user.id },
      },
    });
    // Accepted once, not asked again; a repeat changes nothing and records nothing.
    const next = await browser.get(authorize, authorizationQuery(shared.application.id));
    expect(next.statusCode).toBe(303);
    await recordConsent(shared.organization.id, user.id, agreement.id);
    expect(
      await auditTrail(shared.organization.id, { actorId: user.id, action: 'consent.accepted' }),
    ).toHaveLength(1);
  });

  it('tells the application access_denied when the person declines, and uses the request up', async () => {
    const { browser, user, request } = await consentAsked();
    const declined = await browser.post(submitConsent, {
      request,
      decision: 'decline',
      agreement: agreement.id,
    });
    expect(Object.fromEntries(locationOf(declined).searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'The person declined the agreement',
      state: 'state-1',
      iss: 'http://localhost',
    });
    expect(await hasAcceptedLatest(shared.organization.id, user.id)).toBe(false);
    // Declined: no consent, and no sign-in, to record.
    expect(await auditTrail(shared.organization.id, { actorId: user.id })).toEqual([]);
    const again = await browser.post(submitConsent, { request, decision: 'accept', agreement: agreement.id });
    expect(alertOf(again)).toBe(EXPIRED);
  });

  it('of two answers to one consent page, only one is heard', async () => {
    const { browser, request } = await consentAsked();
    const answers = await Promise.all([
      browser.post(submitConsent, { request, decision: 'decline', agreement: agreement.id }),
      browser.post(submitConsent, { request, decision: 'decline', agreement: agreement.id }),
    ]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([303, 400]);
  });

  it('refuses an agreement id it cannot read, or one that does not exist, recording nothing', async () => {
    const { browser, user, request } = await consentAsked();
    const unreadable = await browser.post(submitConsent, { request, decision: 'accept', agreement: 'a b' });
    expect(unreadable.statusCode).toBe(400);
    expect(alertOf(unreadable)).toBe('The agreement could not be read. Sign in again.');
    const tooLong = await browser.post(submitConsent, {
      request,
      decision: 'accept',
      agreement: 'a'.repeat(65),
    });
    expect(alertOf(tooLong)).toBe('The agreement could not be read. Sign in again.');
    const unknown = await browser.post(submitConsent, {
      request,
      decision: 'accept',
      agreement: 'no-such-agreement',
    });
    expect(unknown.statusCode).toBe(400);
    expect(alertOf(unknown)).toBe('The agreement no longer exists. Sign in again.');
    expect(await hasAcceptedLatest(shared.organization.id, user.id)).toBe(false);
    // The request is still pending: the right answer goes through.
    const accepted = await browser.post(submitConsent, {
      request,
      decision: 'accept',
      agreement: agreement.id,
    });
    expect(accepted.statusCode).toBe(303);
  });

  it('asks again when the accepted agreement is no longer the latest', async () => {
    const { browser, request } = await consentAsked();
    const newer = await publishAgreement('https://example.com/terms-2');
    try {
      const page = await browser.post(submitConsent, {
        request,
        decision: 'accept',
        agreement: agreement.id,
      });
      expect(page.statusCode).toBe(200);
      expect(textOf(page)).toContain(`value="${newer.id}"`);
      const done = await browser.post(submitConsent, { request, decision: 'accept', agreement: newer.id });
      expect(done.statusCode).toBe(303);
    } finally {
      agreement = newer;
    }
  });

  it('answers prompt=none with consent_required for a session that has not accepted', async () => {
    const { browser, request } = await consentAsked();
    await browser.post(submitConsent, { request, decision: 'accept', agreement: agreement.id });
    const newer = await publishAgreement('https://example.com/terms-3');
    agreement = newer;
    const none = await browser.get(authorize, authorizationQuery(shared.application.id, { prompt: 'none' }));
    expect(Object.fromEntries(locationOf(none).searchParams)).toEqual({
      error: 'consent_required',
      error_description: 'The person must accept the agreement',
      state: 'state-1',
      iss: 'http://localhost',
    });
    // Without prompt=none the session is asked, on a new request of this browser.
    const asked = await browser.get(authorize, authorizationQuery(shared.application.id));
    expect(asked.statusCode).toBe(200);
    expect(textOf(asked)).toContain(`value="${newer.id}"`);
    expect(await getItem(keys.authorizationRequest(requestIdOf(asked)))).toMatchObject({ amr: ['pwd'] });
  });

  it('keeps the absolute end of the session a person came with when they accept a newer agreement', async () => {
    const { browser, request } = await consentAsked();
    await browser.post(submitConsent, { request, decision: 'accept', agreement: agreement.id });
    // Positive control: a sign-in with a password starts a session of the whole absolute lifetime.
    const started = Date.now();
    const fresh = await sessionOf(browser);
    expect(fresh?.endsAt).toBeGreaterThan(started + (config().signIn.sessionAbsoluteSeconds - 60) * 1000);
    // A minute before that session ends, a newer agreement asks the person again.
    const endsAt = Date.now() + 60_000;
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: sessionKey(browser),
        UpdateExpression: 'SET endsAt = :endsAt',
        ExpressionAttributeValues: { ':endsAt': endsAt },
      }),
    );
    agreement = await publishAgreement('https://example.com/terms-4');
    const asked = await browser.get(authorize, authorizationQuery(shared.application.id));
    expect(textOf(asked)).toContain(`value="${agreement.id}"`);
    const done = await browser.post(submitConsent, {
      request: requestIdOf(asked),
      decision: 'accept',
      agreement: agreement.id,
    });
    expect(locationOf(done).searchParams.get('code')).toBeTruthy();
    // Accepting is no sign-in: the session it hands over to ends when the one it replaced would have.
    expect(done.cookies).toEqual([expect.stringMatching(/^idp-session=/)]);
    expect(await sessionOf(browser)).toMatchObject({ endsAt, expiresAt: Math.ceil(endsAt / 1000) });
  });

  it('finishes no consent left open in a session the person signed out of since', async () => {
    const { browser, request } = await consentAsked();
    await browser.post(submitConsent, { request, decision: 'accept', agreement: agreement.id });
    agreement = await publishAgreement('https://example.com/terms-sign-out');
    /** The consent page a newer agreement brings to the person's live session. */
    const askedAgain = async () => {
      const asked = await browser.get(authorize, authorizationQuery(shared.application.id));
      expect(textOf(asked)).toContain(`value="${agreement.id}"`);
      return requestIdOf(asked) ?? '';
    };
    const accept = async (pending: string) =>
      browser.post(submitConsent, { request: pending, decision: 'accept', agreement: agreement.id });
    // Positive control: accepted while the session lives, it signs in.
    expect(locationOf(await accept(await askedAgain())).searchParams.get('code')).toBeTruthy();
    agreement = await publishAgreement('https://example.com/terms-sign-out-2');
    const parked = await askedAgain();
    // The person signs out (what /oauth2/logout does); whoever uses the browser next accepts.
    const cookie = browser.cookies.get('idp-session');
    expect(await endSession(cookie)).toBeDefined();
    const accepted = await accept(parked);
    expect(accepted.statusCode).toBe(400);
    expect(alertOf(accepted)).toBe(EXPIRED);
    expect(accepted.cookies ?? []).toEqual([]);
  });

  it('records no consent on a password alone where the organization asks for a second factor', async () => {
    const mfa = await signInSetup({ mfaEnabled: true });
    const secret = 'JBSWY3DPEHPK3PXP';
    await updateUserAttributes(mfa.organization.id, mfa.user.id, { totpSecret: secret });
    const browser = new PagesBrowser();
    const request = requestIdOf(await browser.get(authorize, authorizationQuery(mfa.application.id)));
    const challenge = await browser.post(submitSignIn, {
      request,
      email: mfa.user.email,
      password: PASSWORD,
    });
    expect(textOf(challenge)).toContain('name="code"');
    const early = await browser.post(submitConsent, { request, decision: 'accept', agreement: agreement.id });
    expect(alertOf(early)).toBe(EXPIRED);
    expect(await hasAcceptedLatest(mfa.organization.id, mfa.user.id)).toBe(false);
    // Positive control: after the code, the same consent is recorded.
    const code = totpCodeAt(secret);
    const consentPage = await browser.post(submitTotp, { request, code });
    expect(textOf(consentPage)).toContain(`value="${agreement.id}"`);
    await browser.post(submitConsent, { request, decision: 'accept', agreement: agreement.id });
    expect(await hasAcceptedLatest(mfa.organization.id, mfa.user.id)).toBe(true);
  });

  it('lets a failure to record the consent through as the failure it is', async () => {
    const { browser, request } = await consentAsked();
    vi.mocked(recordConsent).mockRejectedValueOnce(new Error('the table is unreachable'));
    await expect(
      browser.post(submitConsent, { request, decision: 'accept', agreement: agreement.id }),
    ).rejects.toThrow('the table is unreachable');
  });
});
