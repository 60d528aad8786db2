import {
  buildSchema,
  getNamedType,
  GraphQLError,
  isAbstractType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLFieldResolver,
  type GraphQLOutputType,
  type GraphQLSchema,
  type GraphQLTypeResolver,
} from 'graphql';
import type { GraphqlContext } from './context';
import { entityTypeOf, objectTypeOf } from './entity-types';

/** A resolver of one field. */
export type FieldResolver = GraphQLFieldResolver<any, GraphqlContext>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Resolvers by type and field name. */
export type ResolverMap = Readonly<Record<string, Readonly<Record<string, FieldResolver>>>>;

/**
 * An entity as a resolver hands it on: its URN, its entity name and DataHub's `EntityType`. Its other fields are
 * resolved from it (its aspects read through the request's entity loader, batched).
 */
export interface EntityRef {
  readonly urn: string;
  readonly entityName: string;
  readonly type: string;
}

/** The entity a URN names; undefined for a string that is no URN. */
export function entityRef(urn: string): EntityRef | undefined {
  const match = /^urn:li:([^:]+):/.exec(urn);
  if (match?.[1] === undefined) return undefined;
  return { urn, entityName: match[1], type: entityTypeOf(match[1]) };
}

export function isEntityRef(value: unknown): value is EntityRef {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as EntityRef).urn === 'string' &&
    typeof (value as EntityRef).entityName === 'string'
  );
}

/**
 * The object type an entity (or a member of a union of entities) is served as. An entity of a type the API does not
 * serve is an error for its field.
 */
export const resolveEntityType: GraphQLTypeResolver<unknown, GraphqlContext> = (value) => {
  if (isEntityRef(value)) {
    const objectType = objectTypeOf(value.entityName);
    if (objectType !== undefined) return objectType;
    throw new GraphQLError(`Entities of type ${value.entityName} are not served by the GraphQL API (${value.urn})`);
  }
  const typename = (value as { __typename?: unknown } | null)?.__typename;
  if (typeof typename === 'string') return typename;
  throw new GraphQLError('The value of an abstract type names no object type');
};

/** Map entries (`customProperties`, `extraArgs`) as DataHub's types list them. */
const MAP_ENTRY_TYPES = new Set(['CustomPropertiesEntry', 'StringMapEntry']);

/**
 * The resolver of every field without its own: the source's property of the field's name, adapted to the field's
 * type the way DataHub's mappers adapt an aspect — a URN where an entity is expected becomes that entity, a map where
 * a list of entries is expected becomes its entries. A function-valued property is called (lazy fields).
 */
export const adaptingFieldResolver: FieldResolver = (source, args, context, info) => {
  if (source === null || typeof source !== 'object') return null;
  const value: unknown = (source as Record<string, unknown>)[info.fieldName];
  if (typeof value === 'function') {
    return (value as FieldResolver).call(source, source, args, context, info);
  }
  return adapt(value, info.returnType, source as Record<string, unknown>);
};

/** A value adapted to a field's type (see {@link adaptingFieldResolver}). */
export function adapt(value: unknown, type: GraphQLOutputType, owner?: Record<string, unknown>): unknown {
  if (value === undefined || value === null) return null;
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    const named = getNamedType(inner);
    if (MAP_ENTRY_TYPES.has(named.name) && typeof value === 'object' && !Array.isArray(value)) {
      const associatedUrn = typeof owner?.['__urn'] === 'string' ? owner['__urn'] : undefined;
      return Object.entries(value as Record<string, unknown>).map(([key, entry]) => ({
        key,
        value: typeof entry === 'string' ? entry : JSON.stringify(entry),
        ...(associatedUrn === undefined ? {} : { associatedUrn }),
      }));
    }
    return Array.isArray(value) ? value.map((item) => adapt(item, inner.ofType, owner)) : null;
  }
  const named = getNamedType(inner);
  if (typeof value === 'string' && (isAbstractType(named) || (isObjectType(named) && isEntityType(named)))) {
    return entityRef(value) ?? null;
  }
  return value;
}

function isEntityType(type: { getInterfaces(): readonly { name: string }[] }): boolean {
  return type.getInterfaces().some((face) => face.name === 'Entity');
}

/** A resolver that refuses to start once the request's time budget is spent. */
function withinDeadline(resolve: FieldResolver): FieldResolver {
  return (source, args, context: GraphqlContext, info) => {
    if (context.now() > context.deadline) {
      throw new GraphQLError('The request ran out of its time budget before this field was resolved');
    }
    return resolve(source, args, context, info);
  };
}

/**
 * Builds the executable schema: the SDL parsed, each resolver of `resolvers` set on its field (a resolver for a field
 * the SDL lacks is a fault at start, not a silent no-op), and every abstract type resolved by entity name.
 */
export function executableSchema(sdl: readonly string[], resolvers: readonly ResolverMap[]): GraphQLSchema {
  const schema = buildSchema(sdl.join('\n'));
  for (const map of resolvers) {
    for (const [typeName, fields] of Object.entries(map)) {
      const type = schema.getType(typeName);
      if (!isObjectType(type))
        throw new Error(`Resolvers for ${typeName}, which the GraphQL schema has no object type of`);
      const defined = type.getFields();
      for (const [fieldName, resolve] of Object.entries(fields)) {
        const field = defined[fieldName];
        if (field === undefined) throw new Error(`A resolver for ${typeName}.${fieldName}, which the schema lacks`);
        if (field.resolve !== undefined) throw new Error(`Two resolvers for ${typeName}.${fieldName}`);
        field.resolve = withinDeadline(resolve);
      }
    }
  }
  for (const type of Object.values(schema.getTypeMap())) {
    if (isAbstractType(type)) type.resolveType = resolveEntityType;
  }
  return schema;
}
