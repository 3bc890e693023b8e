import { useEffect, useState } from 'preact/hooks';
import { auditQuery } from '../../../shared/schemas/audit.js';
import { idp } from '../api.js';
import { OpeningHeading, OutcomeMessage, refusalOf, useOutcome } from '../outcome.js';
import { PAGE_SIZE, PagedTable, usePages } from '../paging.js';

/**
 * The audit log: newest first, page by page, filtered by action (exact, or a prefix ending in
 * "."), outcome, actor, target and days (checked with the API's query schema); a record's detail
 * shows who, from where, on what, and what changed.
 */

interface AuditRecord {
  id: string;
  time: number;
  action: string;
  outcome?: string;
  reason?: string;
  /** `clientId`: the application a person acted through (the console's own, for what they do here). */
  actor: { type: string; id: string; name?: string; ip?: string; userAgent?: string; clientId?: string };
  targets: { type: string; id: string; name?: string }[];
  changes?: Record<string, unknown>;
}

const timeOf = (record: AuditRecord) => new Date(record.time).toISOString().replace('T', ' ').slice(0, 19);
/** The name with the type and id: a name may be shared or chosen by anyone, the id is the actor's. */
const who = ({ actor }: AuditRecord) => `${actor.name ? `${actor.name} ` : ''}(${actor.type} ${actor.id})`;

/** A day chosen in a date field as epoch ms (UTC midnight); `after` the day's end instead. */
const dayOf = (value: FormDataEntryValue | null, after = false) => {
  if (!value) return undefined;
  const start = Date.parse(`${value}T00:00:00Z`);
  return after ? start + 24 * 3600 * 1000 : start;
};

export const AuditScreen = () => {
  const [opened, setOpened] = useState<AuditRecord>();
  const paged = usePages<AuditRecord>();
  const { outcome, setOutcome } = useOutcome();

  const list = (query: Record<string, unknown>) => {
    setOpened(undefined);
    setOutcome({});
    void paged.restart(() => idp.pages('listAuditEvents', { query: { ...query, limit: PAGE_SIZE } }));
  };
  useEffect(() => list({}), []);

  /** The filters, checked with the API's own query schema before anything is sent. */
  const filter = (event: Event) => {
    event.preventDefault();
    const element = event.currentTarget as HTMLFormElement;
    const form = new FormData(element);
    const given = Object.fromEntries(
      Object.entries({
        action: String(form.get('action') ?? '').trim(),
        outcome: form.get('outcome'),
        actorId: String(form.get('actorId') ?? '').trim(),
        targetId: String(form.get('targetId') ?? '').trim(),
        since: dayOf(form.get('since')),
        until: dayOf(form.get('until'), true),
      }).filter(([, value]) => value !== undefined && value !== ''),
    );
    const checked = auditQuery.safeParse(given);
    if (!checked.success) {
      setOutcome({ problem: refusalOf(checked.error.issues, element) });
      return;
    }
    list(given);
  };

  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <p class="note">Newest first.</p>
      <form class="search filters" aria-label="Filter the audit log" onSubmit={filter}>
        <div class="field">
          <label for="audit-action">Action</label>
          <input id="audit-action" name="action" placeholder="user. or user.created" maxLength={100} />
        </div>
        <div class="field">
          <label for="audit-outcome">Outcome</label>
          <select id="audit-outcome" name="outcome">
            <option value="">Any</option>
            <option value="success">Success</option>
            <option value="failure">Failure</option>
            <option value="denied">Denied</option>
          </select>
        </div>
        <div class="field">
          <label for="audit-actor">Actor id</label>
          <input id="audit-actor" name="actorId" maxLength={128} />
        </div>
        <div class="field">
          <label for="audit-target">Target id</label>
          <input id="audit-target" name="targetId" maxLength={128} />
        </div>
        <div class="field">
          <label for="audit-since">From (UTC)</label>
          <input id="audit-since" name="since" type="date" />
        </div>
        <div class="field">
          <label for="audit-until">To (UTC)</label>
          <input id="audit-until" name="until" type="date" />
        </div>
        <button type="submit">Filter</button>
      </form>
      <OutcomeMessage outcome={outcome} />
      <PagedTable
        paged={paged}
        noun="records"
        columns={['Time', 'Action', 'Actor', 'Targets']}
        row={(record) => (
          <tr key={record.id}>
            <td>{timeOf(record)}</td>
            <td>
              <button
                type="button"
                class="link"
                aria-label={`${record.action} at ${timeOf(record)} by ${who(record)}`}
                onClick={() => setOpened(record)}
              >
                {record.action}
              </button>
            </td>
            <td>{who(record)}</td>
            <td>{record.targets.map((target) => target.name ?? target.id).join(', ')}</td>
          </tr>
        )}
      />
      {opened && (
        <section class="panel" aria-labelledby="record-title">
          <OpeningHeading id="record-title" key={opened.id}>
            {opened.action}
          </OpeningHeading>
          <dl>
            <dt>When</dt>
            <dd>{new Date(opened.time).toISOString()}</dd>
            <dt>Who</dt>
            <dd>
              {who(opened)}
              {opened.actor.ip ? ` from ${opened.actor.ip}` : ''}
            </dd>
            {opened.actor.clientId && (
              <>
                <dt>Through</dt>
                <dd>
                  application <code>{opened.actor.clientId}</code>
                </dd>
              </>
            )}
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
