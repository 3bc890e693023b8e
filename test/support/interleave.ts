import { db } from '../../shared/store/dynamo.js';

/** What a transaction sends, as far as a test picks it out. */
export type SentItems = { Update?: { Key?: Record<string, unknown>; UpdateExpression?: string } }[];

/**
 * Runs `meanwhile` once, just before the first transaction whose items `matches` is sent: what
 * another request commits at that very moment, deterministically. Answers whether it ran; `stop`
 * takes the hook off the process's client.
 */
export const beforeTransaction = (
  matches: (items: SentItems) => boolean,
  meanwhile: () => Promise<unknown>,
) => {
  const name = `before-transaction-${Math.random()}`;
  const state = { ran: false, stop: () => db().middlewareStack.remove(name) };
  db().middlewareStack.add(
    (next) => async (args) => {
      const items = (args.input as { TransactItems?: SentItems }).TransactItems;
      if (!state.ran && items && matches(items)) {
        state.ran = true;
        await meanwhile();
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return state;
};

/** Whether two item keys are the same. */
export const sameKey = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
