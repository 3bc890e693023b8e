import { useEffect, useState } from 'preact/hooks';
import { idp } from '../api.js';
import { OutcomeMessage } from '../outcome.js';
import { PAGE_SIZE, Pager, usePages } from '../paging.js';

/**
 * The audit log: newest first, filtered by action (exact, or a prefix ending in "."), page by
 * page; a record's detail shows who, from where, on what, and what changed.
 */

interface AuditRecord {
  id: string;
  time: number;
  action: string;
  outcome?: string;
  reason?: string;
  actor: { type: string; id: string; name?: string; ip?: string; userAgent?: string };
  targets: { type: string; id: string; name?: string }[];
  changes?: Record<string, unknown>;
}

const who = (record: AuditRecord) => record.actor.name ?? `${record.actor.type} ${record.actor.id}`;

export const AuditScreen = () => {
  const [action, setAction] = useState('');
  const [opened, setOpened] = useState<AuditRecord>();
  const paged = usePages<AuditRecord>();
  const restart = () => {
    const filter = action.trim();
    setOpened(undefined);
    void paged.restart(() =>
      idp.pages('listAuditEvents', { query: { limit: PAGE_SIZE, ...(filter ? { action: filter } : {}) } }),
    );
  };
  useEffect(restart, []);

  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <form
        class="search"
        aria-label="Filter the audit log"
        onSubmit={(event) => {
          event.preventDefault();
          restart();
        }}
      >
        <label for="audit-action">Action</label>
        <input
          id="audit-action"
          placeholder="user. or user.created"
          value={action}
          onInput={(event) => setAction((event.currentTarget as HTMLInputElement).value)}
        />
        <button type="submit">Filter</button>
      </form>
      <OutcomeMessage outcome={{ problem: paged.problem }} />
      <table>
        <caption>
          {paged.items.length === 0 ? 'No records' : `Newest first, page ${paged.pageNumber + 1}`}
        </caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Action</th>
            <th scope="col">Actor</th>
            <th scope="col">Targets</th>
          </tr>
        </thead>
        <tbody>
          {paged.items.map((record) => (
            <tr key={record.id}>
              <td>{new Date(record.time).toISOString().replace('T', ' ').slice(0, 19)}</td>
              <td>
                <button type="button" class="link" onClick={() => setOpened(record)}>
                  {record.action}
                </button>
              </td>
              <td>{who(record)}</td>
              <td>{record.targets.map((target) => target.name ?? target.id).join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager paged={paged} />
      {opened && (
        <section class="panel" aria-labelledby="record-title">
          <h2 id="record-title">{opened.action}</h2>
          <dl>
            <dt>When</dt>
            <dd>{new Date(opened.time).toISOString()}</dd>
            <dt>Who</dt>
            <dd>
              {who(opened)}
              {opened.actor.ip ? ` from ${opened.actor.ip}` : ''}
            </dd>
            <dt>Outcome</dt>
            <dd>{[opened.outcome ?? 'success', opened.reason].filter(Boolean).join(': ')}</dd>
            <dt>On</dt>
            <dd>{opened.targets.map((target) => `${target.type} ${target.name ?? target.id}`).join(', ')}</dd>
          </dl>
          {opened.changes && (
            <>
              <h3>Changes</h3>
              <pre>{JSON.stringify(opened.changes, null, 2)}</pre>
            </>
          )}
        </section>
      )}
    </section>
  );
};
