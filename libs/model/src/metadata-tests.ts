import { RE2JS } from 're2js';
import type { EntityRegistry } from './entity-registry';
import { ValidationError } from './errors';
import type { AvroSchema } from './record-schema';

/**
 * Metadata tests, DataHub's definition language (`testInfo.definition.json`): `on` selects entities (`types`, and
 * optional `conditions`), `rules` decides whether a selected entity passes. Both conditions and rules are predicates:
 *
 * - `{"and": [p…]}`, `{"or": [p…]}`, `{"not": p}`, or a bare list (an implicit `and`);
 * - a property predicate `{"property": "<aspect>.<path>", "operator": "<op>", "values": […]}` (`value` for one),
 *   DataHub's older spellings accepted: `match` for `on`, `query` for `property`, `operation` for `operator`,
 *   `negate: true` for a `not` around it;
 * - `schema_fields_have_descriptions`, which needs no property.
 *
 * A property path starts with an aspect name and walks its fields; a list met on the way is walked element by
 * element, so a path names every value reached (`ownership.owners.owner`: every owner). A predicate is true when any
 * value it reaches satisfies the operator, as DataHub's engine decides; an absent value reaches nothing, so every
 * operator is false for it — `exists` included — and only a `not` makes it true. An empty `rules` (`{}`, `[]`, or
 * none) passes every selected entity. A definition without `on` (`{}` included) selects no entity: evaluating it never
 * passes or fails anything.
 *
 * Parsing checks everything a definition names against the registry (entity types, aspects, field paths, operators)
 * and refuses, with the path of the fault, a definition that does not parse or nests deeper than
 * {@link MAX_TEST_NESTING}. Evaluation is a pure function of the definition and the entity's aspects;
 * `regex_match` runs with RE2, in time linear in the value, whatever the pattern.
 */

/** The operators of property predicates. */
export const TEST_OPERATORS = [
  'exists',
  'equals',
  'contains_str',
  'contains_any',
  'starts_with',
  'regex_match',
  'greater_than',
  'less_than',
  'is_true',
  'is_false',
] as const;

export type TestOperator = (typeof TEST_OPERATORS)[number];

/** The aspect holding an entity's test outcomes. */
export const TEST_RESULTS_ASPECT = 'testResults';

/** The aspect of a metadata test holding its definition. */
export const METADATA_TEST_ASPECT = 'testInfo';

/** How deeply predicates may nest. */
export const MAX_TEST_NESTING = 32;

export type TestPredicate =
  | { readonly kind: 'and'; readonly predicates: readonly TestPredicate[] }
  | { readonly kind: 'or'; readonly predicates: readonly TestPredicate[] }
  | { readonly kind: 'not'; readonly predicate: TestPredicate }
  | {
      readonly kind: 'property';
      /** The aspect, then the field path within it. */
      readonly aspect: string;
      readonly path: readonly string[];
      readonly operator: TestOperator;
      readonly values: readonly string[];
      /** Compiled once, for `regex_match`. */
      readonly patterns?: readonly RE2JS[];
    }
  | { readonly kind: 'schemaFieldsHaveDescriptions' };

/** A parsed test definition. */
export interface TestDefinition {
  /** The entity types `on` selects; none when the definition has no `on`. */
  readonly types: readonly string[];
  readonly conditions: TestPredicate | undefined;
  readonly rules: TestPredicate | undefined;
  /** The `actions` block, kept as written: Strata does not run actions. */
  readonly actions: unknown;
}

/** The entity a test is evaluated on: its type and its aspects' latest values by name. */
export interface TestedEntity {
  readonly entityType: string;
  readonly aspects: Readonly<Record<string, unknown>>;
}

/** The outcome of a test on an entity; undefined when `on` does not select it. */
export type TestOutcome = 'SUCCESS' | 'FAILURE' | undefined;

/** Parses and checks a definition (the JSON text or its value); a fault is a ValidationError naming its path. */
export function parseTestDefinition(definition: unknown, registry: EntityRegistry): TestDefinition {
  let json = definition;
  if (typeof definition === 'string') {
    try {
      json = JSON.parse(definition) as unknown;
    } catch (error) {
      throw new ValidationError(`definition: not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  const root = objectAt(json, 'definition');
  const on = root['on'] ?? root['match'];
  // DataHub stores a test without `on` (its own sample data holds `{}`) and its engine leaves it out of evaluation.
  // Here it selects no entity, so its rules can never be evaluated, and are neither read nor checked.
  if (on === undefined || on === null) {
    return { types: [], conditions: undefined, rules: undefined, actions: root['actions'] };
  }
  const onObject = objectAt(on, 'definition.on');
  const types = onObject['types'];
  if (!Array.isArray(types) || types.length === 0 || !types.every((type) => typeof type === 'string')) {
    throw new ValidationError('definition.on.types: must be a non-empty list of entity types');
  }
  const resolved = types.map((type, index) => {
    const entity =
      registry.entity(type) ??
      registry.entities().find((candidate) => candidate.name.toLowerCase() === type.toLowerCase());
    if (entity === undefined) throw new ValidationError(`definition.on.types[${index}]: unknown entity type ${type}`);
    return entity.name;
  });
  const context: ParseContext = { registry, types: resolved };
  const conditions = onObject['conditions'];
  return {
    types: resolved,
    conditions: conditions === undefined ? undefined : predicateOf(conditions, 'definition.on.conditions', context, 1),
    rules: isEmpty(root['rules']) ? undefined : predicateOf(root['rules'], 'definition.rules', context, 1),
    actions: root['actions'],
  };
}

/** Evaluates a test on an entity: undefined when not selected, else whether it passes. Pure. */
export function evaluateTest(definition: TestDefinition, entity: TestedEntity): TestOutcome {
  if (!definition.types.includes(entity.entityType)) return undefined;
  if (definition.conditions !== undefined && !holds(definition.conditions, entity)) return undefined;
  return definition.rules === undefined || holds(definition.rules, entity) ? 'SUCCESS' : 'FAILURE';
}

interface ParseContext {
  readonly registry: EntityRegistry;
  readonly types: readonly string[];
}

function predicateOf(value: unknown, at: string, context: ParseContext, depth: number): TestPredicate {
  if (depth > MAX_TEST_NESTING) throw new ValidationError(`${at}: nests deeper than ${MAX_TEST_NESTING} levels`);
  if (Array.isArray(value)) {
    return { kind: 'and', predicates: value.map((item, i) => predicateOf(item, `${at}[${i}]`, context, depth + 1)) };
  }
  const object = objectAt(value, at);
  for (const kind of ['and', 'or'] as const) {
    if (object[kind] === undefined) continue;
    const list = object[kind];
    if (!Array.isArray(list)) throw new ValidationError(`${at}.${kind}: must be a list of predicates`);
    return {
      kind,
      predicates: list.map((item, i) => predicateOf(item, `${at}.${kind}[${i}]`, context, depth + 1)),
    };
  }
  if (object['not'] !== undefined) {
    return { kind: 'not', predicate: predicateOf(object['not'], `${at}.not`, context, depth + 1) };
  }
  const operator = object['operator'] ?? object['operation'];
  if (operator === 'schema_fields_have_descriptions') return negated({ kind: 'schemaFieldsHaveDescriptions' }, object);
  if (typeof operator !== 'string') throw new ValidationError(`${at}: a predicate needs and, or, not, or an operator`);
  if (!(TEST_OPERATORS as readonly string[]).includes(operator)) {
    throw new ValidationError(`${at}.operator: unknown operator ${operator} (one of ${TEST_OPERATORS.join(', ')})`);
  }
  const property = object['property'] ?? object['query'];
  if (typeof property !== 'string' || property === '') throw new ValidationError(`${at}.property: must be a path`);
  const [aspect = '', ...path] = property.split('.');
  checkPath(aspect, path, `${at}.property`, context);
  const values = valuesOf(object, at);
  const typed = operator as TestOperator;
  if (['equals', 'contains_str', 'contains_any', 'starts_with', 'regex_match'].includes(typed) && values.length === 0) {
    throw new ValidationError(`${at}.values: ${typed} needs at least one value`);
  }
  if ((typed === 'greater_than' || typed === 'less_than') && (values.length !== 1 || !isNumeric(values[0]))) {
    throw new ValidationError(`${at}.values: ${typed} needs one number`);
  }
  const patterns = typed === 'regex_match' ? values.map((pattern, i) => compiled(pattern, `${at}.values[${i}]`)) : [];
  return negated(
    { kind: 'property', aspect, path, operator: typed, values, ...(patterns.length > 0 ? { patterns } : {}) },
    object,
  );
}

function negated(predicate: TestPredicate, object: Record<string, unknown>): TestPredicate {
  return object['negate'] === true ? { kind: 'not', predicate } : predicate;
}

function valuesOf(object: Record<string, unknown>, at: string): string[] {
  const raw = object['values'] ?? (object['value'] === undefined ? [] : [object['value']]);
  if (!Array.isArray(raw)) throw new ValidationError(`${at}.values: must be a list`);
  return raw.map((item, i) => {
    if (typeof item === 'string') return item;
    if (typeof item === 'number' || typeof item === 'boolean') return String(item);
    throw new ValidationError(`${at}.values[${i}]: must be a string, a number or a boolean`);
  });
}

function compiled(pattern: string, at: string): RE2JS {
  try {
    return RE2JS.compile(pattern);
  } catch (error) {
    throw new ValidationError(
      `${at}: not a regular expression (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

/** A path must name an aspect of a selected type, and fields its schema has (for at least one of those types). */
function checkPath(aspect: string, path: readonly string[], at: string, context: ParseContext): void {
  // A test reading outcomes would change with its own result: kept current, it would never settle.
  if (aspect === TEST_RESULTS_ASPECT) {
    throw new ValidationError(`${at}: a test cannot read ${TEST_RESULTS_ASPECT}, the outcomes of tests`);
  }
  const schemas = context.types.flatMap((type) => {
    const spec = context.registry.entity(type)?.aspect(aspect);
    return spec === undefined ? [] : [spec.schema];
  });
  if (schemas.length === 0) {
    throw new ValidationError(`${at}: ${aspect} is not an aspect of ${context.types.join(' or ')}`);
  }
  if (!schemas.some((schema) => resolves(schema, path))) {
    throw new ValidationError(`${at}: ${aspect} has no field ${path.join('.')}`);
  }
}

/** Whether the path walks fields of the schema, through lists, maps, optional values and unions. */
function resolves(schema: AvroSchema, path: readonly string[]): boolean {
  if (path.length === 0) return true;
  const [head = '', ...rest] = path;
  switch (schema.type) {
    case 'record': {
      const field = schema.field(head);
      return field !== undefined && resolves(field.type, rest);
    }
    case 'array':
      return resolves(schema.items, path);
    case 'map':
      return resolves(schema.values, rest);
    case 'union':
      return schema.members.some((member) => resolves(member, path));
    default:
      return false;
  }
}

function holds(predicate: TestPredicate, entity: TestedEntity): boolean {
  switch (predicate.kind) {
    case 'and':
      return predicate.predicates.every((inner) => holds(inner, entity));
    case 'or':
      return predicate.predicates.some((inner) => holds(inner, entity));
    case 'not':
      return !holds(predicate.predicate, entity);
    case 'schemaFieldsHaveDescriptions':
      return schemaFieldsHaveDescriptions(entity);
    case 'property':
      return valuesReached(entity.aspects[predicate.aspect], predicate.path).some((value) =>
        satisfies(predicate, value),
      );
  }
}

/** Every value at the path, lists walked element by element; null and absent values reach nothing. */
export function valuesReached(value: unknown, path: readonly string[]): unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item) => valuesReached(item, path));
  if (path.length === 0) return [value];
  if (typeof value !== 'object') return [];
  const [head = '', ...rest] = path;
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, head)) return valuesReached(record[head], rest);
  // A union written with its member's name (`{"string": "…"}`): look inside the member.
  const keys = Object.keys(record);
  return keys.length === 1 && keys[0]?.includes('.') === true ? valuesReached(record[keys[0]], path) : [];
}

function satisfies(predicate: Extract<TestPredicate, { kind: 'property' }>, value: unknown): boolean {
  const text =
    typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
  switch (predicate.operator) {
    case 'exists':
      return true;
    case 'equals':
      return text !== undefined && predicate.values.includes(text);
    case 'contains_any':
      return text !== undefined && predicate.values.includes(text);
    case 'contains_str':
      return text !== undefined && predicate.values.some((part) => text.includes(part));
    case 'starts_with':
      return text !== undefined && predicate.values.some((prefix) => text.startsWith(prefix));
    case 'regex_match':
      return text !== undefined && (predicate.patterns ?? []).some((pattern) => pattern.matcher(text).find());
    case 'greater_than':
      return isNumeric(text) && Number(text) > Number(predicate.values[0]);
    case 'less_than':
      return isNumeric(text) && Number(text) < Number(predicate.values[0]);
    case 'is_true':
      return value === true || text === 'true';
    case 'is_false':
      return value === false || text === 'false';
  }
}

/**
 * Every field of the entity's schema has a description: its own in `schemaMetadata`, or one given in
 * `editableSchemaMetadata`. An entity without a schema has no field lacking one.
 */
function schemaFieldsHaveDescriptions(entity: TestedEntity): boolean {
  const fields = valuesReached(entity.aspects['schemaMetadata'], ['fields']);
  const edited = new Map<string, unknown>();
  for (const info of valuesReached(entity.aspects['editableSchemaMetadata'], ['editableSchemaFieldInfo'])) {
    const record = info as Record<string, unknown>;
    if (typeof record['fieldPath'] === 'string') edited.set(record['fieldPath'], record['description']);
  }
  return fields.every((field) => {
    const record = field as Record<string, unknown>;
    const path = typeof record['fieldPath'] === 'string' ? record['fieldPath'] : '';
    return hasText(record['description']) || hasText(edited.get(path));
  });
}

function hasText(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}

function isNumeric(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '' && Number.isFinite(Number(value));
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

function objectAt(value: unknown, at: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError(`${at}: must be an object`);
  }
  return value as Record<string, unknown>;
}
