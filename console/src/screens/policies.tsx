import { useEffect, useState } from 'preact/hooks';
import { policiesRoutes } from '../../../shared/api/routes/policies.js';
import { policyRequest } from '../../../shared/schemas/roles.js';
import { idp } from '../api.js';
import { OpeningHeading, OutcomeMessage, submitChecked, useConfirmation, useOutcome } from '../outcome.js';
import { inPages, PagedTable, usePages } from '../paging.js';
import type { Named } from './grants.js';
import { type Caller, mayCall } from './screens.js';

/**
 * Policies: the list, creating, renaming and archiving one (names checked with the API's schema).
 * Users and user groups are granted them on their own pages.
 */
export const PoliciesScreen = ({ caller }: { caller: Caller }) => {
  const paged = usePages<Named>();
  const [renaming, setRenaming] = useState<Named>();

  const { outcome, setOutcome, act } = useOutcome();
  // Creating, renaming and archiving all need DETAILED_PERMISSION.WRITE.
  const mayWrite = mayCall(policiesRoutes.createPolicy, caller);
  useEffect(() => void paged.restart(() => inPages(() => idp.listPolicies({}) as Promise<Named[]>)), []);

  const archival = useConfirmation<Named>({
    verb: 'Archive',
    consequence: () => 'It grants nothing any more to the users, groups and clients holding it.',
    confirm: (policy) =>
      act(
        `${policy.name} was archived: it grants nothing any more.`,
        () => idp.archivePolicy({ path: { id: policy.id } }),
        paged.reload,
      ),
  });

  const create = submitChecked(
    { setOutcome, act },
    policyRequest,
    (form) => ({ name: form.get('name') }),
    (policy) => ({ done: `${policy.name} was created.`, call: () => idp.createPolicy({ body: policy }) }),
    paged.reload,
  );
  const rename = submitChecked(
    { setOutcome, act },
    policyRequest,
    (form) => ({ name: form.get('name') }),
    (policy) => ({
      done: `${renaming?.name} is now ${policy.name}.`,
      call: () => idp.renamePolicy({ path: { id: renaming?.id ?? '' }, body: policy }),
    }),
    () => {
      setRenaming(undefined);
      return paged.reload();
    },
  );

  return (
    <section aria-labelledby="policies-title">
      <h1 id="policies-title">Policies</h1>
      <OutcomeMessage outcome={outcome} />
      <PagedTable
        paged={paged}
        noun="policies"
        columns={mayWrite ? ['Name', 'Id', 'Actions'] : ['Name', 'Id']}
        row={(policy) => (
          <tr key={policy.id}>
            <td>{policy.name}</td>
            <td>
              <code>{policy.id}</code>
            </td>
            {mayWrite && (
              <td>
                <button type="button" class="secondary inline" onClick={() => setRenaming(policy)}>
                  Rename {policy.name}
                </button>
                <button type="button" class="secondary inline" onClick={() => archival.ask(policy)}>
                  Archive {policy.name}
                </button>
              </td>
            )}
          </tr>
        )}
      />
      {archival.dialog}
      {renaming && (
        <form class="panel" onSubmit={rename} aria-labelledby="rename-policy-title" key={renaming.id}>
          <OpeningHeading id="rename-policy-title">Rename {renaming.name}</OpeningHeading>
          <label for="policy-new-name">New name</label>
          <input id="policy-new-name" name="name" required maxLength={200} defaultValue={renaming.name} />
          <div class="actions">
            <button type="submit">Rename</button>
            <button type="button" class="secondary" onClick={() => setRenaming(undefined)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {mayWrite && (
        <form class="panel" onSubmit={create} aria-labelledby="new-policy-title">
          <h2 id="new-policy-title">Create a policy</h2>
          <label for="policy-name">Name</label>
          <input id="policy-name" name="name" required maxLength={200} />
          <button type="submit">Create policy</button>
        </form>
      )}
    </section>
  );
};
