import type { JsonObject } from './aspect-validator';
import type { EntitySpec } from './entity-registry';
import { unionMemberKey, unwrapOptional, type AvroSchema } from './record-schema';
import { EVERY, KEYS, relationshipFields } from './search-annotations';
import { parseUrn } from './urn';

/** What taking every reference to a URN out of one aspect value leaves. */
export type ReferenceRemoval =
  /** The value names the URN nowhere a relationship annotation looks. */
  | { readonly kind: 'unchanged' }
  /** The value without the references, and the relationships (`TaggedWith`, …) they were. */
  | { readonly kind: 'changed'; readonly value: JsonObject; readonly relationships: readonly string[] }
  /** The reference was the aspect itself (a required top-level field, as `container.container`): delete the aspect. */
  | { readonly kind: 'emptied'; readonly relationships: readonly string[] };

/**
 * Takes every reference to `urn` out of a value of one of `entity`'s aspects, at the places its `Relationship`
 * annotations point to that allow the URN's entity type (the places its graph edges come from), as DataHub cleans
 * references to a deleted entity:
 *
 * - an array item (or map value) that is the URN goes, and so does one that holds it in a required field (an owner
 *   whose `owner` it is, a tag association whose `tag` it is); the array itself stays, empty if need be;
 * - an optional field that is the URN, or holds it in a required field, goes;
 * - a required field goes with the record holding it, up to the nearest array item or optional field — or, at the top
 *   of the aspect, the aspect itself (`emptied`).
 *
 * A map keyed by the URN (a `$key` path) loses that entry. Pure: `value` is not changed.
 */
export function removeReferences(
  entity: EntitySpec,
  aspectName: string,
  value: JsonObject,
  urn: string,
): ReferenceRemoval {
  const aspect = entity.aspect(aspectName);
  if (aspect === undefined) throw new Error(`${entity.name} has no aspect ${aspectName}`);
  let entityType: string;
  try {
    entityType = parseUrn(urn).entityType;
  } catch {
    return { kind: 'unchanged' };
  }
  const specs = relationshipFields(entity).filter(
    (spec) => spec.aspect === aspect.name && spec.entityTypes.includes(entityType),
  );
  const copy = structuredClone(value);
  const relationships: string[] = [];
  for (const spec of specs) {
    const hits = { count: 0 };
    const emptied = prune(aspect.schema, copy, spec.path, 0, urn, () => {
      hits.count++;
    });
    if (hits.count > 0 && !relationships.includes(spec.name)) relationships.push(spec.name);
    if (emptied) return { kind: 'emptied', relationships };
  }
  return relationships.length === 0 ? { kind: 'unchanged' } : { kind: 'changed', value: copy, relationships };
}

/**
 * Removes the references to `urn` at `path[index…]` inside `value` (of schema `type`), in place; calls `found` for
 * each. True when `value` itself must go: it is the URN, or a required part of it went.
 */
function prune(
  type: AvroSchema,
  value: unknown,
  path: readonly string[],
  index: number,
  urn: string,
  found: () => void,
): boolean {
  const present = unwrapOptional(type);
  if (index === path.length) {
    if (value === urn) {
      found();
      return true;
    }
    // A path may end at an array of URNs (its items are the values, as when edges are read).
    if (present.type === 'array' && Array.isArray(value)) {
      pruneItems(value, (item) => item === urn, found);
    }
    return false;
  }
  const segment = path[index] as string;
  switch (present.type) {
    case 'array':
      if (segment === EVERY && Array.isArray(value)) {
        pruneItems(
          value,
          (item) => prune(present.items, item, path, index + 1, urn, found),
          () => undefined,
        );
      }
      return false;
    case 'map':
      if (!isObject(value)) return false;
      for (const key of Object.keys(value)) {
        const drop =
          segment === KEYS
            ? index + 1 === path.length && key === urn
            : segment === EVERY && prune(present.values, value[key], path, index + 1, urn, found);
        if (drop) {
          if (segment === KEYS) found();
          Reflect.deleteProperty(value, key);
        }
      }
      return false;
    case 'record': {
      const field = present.field(segment);
      if (field === undefined || !isObject(value) || !Object.hasOwn(value, segment)) return false;
      if (!prune(field.type, value[segment], path, index + 1, urn, found)) return false;
      if (!field.optional) return true;
      Reflect.deleteProperty(value, segment);
      return false;
    }
    case 'union': {
      const member = present.members.find((candidate) => unionMemberKey(candidate) === segment);
      if (member === undefined) return false;
      // Pegasus JSON wraps a union's value in its member's key; a value of another member holds nothing here.
      if (!isObject(value) || Object.keys(value).length !== 1) return false;
      if (!Object.hasOwn(value, segment)) return false;
      return prune(member, value[segment], path, index + 1, urn, found);
    }
    default:
      return false;
  }
}

/** Removes, in place, the items `drop` says must go; calls `found` for each. */
function pruneItems(items: unknown[], drop: (item: unknown) => boolean, found: () => void): void {
  let kept = 0;
  for (const item of items) {
    if (drop(item)) found();
    else items[kept++] = item;
  }
  items.length = kept;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
