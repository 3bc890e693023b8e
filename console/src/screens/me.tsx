import { useEffect, useState } from 'preact/hooks';
import { idp, messageOf } from '../api.js';
import type { Session } from '../auth.js';
import { OutcomeMessage, useOutcome } from '../outcome.js';

/** The signed-in person: who they are, the permissions their token holds, consent to the latest agreement. */

interface Agreement {
  id: string;
  url: string;
  createdAt: string;
}

export const MeScreen = ({ session, ui }: { session: Session; ui: readonly string[] }) => {
  const [agreement, setAgreement] = useState<Agreement | null>(null);
  const [accepted, setAccepted] = useState<boolean>();
  const { outcome, setOutcome, act } = useOutcome();

  const load = async () => {
    try {
      const [status, latest] = await Promise.all([idp.getConsentStatus({}), idp.getLatestAgreement({})]);
      setAccepted((status as { accepted: boolean }).accepted);
      setAgreement(latest as Agreement | null);
    } catch (error) {
      setOutcome({ problem: messageOf(error) });
    }
  };
  useEffect(() => void load(), []);

  const accept = (id: string) =>
    act('You accepted the latest agreement.', () => idp.recordConsent({ path: { agreementId: id } }), load);

  const permissions = [...(session.claims.permissions ?? [])].sort();
  return (
    <section aria-labelledby="me-title">
      <h1 id="me-title">My account</h1>
      <OutcomeMessage outcome={outcome} />
      <p>
        {session.claims.name ? `${session.claims.name}, ` : ''}
        {session.claims.email ?? session.claims.sub}
      </p>
      <h2>Agreement</h2>
      {accepted === undefined ? null : !agreement || accepted ? (
        <p>{agreement ? 'You accepted the latest agreement.' : 'No agreement is published.'}</p>
      ) : (
        <>
          <p>
            Read <a href={agreement.url}>the latest agreement</a> (published{' '}
            {agreement.createdAt.slice(0, 10)}).
          </p>
          <button type="button" onClick={() => void accept(agreement.id)}>
            Accept the agreement
          </button>
        </>
      )}
      <h2>My permissions</h2>
      <p class="note">As of this sign-in: a change shows after the next one.</p>
      <ul class="plain permissions">
        {permissions.length === 0 && <li>None.</li>}
        {permissions.map((permission) => (
          <li key={permission}>
            <code>{permission}</code>
          </li>
        ))}
      </ul>
      <h2>My console pages</h2>
      <p>{ui.length === 0 ? 'None beyond this one.' : [...ui].sort().join(', ')}</p>
    </section>
  );
};
