import { ValidationError } from './errors';
import {
  ANY_ENTITY_TYPE,
  javaClassOf,
  unionMemberKey,
  urnEntityTypeOfClass,
  type Annotations,
  type AvroSchema,
  type FieldSchema,
  type RecordSchema,
  type UnionSchema,
} from './record-schema';
import { parseUrn, type Urn } from './urn';

/** A JSON object: an aspect value, a key, system metadata. */
export type JsonObject = { [key: string]: unknown };

/** One thing wrong with an aspect value: where (a JSON pointer, `/owners/0/owner`) and why. */
export interface AspectProblem {
  readonly path: string;
  readonly reason: string;
}

/** An aspect value that does not match its schema. The message lists each problem as `<path>: <reason>`, one a line. */
export class AspectValidationError extends ValidationError {
  readonly problems: readonly AspectProblem[];

  constructor(problems: readonly AspectProblem[]) {
    const shown = problems.slice(0, MAX_PROBLEMS_SHOWN).map(({ path, reason }) => `${path}: ${reason}`);
    if (problems.length > MAX_PROBLEMS_SHOWN) shown.push(`… and ${problems.length - MAX_PROBLEMS_SHOWN} more problems`);
    super(shown.join('\n'));
    this.problems = problems;
  }
}

/** How a validation checks what the schema alone cannot. */
export interface AspectValidationContext {
  /**
   * Checks that a URN of a known entity type is well formed for that entity (its key derives from it), throwing a
   * {@link ValidationError} if not. Called for typed URN fields (`DatasetUrn`, …), not for generic `Urn` fields.
   */
  readonly checkEntityUrn?: (urn: Urn) => void;
}

const MAX_PROBLEMS_SHOWN = 10;
/** Problems beyond this many are counted, not collected. */
const MAX_PROBLEMS_COLLECTED = 1000;
const INT_MIN = -2_147_483_648;
const INT_MAX = 2_147_483_647;

/** An entity-type constraint from an `UrnValidation` annotation, waiting to reach the value it applies to. */
interface UrnConstraint {
  /** Path segments still to descend (`*` for array items and map values) before the constraint applies. */
  readonly remaining: readonly string[];
  readonly entityTypes: readonly string[];
}

const INVALID = Symbol('invalid');
type Result = unknown;

/**
 * Validates an aspect value against its record schema with Pegasus JSON semantics (see `schemas/README.md`) and
 * returns a normalized copy: unknown fields dropped at every depth, `null` optional fields removed, defaults NOT
 * filled in (the value is stored as sent). Never mutates `value`. Throws {@link AspectValidationError} listing every
 * problem (the first ten in the message) with its JSON path.
 *
 * URN checks: a string typed `java.class …<Type>Urn` must parse as a URN of that entity type (`…urn.Urn`: any type);
 * an `UrnValidation` annotation with `entityTypes` restricts the types further, as DataHub's URN validator does (a
 * `Relationship` annotation's `entityTypes` say where graph edges lead, and constrain nothing, as in DataHub). Entity
 * types compare without case (`urn:li:corpUser:x` passes as a corpuser URN, as in DataHub's documentation).
 */
export function validateAspectValue(
  schema: RecordSchema,
  value: unknown,
  context: AspectValidationContext = {},
): JsonObject {
  const walker = new Walker(context);
  const result = walker.record(schema, value, ROOT, NO_CONSTRAINTS);
  if (walker.problems.length > 0 || result === INVALID) throw new AspectValidationError(walker.problems);
  return result as JsonObject;
}

/**
 * Where a value is, as a chain of segments from the root: built as the walk descends, written out as a JSON pointer
 * only when there is a problem to report (an aspect can hold 100,000 owners; copying an array of segments for each
 * would dominate the walk).
 */
interface Path {
  readonly parent: Path | undefined;
  readonly segment: string;
}

const ROOT: Path | undefined = undefined;
/**
 * The annotation of a record that stands for a Pegasus union with member aliases (`union[costId: double, costCode:
 * string]`): its fields are the members, and a value sets exactly one (`{"costId": 3.5}`).
 */
const ALIASED_UNION = 'unionWithAliases';

const NO_CONSTRAINTS: readonly UrnConstraint[] = [];

function at(parent: Path | undefined, segment: string): Path {
  return { parent, segment };
}

class Walker {
  readonly problems: AspectProblem[] = [];

  constructor(private readonly context: AspectValidationContext) {}

  private problem(path: Path | undefined, reason: string): typeof INVALID {
    if (this.problems.length < MAX_PROBLEMS_COLLECTED) this.problems.push({ path: pointer(path), reason });
    return INVALID;
  }

  record(schema: RecordSchema, value: unknown, path: Path | undefined, constraints: readonly UrnConstraint[]): Result {
    if (!isPlainObject(value)) return this.problem(path, `expected an object (${schema.name}), got ${describe(value)}`);
    const output: JsonObject = {};
    let valid = true;
    for (const field of schema.fields) {
      const fieldPath = at(path, field.name);
      const fieldValue = Object.prototype.hasOwnProperty.call(value, field.name) ? value[field.name] : undefined;
      const own = fieldFacts(field).constraints;
      const inherited = constraints.length === 0 ? NO_CONSTRAINTS : descend(constraints, field.name);
      const fieldConstraints = inherited.length === 0 ? own : own.length === 0 ? inherited : [...inherited, ...own];
      if (fieldValue === undefined || (fieldValue === null && field.optional)) {
        if (!field.optional && !field.hasDefault) {
          this.problem(fieldPath, 'required field is missing');
          valid = false;
        }
        continue;
      }
      const result = this.field(field, fieldValue, fieldPath, fieldConstraints);
      if (result === INVALID) valid = false;
      else output[field.name] = result;
    }
    if (valid && schema.annotations[ALIASED_UNION] === true && Object.keys(output).length !== 1) {
      const members = schema.fields.map((field) => field.name).join(', ');
      return this.problem(path, `a union holds exactly one of ${members}, got ${Object.keys(output).length}`);
    }
    return valid ? output : INVALID;
  }

  private field(
    field: FieldSchema,
    value: unknown,
    path: Path | undefined,
    constraints: readonly UrnConstraint[],
  ): Result {
    const fieldClass = fieldFacts(field).javaClass;
    if (field.optional && field.type.type === 'union') {
      const present = field.type.members.filter((member) => member.type !== 'null');
      const only = present.length === 1 ? present[0] : undefined;
      if (only !== undefined) return this.value(only, value, path, constraints, fieldClass);
      return this.union({ type: 'union', members: present }, value, path, constraints);
    }
    return this.value(field.type, value, path, constraints, fieldClass);
  }

  private value(
    schema: AvroSchema,
    value: unknown,
    path: Path | undefined,
    constraints: readonly UrnConstraint[],
    inheritedClass?: string,
  ): Result {
    switch (schema.type) {
      case 'record':
        return this.record(schema, value, path, constraints);
      case 'union':
        return this.union(schema, value, path, constraints);
      case 'array': {
        if (!Array.isArray(value)) return this.problem(path, `expected an array, got ${describe(value)}`);
        const itemConstraints = constraints.length === 0 ? NO_CONSTRAINTS : descend(constraints, '*');
        const output = value.map((item, index) =>
          this.value(schema.items, item, at(path, String(index)), itemConstraints),
        );
        return output.includes(INVALID) ? INVALID : output;
      }
      case 'map': {
        if (!isPlainObject(value)) return this.problem(path, `expected an object (a map), got ${describe(value)}`);
        const valueConstraints = constraints.length === 0 ? NO_CONSTRAINTS : descend(constraints, '*');
        const output: JsonObject = {};
        let valid = true;
        for (const [key, item] of Object.entries(value)) {
          const result = this.value(schema.values, item, at(path, key), valueConstraints);
          if (result === INVALID) valid = false;
          else setOwn(output, key, result);
        }
        return valid ? output : INVALID;
      }
      case 'enum':
        if (typeof value !== 'string')
          return this.problem(path, `expected a string (${schema.name}), got ${describe(value)}`);
        if (!schema.symbols.includes(value)) {
          return this.problem(path, `${JSON.stringify(value)} is not one of ${listSymbols(schema.symbols)}`);
        }
        return value;
      case 'fixed':
        if (typeof value !== 'string' || value.length !== schema.size) {
          return this.problem(
            path,
            `expected a string of ${schema.size} characters (${schema.name}), got ${describe(value)}`,
          );
        }
        return value;
      case 'string':
        if (typeof value !== 'string') return this.problem(path, `expected a string, got ${describe(value)}`);
        return this.urn(value, schemaJavaClass(schema) ?? inheritedClass, path, constraints);
      case 'bytes':
        if (typeof value !== 'string') return this.problem(path, `expected a string (bytes), got ${describe(value)}`);
        return value;
      case 'boolean':
        if (typeof value !== 'boolean') return this.problem(path, `expected a boolean, got ${describe(value)}`);
        return value;
      case 'int':
        if (typeof value !== 'number' || !Number.isInteger(value) || value < INT_MIN || value > INT_MAX) {
          return this.problem(
            path,
            `expected an int (an integer from ${INT_MIN} to ${INT_MAX}), got ${describe(value)}`,
          );
        }
        return value;
      case 'long':
        if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
          return this.problem(
            path,
            `expected a long (an integer within ±${Number.MAX_SAFE_INTEGER}), got ${describe(value)}`,
          );
        }
        return value;
      case 'float':
      case 'double':
        if (typeof value !== 'number' || !Number.isFinite(value)) {
          return this.problem(path, `expected a finite number (${schema.type}), got ${describe(value)}`);
        }
        return value;
      case 'null':
        if (value !== null) return this.problem(path, `expected null, got ${describe(value)}`);
        return null;
    }
  }

  private union(
    schema: UnionSchema,
    value: unknown,
    path: Path | undefined,
    constraints: readonly UrnConstraint[],
  ): Result {
    if (value === null && schema.members.some((member) => member.type === 'null')) return null;
    const keys = schema.members.filter((member) => member.type !== 'null').map(unionMemberKey);
    const expected = `an object with one key, one of ${keys.join(', ')}`;
    if (!isPlainObject(value)) return this.problem(path, `expected ${expected}, got ${describe(value)}`);
    const present = Object.keys(value);
    const key = present[0];
    if (present.length !== 1 || key === undefined) {
      return this.problem(
        path,
        `expected ${expected}, got ${present.length === 0 ? 'an empty object' : `keys ${present.join(', ')}`}`,
      );
    }
    const member = schema.members.find((candidate) => candidate.type !== 'null' && unionMemberKey(candidate) === key);
    if (member === undefined)
      return this.problem(path, `union member ${JSON.stringify(key)} is not one of ${keys.join(', ')}`);
    const result = this.value(member, value[key], at(path, key), descend(constraints, key));
    return result === INVALID ? INVALID : { [key]: result };
  }

  /** Checks a string that must be a URN (typed field, or a relationship target); returns it unchanged. */
  private urn(
    value: string,
    javaClass: string | undefined,
    path: Path | undefined,
    constraints: readonly UrnConstraint[],
  ): Result {
    const typed = javaClass === undefined ? undefined : entityTypeOfClass(javaClass);
    const applicable =
      constraints.length === 0
        ? NO_CONSTRAINTS
        : constraints.filter((constraint) => constraint.remaining.length === 0 && constraint.entityTypes.length > 0);
    if (typed === undefined && applicable.length === 0) return value;
    let urn: Urn;
    try {
      urn = parseUrn(value);
    } catch (error) {
      return this.problem(path, error instanceof Error ? error.message : String(error));
    }
    if (typed !== undefined && typed !== ANY_ENTITY_TYPE && !sameEntityType(urn.entityType, typed)) {
      return this.problem(path, `${JSON.stringify(value)} is not ${article(typed)} ${typed} URN`);
    }
    for (const { entityTypes } of applicable) {
      if (!entityTypes.some((entityType) => sameEntityType(urn.entityType, entityType))) {
        return this.problem(
          path,
          `${JSON.stringify(value)} is not ${article(entityTypes[0] ?? '')} ${orList(entityTypes)} URN`,
        );
      }
    }
    if (typed !== undefined && typed !== ANY_ENTITY_TYPE && this.context.checkEntityUrn !== undefined) {
      try {
        this.context.checkEntityUrn(urn);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        return this.problem(path, error.message);
      }
    }
    return value;
  }
}

/**
 * Sets `key` as an own enumerable property of a JSON object being built from client data. Plain assignment treats a
 * key named `__proto__` (a map key a client may well send) as the prototype setter: the entry would vanish, or, were
 * its value an object, become the object's prototype.
 */
export function setOwn(target: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * Entity types in typed URN fields compare without case: DataHub's own documentation ingests groups whose members are
 * `urn:li:corpUser:jdoe`, and DataHub accepts them there. A URN of a different entity type is still rejected.
 */
function sameEntityType(actual: string, expected: string): boolean {
  return actual === expected || actual.toLowerCase() === expected.toLowerCase();
}

/** The entity-type constraints a field's `UrnValidation` annotation puts on its value or inside it. */
function constraintsOf(field: FieldSchema): UrnConstraint[] {
  const annotation = field.annotations['UrnValidation'];
  if (!isPlainObject(annotation)) return [];
  const entityTypes = entityTypesOf(annotation);
  if (entityTypes !== undefined) return [{ remaining: [], entityTypes }];
  // Path-keyed form, on arrays, maps and records: {"/*/tag": {"entityTypes": […]}}.
  const constraints: UrnConstraint[] = [];
  for (const [subPath, inner] of Object.entries(annotation)) {
    if (!subPath.startsWith('/') || !isPlainObject(inner)) continue;
    const innerTypes = entityTypesOf(inner);
    if (innerTypes !== undefined)
      constraints.push({ remaining: subPath.split('/').filter((s) => s !== ''), entityTypes: innerTypes });
  }
  return constraints;
}

function entityTypesOf(annotation: Record<string, unknown>): readonly string[] | undefined {
  const entityTypes = annotation['entityTypes'];
  if (!Array.isArray(entityTypes)) return undefined;
  return entityTypes.filter((type): type is string => typeof type === 'string');
}

/** Moves constraints one segment down; those whose next segment differs fall away. */
function descend(constraints: readonly UrnConstraint[], segment: string): UrnConstraint[] {
  const result: UrnConstraint[] = [];
  for (const constraint of constraints) {
    const [next, ...rest] = constraint.remaining;
    if (next === segment) result.push({ remaining: rest, entityTypes: constraint.entityTypes });
  }
  return result;
}

function pointer(path: Path | undefined): string {
  const segments: string[] = [];
  for (let node = path; node !== undefined; node = node.parent) segments.unshift(node.segment);
  if (segments.length === 0) return '/';
  return segments.map((segment) => `/${segment.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** What a field's annotations say, worked out once per field: schemas are shared by every value validated. */
interface FieldFacts {
  readonly javaClass: string | undefined;
  readonly constraints: readonly UrnConstraint[];
}

const factsOfField = new WeakMap<FieldSchema, FieldFacts>();

function fieldFacts(field: FieldSchema): FieldFacts {
  let facts = factsOfField.get(field);
  if (facts === undefined) {
    facts = { javaClass: javaClassOf(field.annotations), constraints: constraintsOf(field) };
    factsOfField.set(field, facts);
  }
  return facts;
}

const javaClassOfSchema = new WeakMap<object, string | null>();

function schemaJavaClass(schema: AvroSchema & { readonly annotations: Annotations }): string | undefined {
  let javaClass = javaClassOfSchema.get(schema);
  if (javaClass === undefined) {
    javaClass = javaClassOf(schema.annotations) ?? null;
    javaClassOfSchema.set(schema, javaClass);
  }
  return javaClass ?? undefined;
}

const entityTypeOfJavaClass = new Map<string, string | undefined>();

function entityTypeOfClass(javaClass: string): string | undefined {
  if (!entityTypeOfJavaClass.has(javaClass)) entityTypeOfJavaClass.set(javaClass, urnEntityTypeOfClass(javaClass));
  return entityTypeOfJavaClass.get(javaClass);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return `the string ${truncate(JSON.stringify(value))}`;
    case 'number':
    case 'boolean':
      return String(value);
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

function truncate(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

function listSymbols(symbols: readonly string[]): string {
  return symbols.length > 30 ? `${symbols.slice(0, 30).join(', ')}, …` : symbols.join(', ');
}

function orList(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1] ?? ''}`;
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}
