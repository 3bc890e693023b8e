import { useEffect, useState } from 'preact/hooks';
import { clientsRoutes } from '../../../shared/api/routes/clients.js';
import { rolesRoutes } from '../../../shared/api/routes/roles.js';
import { createApiClientRequest } from '../../../shared/schemas/clients.js';
import { idp, messageOf } from '../api.js';
import { consoleClientId } from '../auth.js';
import { OpeningHeading, OutcomeMessage, submitChecked, useConfirmation, useOutcome } from '../outcome.js';
import { PAGE_SIZE, PagedTable, usePages } from '../paging.js';
import { everyRole, type Named } from './grants.js';
import { type Caller, mayCallWith } from './screens.js';

/**
 * API clients and applications: the list (never their secrets, though the listing answers them),
 * registering one (checked with the API's schema; with a secret, none, or public keys for
 * private_key_jwt), rotating a secret and deleting; each one's
 * page (client-page.tsx) shows and changes what it registered. A new secret
 * is shown once, with a copy button.
 */

interface Client {
  id: string;
  name: string;
  clientType: string;
  clientSecret: string;
}

/**
 * A client as a button's accessible name gives it: names need not be unique, so the id tells two
 * of the same name apart (and the visible text stays the start of the name, WCAG 2.5.3).
 */
const named = (client: { id: string; name: string }) => `${client.name} (client id ${client.id})`;

const SecretOnce = ({ client, onDone }: { client: Client; onDone: () => void }) => {
  const [copied, setCopied] = useState<string>();
  return (
    <section class="panel" aria-labelledby="secret-title">
      <OpeningHeading id="secret-title">Secret of {client.name}</OpeningHeading>
      {client.clientSecret ? (
        <>
          <p>Copy it now: it is not shown again.</p>
          <code class="secret">{client.clientSecret}</code>
          <button
            type="button"
            onClick={() =>
              void navigator.clipboard.writeText(client.clientSecret).then(
                () => setCopied('Copied'),
                () => setCopied('Not copied: select it and copy it by hand'),
              )
            }
          >
            {copied ?? 'Copy secret'}
          </button>
        </>
      ) : (
        <p>
          No secret: a public application signs people in with PKCE alone, and a client that registered public
          keys proves itself with assertions signed by its private key.
        </p>
      )}
      <p>
        Client id: <code>{client.id}</code>
      </p>
      <button type="button" class="secondary" onClick={onDone}>
        Done
      </button>
    </section>
  );
};

/** One value a line (redirect URIs, addresses), as the client forms take them. */
export const lines = (value: FormDataEntryValue | null): string[] =>
  String(value ?? '')
    .split(/\s+/)
    .filter(Boolean);

/** A key set as typed in a form: JSON, or the text itself, which the schema then refuses in words. */
export const keySetOf = (text: FormDataEntryValue | null): unknown => {
  try {
    return JSON.parse(String(text));
  } catch {
    return String(text);
  }
};

/** A listed client: whether it has a secret, not the secret (the listing answers secrets, the console keeps none). */
interface ListedClient {
  id: string;
  name: string;
  hasSecret: boolean;
}

/**
 * A public application or a client with keys is listed with an empty secret: none to rotate. The
 * secret is deleted from the very row the client's pages() yielded: it keeps that page while it
 * waits, one read ahead, so a copy would leave the secrets in the page's memory.
 */
const listed = (page: unknown): ListedClient[] =>
  (page as Partial<Client>[]).map((client) => {
    const hasSecret = client.clientSecret !== '';
    delete client.clientSecret;
    return { id: client.id ?? '', name: client.name ?? '', hasSecret };
  });

export const ClientsScreen = ({ caller }: { caller: Caller }) => {
  const paged = usePages<ListedClient>(listed);
  const [roles, setRoles] = useState<Named[]>([]);
  const [shown, setShown] = useState<Client>();

  const { outcome, setOutcome, act: run } = useOutcome();
  const may = mayCallWith(caller);

  const load = paged.reload;
  useEffect(() => {
    void paged.restart(() => idp.pages('listApiClients', { query: { pageSize: PAGE_SIZE } }));
    if (may(rolesRoutes.listRoles))
      void everyRole().then(setRoles, (error) => setOutcome({ problem: messageOf(error) }));
  }, []);

  /** Runs an action and says so; a client it answers has its new secret shown once. */
  const act = (action: () => Promise<unknown>, done: string) =>
    run(done, action, (answer) => {
      if (answer && typeof answer === 'object' && 'id' in answer) setShown(answer as Client);

      return load();
    });

  const deletion = useConfirmation<ListedClient>({
    consequence: () => 'Its tokens stop working at once.',
    confirm: (client) =>
      act(() => idp.deleteApiClient({ path: { id: client.id } }), `${client.name} was deleted.`),
  });

  const register = submitChecked(
    { setOutcome, act: run },
    createApiClientRequest,
    (form) => {
      const uris = lines(form.get('redirectUris'));
      const application = form.get('kind') === 'application';
      const keys = String(form.get('jwks') ?? '').trim();
      return {
        name: form.get('name'),
        // A RESTRICTED person may make no STANDARD client (the API's 403): theirs are RESTRICTED.
        clientType: caller.userType === 'RESTRICTED' ? 'RESTRICTED' : 'STANDARD',
        roles: form.getAll('role'),
        ...(application ? { flowType: 'authorization_code', redirectUris: uris } : {}),
        // Keys and "public" together are refused by the schema, in words.
        ...(keys ? { tokenEndpointAuthMethod: 'private_key_jwt', jwks: keySetOf(keys) } : {}),
        ...(application && form.get('public') ? { tokenEndpointAuthMethod: 'none' } : {}),
      };
    },
    (client) => ({
      done: `${client.name} was registered.`,
      call: async () => setShown((await idp.createApiClient({ body: client })) as unknown as Client),
    }),
    load,
  );

  return (
    <section aria-labelledby="clients-title">
      <h1 id="clients-title">API clients and applications</h1>
      <OutcomeMessage outcome={outcome} />
      {shown && <SecretOnce key={shown.id} client={shown} onDone={() => setShown(undefined)} />}
      <PagedTable
        paged={paged}
        noun="clients"
        columns={['Name', 'Client id', 'Actions']}
        row={(client) => (
          <tr key={client.id}>
            <td>
              {may(clientsRoutes.getApiClient) ? (
                <a href={`#/clients/${encodeURIComponent(client.id)}`}>{client.name}</a>
              ) : (
                client.name
              )}
            </td>
            <td>
              <code>{client.id}</code>
            </td>
            <td>
              {may(clientsRoutes.rotateApiClientSecret) && client.hasSecret && (
                <button
                  type="button"
                  class="secondary inline"
                  aria-label={`Rotate secret of ${named(client)}`}
                  onClick={() =>
                    void act(
                      () => idp.rotateApiClientSecret({ path: { id: client.id } }),
                      `The secret of ${client.name} was replaced: the old one works for its grace period (24 hours unless the operator set another).`,
                    )
                  }
                >
                  Rotate secret of {client.name}
                </button>
              )}
              {/* The service manages the console's own application: the API refuses its deletion (409). */}
              {may(clientsRoutes.deleteApiClient) && client.id !== consoleClientId && (
                <button
                  type="button"
                  class="secondary inline"
                  aria-label={`Delete ${named(client)}`}
                  onClick={() => deletion.ask(client)}
                >
                  Delete {client.name}
                </button>
              )}
            </td>
          </tr>
        )}
      />
      {deletion.dialog}
      {may(clientsRoutes.createApiClient) && (
        <form class="panel" onSubmit={register} aria-labelledby="register-title">
          <h2 id="register-title">Register a client</h2>
          <label for="client-name">Name</label>
          <input id="client-name" name="name" required maxLength={200} />
          <fieldset>
            <legend>Kind</legend>
            <label class="choice">
              <input type="radio" name="kind" value="api" defaultChecked /> API client (client credentials)
            </label>
            <label class="choice">
              <input type="radio" name="kind" value="application" /> Application people sign in to
            </label>
          </fieldset>
          <label for="client-redirects">Redirect URIs (applications; one per line)</label>
          <textarea id="client-redirects" name="redirectUris" rows={3} />
          <label class="choice">
            <input type="checkbox" name="public" value="yes" /> Public application (PKCE, no secret)
          </label>
          <label for="client-new-jwks">
            Public keys instead of a secret (private_key_jwt; a JWK Set, JSON)
          </label>
          <textarea id="client-new-jwks" name="jwks" rows={3} aria-describedby="client-new-jwks-hint" />
          <p id="client-new-jwks-hint" class="note">
            Leave empty for a secret. With keys, the client signs its token requests with the private key.
          </p>
          {roles.length > 0 && (
            <fieldset class="permissions">
              <legend>Roles (an API client holds what they grant)</legend>
              {roles.map((role) => (
                <label key={role.id} class="choice">
                  <input type="checkbox" name="role" value={role.id} /> {role.name}
                </label>
              ))}
            </fieldset>
          )}
          <button type="submit">Register</button>
        </form>
      )}
    </section>
  );
};
