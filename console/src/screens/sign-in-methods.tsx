import { useEffect, useState } from 'preact/hooks';
import { usersRoutes } from '../../../shared/api/routes/users.js';
import { idp, messageOf } from '../api.js';
import type { UserSectionProps } from '../outcome.js';
import { type Caller, mayCall } from './screens.js';

/**
 * How a user signs in beyond their password: their passkeys and their single sign-on links, each
 * with its removal (a lost device; an upstream account that was re-created), shown when the
 * person's token may read them (USER.DETAILS) and removable when it may change them (USER.UPDATE).
 */

interface Passkey {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

interface SsoLink {
  clientId: string;
  issuer: string;
  subject: string;
  linkedAt: number;
}

const dayOf = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);

const RemoveButton = ({ label, onClick }: { label: string; onClick: () => void }) => (
  <button type="button" class="secondary inline" onClick={onClick}>
    {label}
  </button>
);

export const SignInMethods = ({ userId, caller, report }: UserSectionProps) => {
  const [passkeys, setPasskeys] = useState<Passkey[]>([]);
  const [links, setLinks] = useState<SsoLink[]>([]);
  const readable = mayCall(usersRoutes.listUserSsoLinks, caller);
  const read = async () => {
    const [keys, linked] = await Promise.all([
      idp.listUserPasskeys({ path: { id: userId } }),
      idp.listUserSsoLinks({ path: { id: userId } }),
    ]);
    setPasskeys(keys as Passkey[]);
    setLinks(linked as SsoLink[]);
  };
  useEffect(() => {
    if (readable)
      read().catch((error) =>
        report.setOutcome({ problem: `The sign-in methods could not be read: ${messageOf(error)}` }),
      );
  }, [userId, readable]);

  if (!readable) return null;
  const removable = mayCall(usersRoutes.deleteUserSsoLink, caller);
  return (
    <>
      <h2>Sign-in methods</h2>
      <h3>Passkeys</h3>
      <ul class="plain" aria-label="Passkeys">
        {passkeys.length === 0 && <li>No passkey.</li>}
        {passkeys.map((passkey) => (
          <li key={passkey.id}>
            {passkey.name}, added {dayOf(passkey.createdAt)}
            {passkey.lastUsedAt ? `, last used ${dayOf(passkey.lastUsedAt)}` : ', never used'}{' '}
            {removable && (
              <RemoveButton
                label={`Remove passkey ${passkey.name}`}
                onClick={() =>
                  report.act(
                    `The passkey ${passkey.name} was removed.`,
                    () => idp.deleteUserPasskey({ path: { id: userId, passkeyId: passkey.id } }),
                    read,
                  )
                }
              />
            )}
          </li>
        ))}
      </ul>
      <h3>Single sign-on</h3>
      <ul class="plain" aria-label="Single sign-on links">
        {links.length === 0 && <li>Not linked to any SSO provider.</li>}
        {links.map((link) => (
          <li key={link.clientId}>
            {link.clientId}: {link.subject} at {link.issuer}, since {dayOf(link.linkedAt)}{' '}
            {removable && (
              <RemoveButton
                label={`Unlink ${link.clientId}`}
                onClick={() =>
                  report.act(
                    `The link to ${link.clientId} was removed: the next sign-in through it links again.`,
                    () => idp.deleteUserSsoLink({ path: { id: userId, clientId: link.clientId } }),
                    read,
                  )
                }
              />
            )}
          </li>
        ))}
      </ul>
    </>
  );
};
