import { db } from '../../shared/store/dynamo.js';

/** What a transaction sends, as far as a test picks it out. */
export type SentItems = {
  Update?: { Key?: Record<string, unknown>; UpdateExpression?: string };
  Put?: { Item?: Record<string, unknown> };
}[];

/**
 * Runs `meanwhile` once, just before the first command whose input `matches` is sent: what
 * another request does at that very moment, deterministically. Answers whether it ran; `stop`
 * takes the hook off the process's client.
 */
export const beforeCommand = (
  matches: (input: Record<string, unknown>) => boolean,
  meanwhile: () => Promise<unknown>,
) => {
  const name = `before-command-${Math.random()}`;
  const state = { ran: false, stop: () => db().middlewareStack.remove(name) };
  db().middlewareStack.add(
    (next) => async (args) => {
      if (!state.ran && matches(args.input as Record<string, unknown>)) {
        state.ran = true;
        await meanwhile();
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return state;
};

/** `beforeCommand` for the first transaction whose items `matches`. */
export const beforeTransaction = (
  matches: (items: SentItems) => boolean,
  meanwhile: () => Promise<unknown>,
) =>
  beforeCommand((input) => {
    const items = (input as { TransactItems?: SentItems }).TransactItems;
    return items !== undefined && matches(items);
  }, meanwhile);

/**
 * The instant of something done now (a sign-in), once the clock has moved past `after`, and past
 * that instant too: a write that takes its time later holds a later one.
 */
export const instantAfter = async (after: number) => {
  const tick = () => new Promise((resolve) => setTimeout(resolve, 1));
  while (Date.now() <= after) await tick();
  const at = Date.now();
  while (Date.now() <= at) await tick();
  return at;
};

/** Whether two item keys are the same. */
export const sameKey = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
