import { describe, expect, it } from 'vitest';
import { providerWithdrawn, type SignInOption } from '../../shared/store/sign-in-providers.js';

/** Whether a federated sign-in outlives its provider (docs/single-sign-on.md, "Operators"). */

const BOUND_AT = 1_700_000_000_000;
const acme: SignInOption = {
  clientId: 'acme',
  displayName: 'Acme',
  emailDomains: ['acme.example'],
  boundAt: BOUND_AT,
};

describe('providerWithdrawn', () => {
  it('never ends a sign-in no provider made (a password or a passkey)', () => {
    expect(providerWithdrawn([], {})).toBe(false);
    expect(providerWithdrawn([acme], {})).toBe(false);
  });

  it('keeps a sign-in while the binding that made it is offered', () => {
    expect(providerWithdrawn([acme], { provider: 'acme', providerBoundAt: BOUND_AT })).toBe(false);
  });

  it('ends a sign-in once its provider is no longer offered (deleted, unbound, issuer removed)', () => {
    expect(providerWithdrawn([], { provider: 'acme', providerBoundAt: BOUND_AT })).toBe(true);
    expect(
      providerWithdrawn([{ ...acme, clientId: 'other' }], { provider: 'acme', providerBoundAt: BOUND_AT }),
    ).toBe(true);
  });

  it('ends a sign-in of an earlier binding under the same client id (deleted and created again)', () => {
    expect(
      providerWithdrawn([{ ...acme, boundAt: BOUND_AT + 1 }], {
        provider: 'acme',
        providerBoundAt: BOUND_AT,
      }),
    ).toBe(true);
    // A binding written before bound times were kept cannot vouch for a sign-in that names one.
    expect(
      providerWithdrawn([{ ...acme, boundAt: undefined }], { provider: 'acme', providerBoundAt: BOUND_AT }),
    ).toBe(true);
  });

  it('compares a sign-in from before bound times were kept by client id alone', () => {
    expect(providerWithdrawn([acme], { provider: 'acme' })).toBe(false);
    expect(providerWithdrawn([{ ...acme, boundAt: undefined }], { provider: 'acme' })).toBe(false);
    expect(providerWithdrawn([], { provider: 'acme' })).toBe(true);
  });
});
