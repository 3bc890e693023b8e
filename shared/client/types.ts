import type { Routes } from '../api/routes.js';
import type * as z from '../zod.js';
import type { OPERATIONS } from './operations.js';

/**
 * Each operation's input and output, read from the route table's Zod schemas at the type level:
 * the client cannot drift from the API, and bundles no schema.
 */

export type OperationId = keyof typeof OPERATIONS & keyof Routes;
export type PagedOperationId = {
  [K in OperationId]: (typeof OPERATIONS)[K] extends { paged: true } ? K : never;
}[OperationId];

type RequestOf<K extends OperationId> = Routes[K]['request'];
type Empty = Record<never, never>;

/** Path parameters, query and body, each only when the operation has them; an upload takes the file. */
export type OperationInput<K extends OperationId> = (RequestOf<K> extends {
  path: infer P extends z.ZodMiniType;
}
  ? { path: z.input<P> }
  : Empty) &
  (RequestOf<K> extends { query: infer Q extends z.ZodMiniType } ? { query?: z.input<Q> } : Empty) &
  (RequestOf<K> extends { body: infer B extends z.ZodMiniType } ? { body: z.input<B> } : Empty) &
  (RequestOf<K> extends { multipartFile: object } ? { file: Blob; filename?: string } : Empty);

/** A 204: what the `Location` header names, for the operations that create something. */
export interface NoContent {
  location?: string;
}

/** The response body; a 204's Location; a binary answer (a picture) as a Blob. */
export type OperationOutput<K extends OperationId> = Routes[K]['response'] extends {
  body: infer B extends z.ZodMiniType;
}
  ? z.output<B>
  : Routes[K]['response'] extends { status: 204 }
    ? NoContent
    : Blob;

/** Every operation as a method of the client, named after its operationId. */
export type OperationMethods = {
  // Mapped over OPERATIONS itself, so each method shows its entry's doc comment (the route's description).
  [K in keyof typeof OPERATIONS]: K extends OperationId
    ? (
        ...input: Empty extends OperationInput<K> ? [input?: OperationInput<K>] : [input: OperationInput<K>]
      ) => Promise<OperationOutput<K>>
    : never;
};
