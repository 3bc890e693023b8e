/**
 * Zod as the service uses it: `zod/mini`, the functional API over the same core. Classic `zod`
 * puts every method on every schema and cannot be tree-shaken: it cost each cold start about
 * 10 ms of load CPU (`npm run bench`, the bundles lines). Import Zod from here, not from the
 * package, so that what classic Zod set up by itself is set up here too.
 */
import { en } from 'zod/locales';
import * as z from 'zod/mini';

// Classic Zod installs English messages on its first schema; without them every issue would say
// "Invalid input", and the 400 answers' error details name the problem.
z.config(en());

export * from 'zod/mini';

/**
 * Classic Zod's `schema.meta(metadata)`: a copy of `schema` carrying `metadata` (the OpenAPI
 * document reads it; the copy inherits the original's metadata, but not its `id`), leaving the
 * original as it was.
 */
export const withMeta = <S extends z.ZodMiniType>(schema: S, metadata: z.core.GlobalMeta): S => {
  const copy = schema.clone();
  z.globalRegistry.add(copy, metadata);
  return copy;
};
