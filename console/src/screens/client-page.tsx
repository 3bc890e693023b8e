import { useEffect, useState } from 'preact/hooks';
import { clientsRoutes } from '../../../shared/api/routes/clients.js';
import { ID_TOKEN_SIGNING_ALGORITHMS } from '../../../shared/domain/applications.js';
import { type apiClientDetails, updateApiClientRequest } from '../../../shared/schemas/clients.js';
import type * as z from '../../../shared/zod.js';
import { idp, messageOf } from '../api.js';
import { consoleClientId } from '../auth.js';
import { OutcomeMessage, submitChecked, useOutcome } from '../outcome.js';
import { keySetOf, lines } from './clients.js';
import { type Caller, mayCallWith } from './screens.js';

/**
 * One API client or application: what it registered (never its secret), and the fields
 * `PATCH /idp/clients/{id}` may change, checked with the API's schema; only what differs from
 * what was read is sent, so a save records only real changes. Its kind and authentication method
 * stay as registered: shown, not offered; a private_key_jwt client's public keys are replaced here. The console's own application is shown only: a change
 * to it could lock everyone out of the console.
 */

type ClientDetails = z.output<typeof apiClientDetails>;

const listed = (values: readonly string[]) => (values.length === 0 ? 'None.' : values.join(', '));

const AUTHENTICATION: Record<string, string> = {
  client_secret_basic: 'with its secret in the Authorization header',
  client_secret_post: 'with its secret in the form',
  none: 'public: PKCE, no secret',
  private_key_jwt: 'with assertions signed by its registered keys (private_key_jwt)',
};

/** How each registered key is named on the page: its kid, else its type and curve. */
const keyNames = (client: ClientDetails) =>
  (client.jwks?.keys ?? []).map((key) => key.kid ?? [key.kty, key.crv].filter(Boolean).join(' ')).join(', ');

/** What the form holds that differs from what was read: the body of the change. */
const changed = (client: ClientDetails, form: FormData): Record<string, unknown> => {
  const keys = client.jwks ? { jwks: keySetOf(form.get('jwks')) } : {};
  const given: Record<string, unknown> =
    client.flowType === 'authorization_code'
      ? {
          name: form.get('name'),
          redirectUris: lines(form.get('redirectUris')),
          postLogoutRedirectUris: lines(form.get('postLogoutRedirectUris')),
          idTokenSignedResponseAlg: form.get('idTokenSignedResponseAlg'),
          requirePushedAuthorizationRequests: form.get('requirePushed') === 'yes',
          ...keys,
        }
      : { name: form.get('name'), remoteAddresses: lines(form.get('remoteAddresses')), ...keys };
  // The API answers every field an application or API client may change (its details).
  const read: Record<string, unknown> = client;
  return Object.fromEntries(
    Object.entries(given).filter(([field, value]) => JSON.stringify(value) !== JSON.stringify(read[field])),
  );
};

/** A field of one value a line (URIs, addresses), starting with what is registered. */
const LinesField = (field: { id: string; name: string; label: string; values: readonly string[] }) => (
  <>
    <label for={field.id}>{field.label}</label>
    <textarea id={field.id} name={field.name} rows={3} defaultValue={field.values.join('\n')} />
  </>
);

export const ClientPage = ({ id, caller }: { id: string; caller: Caller }) => {
  const [client, setClient] = useState<ClientDetails>();
  const { outcome, setOutcome, act } = useOutcome();
  const may = mayCallWith(caller);

  const readClient = async () =>
    setClient((await idp.getApiClient({ path: { id } })) as unknown as ClientDetails);
  useEffect(() => {
    readClient().catch((error) => setOutcome({ problem: messageOf(error) }));
  }, [id]);

  const application = client?.flowType === 'authorization_code';
  const save = submitChecked(
    { setOutcome, act },
    updateApiClientRequest,
    // Nothing changed is refused by the schema itself ("Give at least one field to change").
    (form) => (client ? changed(client, form) : {}),
    (body) => ({
      done: `${body.name ?? client?.name} was saved.`,
      call: () => idp.updateApiClient({ path: { id }, body }),
    }),
    readClient,
  );

  return (
    <section aria-labelledby="client-title">
      <p>
        <a href="#/clients">← Clients</a>
      </p>
      <h1 id="client-title">{client ? client.name : 'Client'}</h1>
      <OutcomeMessage outcome={outcome} />
      {client && (
        <>
          <h2>Registered</h2>
          <dl>
            <dt>Client id</dt>
            <dd>
              <code>{client.id}</code>
            </dd>
            <dt>Kind</dt>
            <dd>
              {application
                ? `Application people sign in to, ${AUTHENTICATION[client.tokenEndpointAuthMethod ?? ''] ?? client.tokenEndpointAuthMethod}`
                : `API client (client credentials), ${client.clientType}${client.jwks ? `, ${AUTHENTICATION.private_key_jwt}` : ''}`}
            </dd>
            {client.jwks && (
              <>
                <dt>Public keys</dt>
                <dd>{keyNames(client)}</dd>
              </>
            )}
            {application ? (
              <>
                <dt>Redirect URIs</dt>
                <dd>{listed(client.redirectUris)}</dd>
                <dt>After sign-out</dt>
                <dd>{listed(client.postLogoutRedirectUris)}</dd>
                <dt>ID tokens signed with</dt>
                <dd>{client.idTokenSignedResponseAlg}</dd>
                <dt>Sign-in requests</dt>
                <dd>
                  {client.requirePushedAuthorizationRequests
                    ? 'Pushed first only (PAR)'
                    : 'Sent through the browser or pushed first'}
                </dd>
              </>
            ) : (
              <>
                <dt>Used from</dt>
                <dd>
                  {client.remoteAddresses.length === 0 ? 'Anywhere.' : client.remoteAddresses.join(', ')}
                </dd>
              </>
            )}
          </dl>
          {client.id === consoleClientId ? (
            <p class="note">
              This is the console's own application: a change here could stop everyone signing in to the
              console, so the console does not make one.
            </p>
          ) : (
            may(clientsRoutes.updateApiClient) && (
              // Keyed by what the form shows, so that after a change it shows what was saved.
              <form
                class="panel"
                onSubmit={save}
                aria-labelledby="edit-client-title"
                key={JSON.stringify([
                  client.name,
                  client.redirectUris,
                  client.postLogoutRedirectUris,
                  client.idTokenSignedResponseAlg,
                  client.requirePushedAuthorizationRequests,
                  client.remoteAddresses,
                  client.jwks,
                ])}
              >
                <h2 id="edit-client-title">Change {client.name}</h2>
                <label for="client-name">Name</label>
                <input id="client-name" name="name" required maxLength={200} defaultValue={client.name} />
                {application ? (
                  <>
                    <LinesField
                      id="client-redirects"
                      name="redirectUris"
                      label="Redirect URIs (one per line)"
                      values={client.redirectUris}
                    />
                    <LinesField
                      id="client-logout-redirects"
                      name="postLogoutRedirectUris"
                      label="After sign-out, the application may send people to (one per line)"
                      values={client.postLogoutRedirectUris}
                    />
                    <label for="client-id-token-alg">ID tokens signed with</label>
                    {/* A select has no defaultValue in the DOM: the option says it is chosen. */}
                    <select id="client-id-token-alg" name="idTokenSignedResponseAlg">
                      {ID_TOKEN_SIGNING_ALGORITHMS.map((algorithm) => (
                        <option
                          key={algorithm}
                          value={algorithm}
                          selected={algorithm === client.idTokenSignedResponseAlg}
                        >
                          {algorithm}
                        </option>
                      ))}
                    </select>
                    <label class="choice">
                      <input
                        type="checkbox"
                        name="requirePushed"
                        value="yes"
                        defaultChecked={client.requirePushedAuthorizationRequests === true}
                      />{' '}
                      Sign-in requests must be pushed first (PAR, RFC 9126)
                    </label>
                  </>
                ) : (
                  <LinesField
                    id="client-addresses"
                    name="remoteAddresses"
                    label="Used only from these addresses or CIDR blocks (one per line; none: anywhere)"
                    values={client.remoteAddresses}
                  />
                )}
                {client.jwks && (
                  <>
                    <label for="client-jwks">Public keys (a JWK Set, JSON)</label>
                    <p id="client-jwks-hint" class="note">
                      To change keys without a gap: add the next key beside the current one and save, move the
                      client to it, then remove the old one and save.
                    </p>
                    <textarea
                      id="client-jwks"
                      name="jwks"
                      aria-describedby="client-jwks-hint"
                      rows={8}
                      defaultValue={JSON.stringify(client.jwks, null, 2)}
                    />
                  </>
                )}
                <button type="submit">Save</button>
              </form>
            )
          )}
        </>
      )}
    </section>
  );
};
