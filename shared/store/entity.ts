import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { once } from '../cache/once.js';
import * as z from '../zod.js';
import { db, tableName } from './dynamo.js';
import type { ItemKey } from './keys.js';

/**
 * An entity of the single table, declared once: its attributes (a Zod schema, from which its
 * record type comes), how its key is made, the index attributes written with it, and the
 * projections it is read with. Items are decoded through the schema, so no cast reads an item.
 *
 * The idea is ElectroDB's (one declaration per entity); the library itself is not used because
 * what the store needs beyond it is its own: bucket counts for paging, guard items and chunked
 * membership transactions.
 */
export interface EntityDeclaration<S extends z.ZodMiniObject, Ref> {
  readonly name: string;
  /**
   * Builds the attributes' schema, on the first item decoded: a function's cold start then builds
   * only the schemas of the entities its first request reads (Zod schemas cost CPU to build).
   */
  readonly attributes: () => S;
  readonly key: (ref: Ref) => ItemKey;
  /** Index attributes (`lsi1sk`, `gsi1pk`, `gsi1sk`) the item carries, when it is listed. */
  readonly indexes?: (record: z.output<S>) => Partial<Record<string, string>>;
}

export interface Projection<T> {
  readonly expression: string;
  readonly names: Record<string, string>;
  decode(item: Record<string, unknown>): T;
}

export interface Entity<S extends z.ZodMiniObject, Ref>
  extends Omit<EntityDeclaration<S, Ref>, 'attributes'> {
  /** The attributes' schema, built on first use. */
  readonly attributes: S;
  /** The stored item of a record: key, index attributes, attributes. */
  item(ref: Ref, record: z.output<S>): Record<string, unknown>;
  decode(item: Record<string, unknown>): z.output<S>;
  /** Reads some attributes only; the decoded type has exactly those. */
  projection<K extends keyof z.output<S> & keyof S['shape'] & string>(
    ...attributes: K[]
  ): Projection<Pick<z.output<S>, K>>;
  /** GetItem (strongly consistent unless told otherwise); undefined when there is none. */
  get(ref: Ref, options?: { consistent?: boolean }): Promise<z.output<S> | undefined>;
  /** GetItem of a projection. */
  getProjected<T>(
    ref: Ref,
    projection: Projection<T>,
    options?: { consistent?: boolean },
  ): Promise<T | undefined>;
}

/** Names every attribute through a placeholder, so reserved words (`name`, `status`) need no care. */
const projectionOf = (attributes: readonly string[]) => ({
  expression: attributes.map((_attribute, index) => `#p${index}`).join(', '),
  names: Object.fromEntries(attributes.map((attribute, index) => [`#p${index}`, attribute])),
});

/** One projection naming every attribute of `projections`: items of several entities read together. */
export const jointProjection = (...projections: readonly { names: Record<string, string> }[]) =>
  projectionOf([...new Set(projections.flatMap((projection) => Object.values(projection.names)))]);

const decoder =
  <T>(name: string, schema: z.ZodMiniType<T>) =>
  (item: Record<string, unknown>): T => {
    const parsed = schema.safeParse(item);
    if (parsed.success) return parsed.data;
    // Stored data that breaks its declaration is a fault of the service, never of the caller.
    throw new Error(`A stored ${name} item does not match its declaration: ${z.prettifyError(parsed.error)}`);
  };

export const defineEntity = <S extends z.ZodMiniObject, Ref>(
  declaration: EntityDeclaration<S, Ref>,
): Entity<S, Ref> => {
  const attributes = once(declaration.attributes);
  const decodeRecord = once(() =>
    decoder<z.output<S>>(declaration.name, attributes() as unknown as z.ZodMiniType<z.output<S>>),
  );
  const decode = (item: Record<string, unknown>) => decodeRecord()(item);
  const getItem = async (
    key: ItemKey,
    consistent: boolean,
    projection?: { expression: string; names: Record<string, string> },
  ) =>
    (
      await db().send(
        new GetCommand({
          TableName: tableName(),
          Key: key,
          ConsistentRead: consistent,
          ...(projection
            ? { ProjectionExpression: projection.expression, ExpressionAttributeNames: projection.names }
            : {}),
        }),
      )
    ).Item;
  return {
    name: declaration.name,
    key: declaration.key,
    ...(declaration.indexes ? { indexes: declaration.indexes } : {}),
    get attributes() {
      return attributes();
    },
    item: (ref, record) => ({ ...declaration.key(ref), ...declaration.indexes?.(record), ...record }),
    decode,
    projection: (...names) => {
      const picked = Object.fromEntries(names.map((attribute) => [attribute, true])) as never;
      const decodePicked = once(() => decoder(declaration.name, z.pick(attributes(), picked)));
      return {
        ...projectionOf(names),
        decode: ((item: Record<string, unknown>) => decodePicked()(item)) as never,
      };
    },
    get: async (ref, options = {}) => {
      const item = await getItem(declaration.key(ref), options.consistent ?? true);
      return item ? decode(item) : undefined;
    },
    getProjected: async (ref, projection, options = {}) => {
      const item = await getItem(declaration.key(ref), options.consistent ?? true, projection);
      return item ? projection.decode(item) : undefined;
    },
  };
};

/** DynamoDB's TTL attribute (`expiresAt`) of an item that lives until `millis` (epoch ms). */
export const ttlSeconds = (millis: number): number => Math.ceil(millis / 1000);

/** A string set as DynamoDB stores it: absent when empty (DynamoDB stores no empty sets). */
export const stringSet = z.optional(z.set(z.string()));

/** A string set attribute for a write: the set, or nothing when it would be empty. */
export const asStringSet = (values: Iterable<string> | undefined): Set<string> | undefined => {
  const set = new Set(values ?? []);
  return set.size > 0 ? set : undefined;
};
