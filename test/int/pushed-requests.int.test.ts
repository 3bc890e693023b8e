import { describe, expect, it } from 'vitest';
import { pushedRequestAnswer } from '../../shared/auth/pushed-authorization.js';
import {
  PUSHED_REQUEST_SECONDS,
  pushAuthorizationRequest,
  takePushedRequest,
} from '../../shared/store/pushed-requests.js';
import { useDatabase } from '../support/database.js';
import { createTestApplication, createTestOrganization } from '../support/records.js';

useDatabase();

const REDIRECT = 'https://app.example/callback';

describe('pushed authorization requests in the store', () => {
  it('answers a request_uri until its 60 s have passed, not after', async () => {
    const now = Date.now();
    const parameters = new URLSearchParams({ client_id: 'app', scope: 'openid' });
    const inTime = await pushAuthorizationRequest('app', parameters, now);
    const late = await pushAuthorizationRequest('app', parameters, now);
    const lastMoment = now + PUSHED_REQUEST_SECONDS * 1000 - 1;
    expect((await takePushedRequest(inTime, 'app', lastMoment))?.parameters.toString()).toBe(
      parameters.toString(),
    );
    expect(await takePushedRequest(late, 'app', lastMoment + 1)).toBeUndefined();
  });

  it('keeps the parameters without the client secret', async () => {
    const organization = await createTestOrganization();
    const application = await createTestApplication(organization.id, { redirectUris: [REDIRECT] });
    const client = { id: application.id };
    const clientSecret = 'the-secret-the-application-posted';
    const form = new URLSearchParams({
      client_id: client.id,
      client_secret: clientSecret,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    const { request_uri } = await pushedRequestAnswer(form, application);
    const stored = (await takePushedRequest(request_uri, client.id))?.parameters;
    expect(stored?.get('redirect_uri')).toBe(REDIRECT);
    expect(stored?.has('client_secret')).toBe(false);
    expect(stored?.toString()).not.toContain(clientSecret);
  });
});
