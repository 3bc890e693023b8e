import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { IdpApiError } from '../../shared/client/index.js';
import { messageOf } from './api.js';
import { startSignIn } from './auth.js';
import type { Caller } from './screens/screens.js';

/**
 * What a screen says after an action: what it did (a status), or what went wrong (an alert: the
 * API's message, or what the form's schema refused), in words.
 */
export interface Outcome {
  done?: string;
  problem?: string;
  /** The API asked for a recent sign-in (RFC 9470): offered, then the person does it again. */
  stepUp?: { maxAge: number };
}

/** What went wrong, as an alert (announced as it appears); a step-up offers the sign-in it needs. */
export const ProblemMessage = ({
  problem,
  stepUp,
}: {
  problem: string | undefined;
  stepUp?: Outcome['stepUp'];
}) =>
  problem ? (
    <div role="alert" class="error">
      <p>{problem}</p>
      {stepUp && (
        <button type="button" onClick={() => void startSignIn(false, location.hash, stepUp.maxAge)}>
          Sign in again
        </button>
      )}
    </div>
  ) : null;

/** What a failed call says, and the step-up it asks for. */
const problemOf = (error: unknown): Outcome => ({
  problem: messageOf(error),
  ...(error instanceof IdpApiError && error.stepUp ? { stepUp: error.stepUp } : {}),
});

/**
 * The screen's one status region is there before anything is said in it: screen readers announce
 * what changes inside a live region, not a region that appears already filled.
 */
export const OutcomeMessage = ({ outcome }: { outcome: Outcome }) => (
  <>
    <ProblemMessage problem={outcome.problem} {...(outcome.stepUp ? { stepUp: outcome.stepUp } : {})} />
    <div role="status">{outcome.done && <p class="done">{outcome.done}</p>}</div>
  </>
);

/** The words a person sees for a field: its label in `form`, else the name the API gives it. */
const fieldName = (path: readonly PropertyKey[], form: HTMLFormElement | undefined) => {
  const [field, ...within] = path.map(String);
  if (field === undefined) return 'form';
  // An input, select or textarea has labels (or an aria-label); a group of radio buttons or
  // checkboxes sharing the name is named by its fieldset's legend.
  const named = form?.querySelector<HTMLInputElement>(`[name="${CSS.escape(field)}"]`);
  const legend = named?.closest('fieldset')?.querySelector('legend')?.textContent;
  const own = named?.labels?.[0]?.textContent ?? named?.getAttribute('aria-label');
  const grouped = named?.type === 'radio' || named?.type === 'checkbox';
  const label = ((grouped ? (legend ?? own) : (own ?? legend)) ?? undefined)?.trim();
  return label
    ? `${label}${within.length > 0 ? ` (${within.join('.')})` : ''}`
    : [field, ...within].join('.');
};

/** What a form's schema refused, one sentence per field, each named as the form labels it. */
export const refusalOf = (
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
  form?: HTMLFormElement,
) => issues.map((issue) => `${fieldName(issue.path, form)}: ${issue.message}`).join('; ');

/**
 * The screen's outcome, and `act`: runs an action and `then` (e.g. a reload), then says `done`, so
 * that what the status announces is already on the screen; or says what went wrong. Answers
 * whether it succeeded.
 */
export const useOutcome = () => {
  const [outcome, setOutcome] = useState<Outcome>({});
  const act = async <T,>(
    done: string,
    action: () => Promise<T>,
    then?: (answer: T) => unknown,
  ): Promise<boolean> => {
    try {
      const answer = await action();
      await then?.(answer);
      setOutcome({ done });
      return true;
    } catch (error) {
      setOutcome(problemOf(error));
      return false;
    }
  };
  return { outcome, setOutcome, act };
};

/** What a part of a screen needs to report through the screen's one outcome. */
export type Reporter = Pick<ReturnType<typeof useOutcome>, 'setOutcome' | 'act'>;

/** A section of a user's page: the user, what the person's token holds, and where it reports. */
export interface UserSectionProps {
  userId: string;
  caller: Caller;
  report: Reporter;
}

type Checked<T> =
  | { success: true; data: T }
  | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };

/**
 * A form's submit: reads the form, checks it with the API's own schema (saying what it refuses),
 * sends it, then empties the form and runs `then` (a reload) before saying what was done.
 */
export const submitChecked =
  <T,>(
    { setOutcome, act }: Reporter,
    schema: { safeParse: (value: unknown) => Checked<T> },
    read: (form: FormData) => unknown,
    send: (data: T) => { done: string; call: () => Promise<unknown> },
    then?: () => unknown,
  ) =>
  (event: Event) => {
    event.preventDefault();
    const element = event.currentTarget as HTMLFormElement;
    const parsed = schema.safeParse(read(new FormData(element)));
    if (!parsed.success) {
      setOutcome({ problem: refusalOf(parsed.error.issues, element) });
      return;
    }
    const { done, call } = send(parsed.data);
    void act(done, call, () => {
      element.reset();
      return then?.();
    });
  };

/**
 * Asks before what cannot be undone (deleting, archiving): what goes, and what follows from it.
 * It takes the focus when it opens (autoFocus does nothing for an element added after load), so
 * a keyboard user answers it next.
 */
const ConfirmAction = ({
  name,
  consequence,
  verb = 'Delete',
  onConfirm,
  onCancel,
}: {
  name: string;
  consequence: string;
  verb?: 'Delete' | 'Archive';
  onConfirm: () => void;
  onCancel: () => void;
}) => {
  const answer = useRef<HTMLButtonElement>(null);
  useEffect(() => answer.current?.focus(), []);
  return (
    <section class="panel" role="alertdialog" aria-labelledby="confirm-delete-title">
      <h2 id="confirm-delete-title">
        {verb} {name}?
      </h2>
      <p>{consequence}</p>
      <div class="actions">
        <button type="button" onClick={onConfirm} ref={answer}>
          {verb}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
};

/**
 * The heading of a panel that opens in answer to an action (a new secret, a form, a record's
 * detail): it takes the focus, so that a keyboard or screen-reader user is taken to it.
 */
export const OpeningHeading = ({ id, children }: { id: string; children: ComponentChildren }) => {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <h2 id={id} ref={heading} tabIndex={-1}>
      {children}
    </h2>
  );
};

/**
 * A confirmation for one kind of action on a listed item: `ask(item)` opens it; `dialog` renders
 * it (or nothing), running `confirm(item)` on the answer and closing once that succeeded.
 */
export const useConfirmation = <T extends { name: string }>(options: {
  verb?: 'Delete' | 'Archive';
  consequence: (item: T) => string;
  confirm: (item: T) => Promise<boolean>;
}) => {
  const [pending, setPending] = useState<T>();
  const opener = useRef<Element | null>(null);
  /** Back to what opened it (on Cancel; after a deletion its row is gone, and the focus with it). */
  const close = () => {
    if (opener.current instanceof HTMLElement && opener.current.isConnected) opener.current.focus();
    setPending(undefined);
  };
  return {
    ask: (item: T) => {
      opener.current = document.activeElement;
      setPending(item);
    },
    dialog: pending && (
      <ConfirmAction
        verb={options.verb}
        name={pending.name}
        consequence={options.consequence(pending)}
        onConfirm={() => void options.confirm(pending).then((done) => done && close())}
        onCancel={close}
      />
    ),
  };
};
