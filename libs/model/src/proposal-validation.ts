import { parseAspectPatch, type AspectPatch } from './aspect-patch';
import { setOwn, type JsonObject } from './aspect-validator';
import type { AspectSpec, EntityRegistry, EntitySpec } from './entity-registry';
import { BadRequestError, PayloadTooLargeError, ValidationError } from './errors';
import { METADATA_TEST_ASPECT, parseTestDefinition } from './metadata-tests';
import { parseUrn, urnLengthProblem, type Urn } from './urn';

/** The change types a proposal may carry, after normalization (`UPDATE` is `UPSERT`). */
export type ProposalChangeType = 'UPSERT' | 'CREATE' | 'CREATE_ENTITY' | 'DELETE' | 'PATCH';

/** A proposal that passed every check: the entity, URN, aspect and value are known to fit together. */
export interface ValidatedProposal {
  readonly entity: EntitySpec;
  readonly urn: Urn;
  readonly changeType: ProposalChangeType;
  readonly aspect: AspectSpec;
  /** The normalized aspect value (unknown fields dropped, null optional fields removed); undefined for DELETE and PATCH. */
  readonly value: JsonObject | undefined;
  /** For PATCH: the operations, applied by the writer to the aspect's current value (`applyAspectPatch`). */
  readonly patch: AspectPatch | undefined;
  readonly systemMetadata: JsonObject | undefined;
  readonly headers: Readonly<Record<string, string>>;
}

export interface ProposalValidationOptions {
  /** Largest accepted serialized aspect value, in bytes (UTF-8). Default 16 000 000, DataHub's limit. */
  readonly maxAspectBytes?: number;
}

/** DataHub's aspect size limit (`INGESTION_MAX_SERIALIZED_STRING_LENGTH`). */
export const DEFAULT_MAX_ASPECT_BYTES = 16_000_000;

/**
 * The deepest nesting of arrays and objects a proposal may hold, as DataHub's JSON parser allows (Jackson's
 * `StreamReadConstraints` default). Deeper input is refused before anything walks it: `JSON.stringify` and the
 * recursive checks would overflow the stack on it (a few thousand levels are enough).
 */
export const MAX_JSON_NESTING_DEPTH = 1000;

const ACCEPTED_CHANGE_TYPES = 'UPSERT, UPDATE, CREATE, CREATE_ENTITY, DELETE, PATCH';
/** A Map, not an object literal: the change type is caller input, and `__proto__` must not find Object's prototype. */
const CHANGE_TYPES: ReadonlyMap<string, ProposalChangeType> = new Map([
  ['UPSERT', 'UPSERT'],
  ['UPDATE', 'UPSERT'],
  ['CREATE', 'CREATE'],
  ['CREATE_ENTITY', 'CREATE_ENTITY'],
  ['DELETE', 'DELETE'],
  ['PATCH', 'PATCH'],
]);
const SYSTEM_METADATA_STRINGS = ['runId', 'lastRunId', 'pipelineName', 'registryName', 'registryVersion', 'version'];
/** Fields of `schemas/events/SystemMetadata.avsc` typed `long`; it has no `int` field. */
const SYSTEM_METADATA_LONGS = ['lastObserved'];
/** Numbers kept in the stored system metadata only (not fields of the Avro record). */
const SYSTEM_METADATA_NUMBERS = ['schemaVersion'];
/**
 * The longs the Avro encoder (avsc) carries exactly. Its zig-zag encoding doubles a number in floating point, so it
 * refuses positive ones over 2^53 − 2 and, below −2^52, writes another number (the sign flipped) without a word.
 */
const AVRO_LONG_MIN = -(2 ** 52);
const AVRO_LONG_MAX = 2 ** 53 - 2;

/**
 * Validates a proposal in the JSON shape clients send to `/aspects?action=ingestProposal`:
 * `{entityType, entityUrn, changeType, aspectName, aspect: {value: "<JSON text>", contentType}, systemMetadata?, headers?}`
 * (`aspect.value` may also be an already-parsed object). Used by the gateway and, again, by the metadata-writer for
 * proposals from direct producers.
 *
 * Everything a client can get wrong throws a typed error with DataHub's message where DataHub has one:
 * {@link BadRequestError} for a proposal that is not an object, {@link PayloadTooLargeError} for an aspect over the
 * size limit, {@link ValidationError} (an `InvalidUrnError` for URNs) for the rest.
 */
export function validateProposal(
  registry: EntityRegistry,
  input: unknown,
  options: ProposalValidationOptions = {},
): ValidatedProposal {
  if (!isPlainObject(input)) throw new BadRequestError(`A proposal must be a JSON object, got ${describe(input)}`);
  checkNestingDepth(input, 'The proposal');
  const maxAspectBytes = options.maxAspectBytes ?? DEFAULT_MAX_ASPECT_BYTES;

  const entityType = input['entityType'];
  if (entityType === undefined || entityType === null || entityType === '') {
    throw new ValidationError('Proposal field entityType is required');
  }
  if (typeof entityType !== 'string')
    throw new ValidationError(`Proposal field entityType must be a string, got ${describe(entityType)}`);
  const entity = registry.entity(entityType);
  if (entity === undefined) throw new ValidationError(`Unknown entity: ${entityType}`);

  const entityUrn = input['entityUrn'];
  if (entityUrn === undefined || entityUrn === null || entityUrn === '') {
    throw new ValidationError('Proposal field entityUrn is required');
  }
  if (typeof entityUrn !== 'string')
    throw new ValidationError(`Proposal field entityUrn must be a string, got ${describe(entityUrn)}`);
  const urn = parseUrn(entityUrn);
  const tooLong = urnLengthProblem(urn);
  if (tooLong !== undefined) throw new ValidationError(tooLong);
  if (urn.entityType !== entityType) {
    throw new ValidationError(`URN entity type does not match MCP entity type. ${urn.entityType} != ${entityType}`);
  }
  const key = entity.keyFromUrn(urn);

  const rawChangeType = input['changeType'];
  if (rawChangeType === undefined || rawChangeType === null)
    throw new ValidationError('Proposal field changeType is required');
  const changeType = typeof rawChangeType === 'string' ? CHANGE_TYPES.get(rawChangeType) : undefined;
  if (changeType === undefined) {
    const shown = typeof rawChangeType === 'string' ? rawChangeType : JSON.stringify(rawChangeType);
    throw new ValidationError(`ChangeType ${shown} not supported: expected one of ${ACCEPTED_CHANGE_TYPES}`);
  }

  const aspectName = input['aspectName'];
  if (aspectName === undefined || aspectName === null || aspectName === '') {
    throw new ValidationError(
      changeType === 'DELETE'
        ? 'Aspect name is required for delete operations'
        : 'Aspect name is required for create and update operations',
    );
  }
  if (typeof aspectName !== 'string')
    throw new ValidationError(`Proposal field aspectName must be a string, got ${describe(aspectName)}`);
  const aspect = entity.aspect(aspectName);
  if (aspect === undefined) throw new ValidationError(`Unknown aspect ${aspectName} for entity ${entityType}`);
  if (aspect.kind === 'timeseries' && changeType !== 'UPSERT' && changeType !== 'DELETE') {
    throw new ValidationError(
      `ChangeType ${rawChangeType as string} not supported for timeseries aspect ${aspectName}: expected UPSERT (or DELETE)`,
    );
  }

  const systemMetadata = validateSystemMetadata(input['systemMetadata']);
  const headers = validateHeaders(input['headers']);
  if (changeType === 'DELETE' && aspect.kind === 'timeseries') {
    timeRangeOf(headers);
    timeseriesRunOf(headers);
  }
  if (changeType === 'PATCH') {
    if (aspect.isKey) throw new ValidationError(`ChangeType PATCH not supported for key aspect ${aspectName}`);
    const patch = parseAspectPatch(
      aspectName,
      aspectDocument(aspect, input['aspect'], maxAspectBytes, PATCH_MEDIA_TYPES),
    );
    return Object.freeze({ entity, urn, changeType, aspect, value: undefined, patch, systemMetadata, headers });
  }
  const value = changeType === 'DELETE' ? undefined : validateAspect(aspect, key, input['aspect'], maxAspectBytes);
  if (value !== undefined && aspect.name === METADATA_TEST_ASPECT) checkTestDefinition(value, registry);
  return Object.freeze({ entity, urn, changeType, aspect, value, patch: undefined, systemMetadata, headers });
}

/** Media types of an aspect value; a patch may also say it is a JSON Patch, as DataHub's Python SDK does. */
const VALUE_MEDIA_TYPES: ReadonlySet<string> = new Set(['application/json']);
const PATCH_MEDIA_TYPES: ReadonlySet<string> = new Set(['application/json', 'application/json-patch+json']);

/** The JSON of a proposal's `aspect` ({value, contentType}): parsed, with its size and nesting checked. */
function aspectDocument(
  aspect: AspectSpec,
  generic: unknown,
  maxAspectBytes: number,
  mediaTypes: ReadonlySet<string>,
): unknown {
  if (generic === undefined || generic === null) {
    throw new ValidationError(
      `Proposal field aspect is required for create and update operations (aspect ${aspect.name})`,
    );
  }
  if (!isPlainObject(generic)) {
    throw new ValidationError(`Proposal field aspect must be an object {value, contentType}, got ${describe(generic)}`);
  }
  const contentType = generic['contentType'];
  if (contentType !== undefined && contentType !== null) {
    const mediaType =
      typeof contentType === 'string' ? (contentType.split(';')[0] ?? '').trim().toLowerCase() : undefined;
    if (mediaType === undefined || !mediaTypes.has(mediaType)) {
      throw new ValidationError(
        `Unsupported content type ${JSON.stringify(contentType)} for aspect ${aspect.name}: only ${[...mediaTypes].join(' or ')} is supported`,
      );
    }
  }

  const raw = generic['value'];
  if (typeof raw === 'string') {
    checkSize(aspect, Buffer.byteLength(raw, 'utf8'), maxAspectBytes);
    checkTextNestingDepth(raw, `The value of aspect ${aspect.name}`);
    try {
      return JSON.parse(raw) as unknown;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ValidationError(`Could not deserialize ${raw.slice(0, 200)} for aspect ${aspect.name}: ${reason}`, {
        cause: error,
      });
    }
  }
  if (isPlainObject(raw) || Array.isArray(raw)) {
    let serialized: string;
    try {
      serialized = JSON.stringify(raw);
    } catch (error) {
      throw new ValidationError(`Could not serialize the value of aspect ${aspect.name}`, { cause: error });
    }
    checkSize(aspect, Buffer.byteLength(serialized, 'utf8'), maxAspectBytes);
    return raw;
  }
  if (raw === undefined || raw === null) {
    throw new ValidationError(`Proposal field aspect.value is required for aspect ${aspect.name}`);
  }
  throw new ValidationError(
    `Could not deserialize ${describe(raw)} for aspect ${aspect.name}: expected JSON text or an object`,
  );
}

function validateAspect(aspect: AspectSpec, key: JsonObject, generic: unknown, maxAspectBytes: number): JsonObject {
  const parsed = aspectDocument(aspect, generic, maxAspectBytes, VALUE_MEDIA_TYPES);
  if (!isPlainObject(parsed)) {
    const raw = isPlainObject(generic) ? generic['value'] : undefined;
    const shown = typeof raw === 'string' ? raw.slice(0, 200) : describe(raw);
    throw new ValidationError(`Could not deserialize ${shown} for aspect ${aspect.name}: expected a JSON object`);
  }
  if (aspect.kind === 'timeseries' && (parsed as JsonObject)['timestampMillis'] === undefined) {
    throw new ValidationError('Input timeseries aspect does not contain a timestampMillis field');
  }
  let value: JsonObject;
  try {
    value = aspect.validate(parsed);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(`Invalid format for aspect: ${aspect.name}\n Cause: ${error.message}`, { cause: error });
  }
  // A key aspect is what the URN says, whatever was sent beside it: DataHub validates the sent one against its schema,
  // then discards it for the key derived from the URN (its Power BI connector sends dashboard keys that differ).
  return aspect.isKey ? key : value;
}

/**
 * Throws a {@link ValidationError} naming {@link MAX_JSON_NESTING_DEPTH} when `value` (parsed JSON: objects, arrays,
 * primitives) nests arrays and objects deeper. Walks with an explicit stack, so that any depth can be measured; stops at
 * the first level too deep. `what` starts the message (`The proposal`).
 */
export function checkNestingDepth(value: unknown, what: string): void {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    const depth = next.depth + 1;
    if (depth > MAX_JSON_NESTING_DEPTH) throw tooDeep(what);
    for (const child of Object.values(next.value)) {
      if (typeof child === 'object' && child !== null) pending.push({ value: child, depth });
    }
  }
}

/** {@link checkNestingDepth} for JSON text, measured on the text (brackets outside strings) before it is parsed. */
function checkTextNestingDepth(text: string, what: string): void {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === BACKSLASH) index++;
      else if (char === QUOTE) inString = false;
    } else if (char === QUOTE) inString = true;
    else if (char === OPEN_BRACE || char === OPEN_BRACKET) {
      depth++;
      if (depth > MAX_JSON_NESTING_DEPTH) throw tooDeep(what);
    } else if (char === CLOSE_BRACE || char === CLOSE_BRACKET) depth--;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function tooDeep(what: string): ValidationError {
  return new ValidationError(
    `${what} nests arrays and objects deeper than the limit of ${MAX_JSON_NESTING_DEPTH} levels`,
  );
}

function checkSize(aspect: AspectSpec, bytes: number, maxAspectBytes: number): void {
  if (bytes > maxAspectBytes) {
    throw new PayloadTooLargeError(`Aspect ${aspect.name} is ${bytes} bytes, over the limit of ${maxAspectBytes}`);
  }
}

/**
 * System metadata is checked leniently: known fields must have their types (`lastObserved` an integer the Avro record
 * can carry, `runId` a string, `properties` a string map); null known fields are dropped; unknown fields are kept as
 * sent. Whatever passes encodes as the `SystemMetadata` record: a value it cannot hold would otherwise fail (a 500)
 * after validation, when the proposal is published.
 */
function validateSystemMetadata(input: unknown): JsonObject | undefined {
  if (input === undefined || input === null) return undefined;
  if (!isPlainObject(input))
    throw new ValidationError(`Proposal field systemMetadata must be an object, got ${describe(input)}`);
  const output: JsonObject = {};
  for (const [name, value] of Object.entries(input)) {
    if (value === null || value === undefined) continue;
    if (SYSTEM_METADATA_STRINGS.includes(name) && typeof value !== 'string') {
      throw new ValidationError(`systemMetadata.${name} must be a string, got ${describe(value)}`);
    }
    if (SYSTEM_METADATA_LONGS.includes(name) && !isAvroLong(value)) {
      throw new ValidationError(
        `systemMetadata.${name} must be an integer from ${AVRO_LONG_MIN} to ${AVRO_LONG_MAX} (an Avro long), got ${describe(value)}`,
      );
    }
    if (SYSTEM_METADATA_NUMBERS.includes(name) && (typeof value !== 'number' || !Number.isFinite(value))) {
      throw new ValidationError(`systemMetadata.${name} must be a number, got ${describe(value)}`);
    }
    setOwn(output, name, name === 'properties' ? stringMap(value, 'systemMetadata.properties') : value);
  }
  return output;
}

function isAvroLong(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= AVRO_LONG_MIN && value <= AVRO_LONG_MAX;
}

/**
 * The header of a proposal that may change its entity but not create it: set by the gateway on the writes of a caller
 * who may not create entities whose existence is a security input (a user), valued with the privilege that would be
 * needed. The writer refuses such a proposal when its entity does not exist when it applies it — so that the check
 * holds at the moment of the write, whatever happened since the caller's request was checked.
 */
export const CREATION_REQUIRES_HEADER = 'X-Strata-Creation-Requires';

/** The headers that bound a DELETE of a timeseries aspect: epoch milliseconds, inclusive, each optional. */
export const TIME_RANGE_HEADERS = { from: 'startTimeMillis', until: 'endTimeMillis' } as const;

/**
 * The inclusive range a DELETE of a timeseries aspect removes, from its proposal's headers (absent bound: open).
 * Throws a ValidationError for a bound that is not an integer, or a range that ends before it starts.
 */
export function timeRangeOf(headers: Readonly<Record<string, string>>): { fromMillis?: number; untilMillis?: number } {
  const read = (name: string): number | undefined => {
    const text = headers[name];
    if (text === undefined) return undefined;
    if (!/^-?\d{1,16}$/.test(text.trim()))
      throw new ValidationError(`Header ${name} must be epoch milliseconds, got ${JSON.stringify(text)}`);
    return Number(text.trim());
  };
  const fromMillis = read(TIME_RANGE_HEADERS.from);
  const untilMillis = read(TIME_RANGE_HEADERS.until);
  if (fromMillis !== undefined && untilMillis !== undefined && untilMillis < fromMillis) {
    throw new ValidationError(`The time range ends (${untilMillis}) before it starts (${fromMillis})`);
  }
  return { ...(fromMillis === undefined ? {} : { fromMillis }), ...(untilMillis === undefined ? {} : { untilMillis }) };
}

/**
 * The header of a DELETE of a timeseries aspect that narrows it to the values one ingestion run wrote: those whose
 * system metadata's `runId` is the header's value (within the time range too, when the range headers give one). What
 * the rollback of a run writes to remove the run's timeseries values, as DataHub deletes them by run id.
 */
export const TIMESERIES_RUN_HEADER = 'runId';

/**
 * The run a DELETE of a timeseries aspect is narrowed to ({@link TIMESERIES_RUN_HEADER}), undefined when the header is
 * absent. Throws a ValidationError for an empty value: it would name no run, and removing every value instead is what
 * leaving the header out says.
 */
export function timeseriesRunOf(headers: Readonly<Record<string, string>>): string | undefined {
  const runId = headers[TIMESERIES_RUN_HEADER];
  if (runId === undefined) return undefined;
  if (runId === '') {
    throw new ValidationError(
      `Header ${TIMESERIES_RUN_HEADER} must name an ingestion run, got ${JSON.stringify(runId)}`,
    );
  }
  return runId;
}

function validateHeaders(input: unknown): Readonly<Record<string, string>> {
  if (input === undefined || input === null) return Object.freeze({});
  return Object.freeze(stringMap(input, 'headers'));
}

function stringMap(input: unknown, name: string): Record<string, string> {
  if (!isPlainObject(input))
    throw new ValidationError(`Proposal field ${name} must be an object of strings, got ${describe(input)}`);
  const output: Record<string, string> = {};
  for (const [key, value] of Object.entries(input)) {
    if (typeof value !== 'string') throw new ValidationError(`${name}.${key} must be a string, got ${describe(value)}`);
    setOwn(output, key, value);
  }
  return output;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}…` : value);
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`;
  return typeof value;
}

/**
 * A metadata test is refused at ingest when its definition does not hold: a JSON definition must parse and name only
 * what the registry has (`parseTestDefinition`), so that a test that can never be evaluated is never stored.
 */
function checkTestDefinition(value: JsonObject, registry: EntityRegistry): void {
  const definition = value['definition'] as JsonObject | undefined;
  if (definition?.['type'] !== 'JSON') return;
  if (typeof definition['json'] !== 'string') {
    throw new ValidationError('Invalid test definition: definition.json must hold the definition, as a JSON string');
  }
  try {
    parseTestDefinition(definition['json'], registry);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(`Invalid test definition: ${error.message}`, { cause: error });
  }
}
