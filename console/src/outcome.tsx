import { useState } from 'preact/hooks';
import { messageOf } from './api.js';

/**
 * What a screen says after an action: what it did (a status), or what went wrong (an alert: the
 * API's message, or what the form's schema refused), in words.
 */
export interface Outcome {
  done?: string;
  problem?: string;
}

export const OutcomeMessage = ({ outcome }: { outcome: Outcome }) => (
  <>
    {outcome.problem && (
      <p role="alert" class="error">
        {outcome.problem}
      </p>
    )}
    {outcome.done && (
      <p role="status" class="done">
        {outcome.done}
      </p>
    )}
  </>
);

/** What a form's schema refused, one sentence per field. */
export const refusalOf = (issues: readonly { path: readonly PropertyKey[]; message: string }[]) =>
  issues.map((issue) => `${issue.path.map(String).join('.') || 'form'}: ${issue.message}`).join('; ');

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
      setOutcome({ problem: messageOf(error) });
      return false;
    }
  };
  return { outcome, setOutcome, act };
};
