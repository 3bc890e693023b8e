import { useEffect } from 'preact/hooks';
import { updateSsoProviderRequest } from '../../../shared/schemas/sso.js';
import { idp } from '../api.js';
import { expiryWarning } from '../expiry.js';
import { OutcomeMessage, ProblemMessage, submitChecked, useOutcome } from '../outcome.js';
import { inPages, Pager, usePages } from '../paging.js';

/**
 * SSO providers serving the organization: each client id with its secret's expiry hint, flagged
 * when it has passed or is near; updating the secret (never shown: the API keeps it in Secrets
 * Manager) with a new hint.
 */

interface Provider {
  clientId: string;
  clientSecretExpirationDate: number;
}

const dateOf = (epochMs: number) => (epochMs ? new Date(epochMs).toISOString().slice(0, 10) : 'not given');

export const SsoScreen = () => {
  const paged = usePages<Provider>();
  const { outcome, setOutcome, act } = useOutcome();
  const load = paged.reload;
  useEffect(
    () => void paged.restart(() => inPages(() => idp.listSsoProviders({}) as Promise<Provider[]>)),
    [],
  );

  const update = (clientId: string) =>
    submitChecked(
      { setOutcome, act },
      updateSsoProviderRequest,
      (form) => {
        const expires = String(form.get('expires') ?? '');
        return {
          clientSecret: form.get('secret'),
          ...(expires ? { clientSecretExpirationDate: Date.parse(`${expires}T00:00:00Z`) } : {}),
        };
      },
      (request) => ({
        done: `The secret of ${clientId} was updated.`,
        call: () => idp.updateSsoProvider({ path: { clientId }, body: request }),
      }),
      load,
    );

  return (
    <section aria-labelledby="sso-title">
      <h1 id="sso-title">SSO providers</h1>
      <OutcomeMessage outcome={outcome} />
      <ProblemMessage problem={paged.problem} />
      {paged.items.length === 0 && <p>No SSO provider serves this organization.</p>}
      {paged.items.map((provider) => {
        const warning = expiryWarning(provider.clientSecretExpirationDate, Date.now());
        return (
          <form
            key={provider.clientId}
            class="panel"
            aria-labelledby={`sso-${provider.clientId}`}
            onSubmit={update(provider.clientId)}
          >
            <h2 id={`sso-${provider.clientId}`}>{provider.clientId}</h2>
            <p>Secret expires: {dateOf(provider.clientSecretExpirationDate)}</p>
            {warning && <p class={warning.level === 'expired' ? 'error' : 'warning'}>{warning.text}</p>}
            <label for={`secret-${provider.clientId}`}>New client secret</label>
            <input
              id={`secret-${provider.clientId}`}
              name="secret"
              type="password"
              autoComplete="off"
              required
            />
            <label for={`expires-${provider.clientId}`}>It expires on</label>
            <input id={`expires-${provider.clientId}`} name="expires" type="date" />
            <button type="submit">Update the secret of {provider.clientId}</button>
          </form>
        );
      })}
      <Pager paged={paged} />
    </section>
  );
};
