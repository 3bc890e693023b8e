/**
 * Computes a value on first call and keeps it: for what a function's cold start would otherwise
 * build for every request kind (Zod schemas cost CPU to build) when the first request needs only
 * its own.
 */
export const once = <T>(build: () => T): (() => T) => {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
};
