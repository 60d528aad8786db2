import {
  BadRequestError,
  InvalidUrnError,
  ValidationError,
  formatUrn,
  parseUrn,
  unionMemberKey,
  type AspectSpec,
  type AvroSchema,
  type EntityRegistry,
  type EntitySpec,
  type JsonObject,
  type RecordSchema,
} from '@strata/model';

/**
 * The shapes of DataHub's OpenAPI entity endpoints (`/openapi/v3/entity`, `/openapi/v2/entity/batch`,
 * `/openapi/entities/v1`, the registry specifications) turned into Strata's and back. Pure: proposals come out in the
 * JSON shape `validateProposal` reads, and reads go in as the writer's batch read answers them.
 */

/** A proposal in the JSON shape of `ingestProposal`, before validation. */
export type RawProposal = Readonly<Record<string, unknown>>;

/** The change types an OpenAPI write asks for. */
export type OpenApiChangeType = 'UPSERT' | 'CREATE' | 'CREATE_ENTITY' | 'PATCH';

/** DataHub's header asking a write to answer once the read models show it, also accepted among an aspect's headers. */
export const SYNC_INDEX_HEADER_NAME = 'X-DataHub-Sync-Index-Update';

/** DataHub's header of a conditional write, and of a version read in `batchGet`. */
export const IF_VERSION_MATCH = 'If-Version-Match';

/** DataHub's header on a 404 of the entity endpoints (`ENTITY`, the only value DataHub sends). */
export const NOT_FOUND_REASON = 'Not-Found-Reason';

/** The entity type a path names, or DataHub's 400. */
export function entityOfPath(registry: EntityRegistry, entityName: string): EntitySpec {
  const entity = registry.entity(entityName);
  if (entity === undefined) {
    throw new BadRequestError(`Failed to find entity with name ${entityName} in EntityRegistry`);
  }
  return entity;
}

/** An aspect of the entity by name (case-insensitively, as DataHub looks them up), or a 400. */
export function aspectNamed(entity: EntitySpec, name: string): AspectSpec {
  const exact = entity.aspect(name);
  if (exact !== undefined) return exact;
  const lower = name.toLowerCase();
  const folded = entity.aspects.find((aspect) => aspect.name.toLowerCase() === lower);
  if (folded === undefined) throw new BadRequestError(`Unknown aspect ${name} for entity ${entity.name}`);
  return folded;
}

/**
 * A URN of `entity`, normalized, or a 400: it must parse, be of the path's entity type, and fit the entity's key.
 */
export function entityUrnOf(entity: EntitySpec, text: string): string {
  try {
    const urn = parseUrn(text);
    if (urn.entityType !== entity.name) {
      throw new BadRequestError(`URN ${text} is not a ${entity.name} URN (its entity type is ${urn.entityType})`);
    }
    entity.keyFromUrn(urn);
    return urn.toString();
  } catch (error) {
    if (error instanceof InvalidUrnError) throw new BadRequestError(error.message, { cause: error });
    throw error;
  }
}

/**
 * What the rest of a path after `/{entityName}/` names: an entity (`{urn}`), or one of its aspects (`{urn}/{aspect}`).
 * A URN may itself hold slashes (sent raw), so the last segment is an aspect only when it names one of the entity's
 * aspects and what precedes it is a URN; a last segment naming no aspect after a URN that reads whole is part of it.
 */
export function entityPathOf(entity: EntitySpec, rest: string): { urn: string; aspect?: AspectSpec } {
  const slash = rest.lastIndexOf('/');
  if (slash > 0) {
    const head = rest.slice(0, slash);
    const last = rest.slice(slash + 1);
    if (parses(head)) {
      const aspect = findAspect(entity, last);
      if (aspect !== undefined) return { urn: entityUrnOf(entity, head), aspect };
      if (!parses(rest)) {
        // `{urn}/{aspect}` with an aspect the entity does not have.
        aspectNamed(entity, last);
      }
    }
  }
  return { urn: entityUrnOf(entity, rest) };
}

function findAspect(entity: EntitySpec, name: string): AspectSpec | undefined {
  try {
    return aspectNamed(entity, name);
  } catch {
    return undefined;
  }
}

function parses(text: string): boolean {
  try {
    parseUrn(text);
    return true;
  } catch {
    return false;
  }
}

/** One write of a v3 body: its proposal, and where it came from in the request (for messages). */
export interface LocatedProposal {
  readonly proposal: RawProposal;
  /** `[0].datasetProperties` */
  readonly where: string;
}

/**
 * The proposals of a v3 batch write (`POST` / `PATCH /openapi/v3/entity/{entityName}`): a JSON array of
 * `{urn, <aspectName>: {value, systemMetadata?, headers?}}`, each aspect one proposal of `changeType` on the path's
 * entity type. A PATCH's `value` is the patch: a JSON Patch array, or `{patch, arrayPrimaryKeys?,
 * forceGenericPatch?}`. Throws a 400 naming every place the body does not have this shape; the proposals themselves
 * are validated by the caller.
 */
export function v3WriteProposals(entity: EntitySpec, body: unknown, changeType: OpenApiChangeType): LocatedProposal[] {
  if (!Array.isArray(body)) {
    throw new BadRequestError(
      `Request body must be a JSON array of entities ({urn, <aspectName>: {value}}), got ${describe(body)}`,
    );
  }
  const problems: string[] = [];
  const located: LocatedProposal[] = [];
  body.forEach((item: unknown, index) => {
    if (!isPlainObject(item)) {
      problems.push(`[${index}]: must be an object {urn, <aspectName>: {value}}, got ${describe(item)}`);
      return;
    }
    const urn = item['urn'];
    if (typeof urn !== 'string' || urn === '') {
      problems.push(`[${index}]: Missing \`urn\` field`);
      return;
    }
    for (const [aspectName, aspect] of Object.entries(item)) {
      if (aspectName === 'urn') continue;
      const where = `[${index}].${aspectName}`;
      try {
        located.push({ proposal: aspectProposal(entity.name, urn, aspectName, aspect, changeType), where });
      } catch (error) {
        if (!(error instanceof BadRequestError)) throw error;
        problems.push(`${where}: ${error.message}`);
      }
    }
  });
  if (problems.length > 0) throw new BadRequestError(problems.slice(0, 20).join('\n'));
  return located;
}

/**
 * The proposal of one aspect write: `{value, systemMetadata?, headers?}` (the body of `POST
 * /{entityName}/{urn}/{aspectName}`, or one aspect of a batch). Throws a 400 for another shape.
 */
export function aspectProposal(
  entityType: string,
  entityUrn: string,
  aspectName: string,
  aspect: unknown,
  changeType: OpenApiChangeType,
): RawProposal {
  if (!isPlainObject(aspect)) {
    throw new BadRequestError(`must be an object {value, systemMetadata?, headers?}, got ${describe(aspect)}`);
  }
  const value = aspect['value'];
  const patchShaped = changeType === 'PATCH' && Array.isArray(value);
  if (!isPlainObject(value) && !patchShaped) {
    throw new BadRequestError(
      changeType === 'PATCH'
        ? `value must be the patch: an array of operations, or {patch, arrayPrimaryKeys?}, got ${describe(value)}`
        : `value must be the aspect as a JSON object, got ${describe(value)}`,
    );
  }
  const systemMetadata = aspect['systemMetadata'];
  const headers = aspect['headers'];
  return {
    entityType,
    entityUrn,
    changeType,
    aspectName,
    aspect: { value, contentType: 'application/json' },
    ...(systemMetadata === undefined || systemMetadata === null ? {} : { systemMetadata }),
    ...(headers === undefined || headers === null ? {} : { headers }),
  };
}

/** The change type of a create: DataHub's `createIfEntityNotExists` wins over `createIfNotExists`. */
export function createChangeType(flags: {
  readonly createIfEntityNotExists: boolean;
  readonly createIfNotExists: boolean;
}): 'UPSERT' | 'CREATE' | 'CREATE_ENTITY' {
  if (flags.createIfEntityNotExists) return 'CREATE_ENTITY';
  return flags.createIfNotExists ? 'CREATE' : 'UPSERT';
}

/** Whether any proposal asks, among its headers, to be answered once the read models show it. */
export function asksForIndexing(proposals: readonly RawProposal[]): boolean {
  return proposals.some((proposal) => {
    const headers = proposal['headers'];
    if (!isPlainObject(headers)) return false;
    return Object.entries(headers).some(
      ([name, value]) =>
        name.toLowerCase() === SYNC_INDEX_HEADER_NAME.toLowerCase() &&
        typeof value === 'string' &&
        value.toLowerCase() === 'true',
    );
  });
}

/**
 * The proposals of the Java emitter's `POST /openapi/entities/v1/`: a JSON array of `UpsertAspectRequest`s,
 * `{entityType, entityUrn | entityKeyAspect, aspect: {__type: <record name>, …fields}}`. The aspect is the one of the
 * entity whose record has that simple name (`DatasetProperties`); unions inside it are written the generated Java
 * models' way, `{__type: <member record name>, …fields}`, and become Pegasus JSON's `{<full name>: {…fields}}`. A
 * request without `entityUrn` names its entity by its key aspect. Throws a 400 naming every request of the wrong
 * shape.
 */
export function v1WriteProposals(registry: EntityRegistry, body: unknown): LocatedProposal[] {
  if (!Array.isArray(body)) {
    throw new BadRequestError(
      `Request body must be a JSON array of UpsertAspectRequest ({entityType, entityUrn, aspect}), got ${describe(body)}`,
    );
  }
  const problems: string[] = [];
  const located: LocatedProposal[] = [];
  body.forEach((item: unknown, index) => {
    const where = `[${index}]`;
    try {
      located.push({ proposal: upsertAspectRequestProposal(registry, item), where });
    } catch (error) {
      if (!(error instanceof BadRequestError) && !(error instanceof ValidationError)) throw error;
      problems.push(`${where}: ${error.message}`);
    }
  });
  if (problems.length > 0) throw new BadRequestError(problems.slice(0, 20).join('\n'));
  return located;
}

function upsertAspectRequestProposal(registry: EntityRegistry, item: unknown): RawProposal {
  if (!isPlainObject(item))
    throw new BadRequestError(`must be an object {entityType, entityUrn, aspect}, got ${describe(item)}`);
  const entityType = item['entityType'];
  if (typeof entityType !== 'string' || entityType === '') throw new BadRequestError('entityType is required');
  const entity = entityOfPath(registry, entityType);
  const typed = item['aspect'];
  if (!isPlainObject(typed)) throw new BadRequestError(`aspect must be an object {__type, …}, got ${describe(typed)}`);
  const aspect = aspectOfTypedValue(entity, typed);
  const entityUrn = item['entityUrn'];
  let urn: string;
  if (typeof entityUrn === 'string' && entityUrn !== '') urn = entityUrn;
  else if (entityUrn === undefined || entityUrn === null) {
    const key = item['entityKeyAspect'];
    if (!isPlainObject(key)) throw new BadRequestError('entityUrn or entityKeyAspect is required');
    urn = urnOfKey(entity, fromTypedJson(entity.keyAspect.schema, key));
  } else throw new BadRequestError(`entityUrn must be a string, got ${describe(entityUrn)}`);
  return {
    entityType: entity.name,
    entityUrn: urn,
    changeType: 'UPSERT',
    aspectName: aspect.name,
    aspect: { value: fromTypedJson(aspect.schema, typed), contentType: 'application/json' },
  };
}

/** The aspect a typed value (`{__type: "DatasetProperties", …}`) is of. */
function aspectOfTypedValue(entity: EntitySpec, typed: Record<string, unknown>): AspectSpec {
  const type = typed['__type'];
  if (typeof type !== 'string' || type === '') {
    throw new BadRequestError('aspect.__type is required: the name of the aspect record (e.g. DatasetProperties)');
  }
  const matches = entity.aspects.filter(
    (aspect) => simpleName(aspect.recordName) === type || aspect.recordName === type,
  );
  const aspect = matches[0];
  if (aspect === undefined || matches.length > 1) {
    throw new BadRequestError(`Unknown aspect type ${type} for entity ${entity.name}`);
  }
  return aspect;
}

/**
 * A value written the generated Java models' way turned into Pegasus JSON, walking the schema: `__type` is dropped
 * from records, and a union member written `{__type: <record simple name>, …fields}` becomes `{<full name>: {…}}`. A
 * union already in Pegasus form (`{<member key>: value}`) stays as it is; what matches no member is left for
 * validation to refuse.
 */
export function fromTypedJson(schema: AvroSchema, value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  switch (schema.type) {
    case 'record':
      return isPlainObject(value) ? recordFromTyped(schema, value) : value;
    case 'array':
      return Array.isArray(value) ? value.map((item: unknown) => fromTypedJson(schema.items, item)) : value;
    case 'map':
      return isPlainObject(value)
        ? Object.fromEntries(Object.entries(value).map(([name, item]) => [name, fromTypedJson(schema.values, item)]))
        : value;
    case 'union': {
      const present = schema.members.filter((member) => member.type !== 'null');
      const only = present.length === 1 ? present[0] : undefined;
      if (only !== undefined) return fromTypedJson(only, value);
      if (!isPlainObject(value)) return value;
      const type = value['__type'];
      if (typeof type === 'string') {
        const member = present.find(
          (candidate) =>
            candidate.type === 'record' && (simpleName(candidate.name) === type || candidate.name === type),
        );
        if (member !== undefined) return { [unionMemberKey(member)]: fromTypedJson(member, value) };
      }
      const keys = Object.keys(value);
      const member = keys.length === 1 ? present.find((candidate) => unionMemberKey(candidate) === keys[0]) : undefined;
      if (member !== undefined && keys[0] !== undefined) {
        return { [keys[0]]: fromTypedJson(member, value[keys[0]]) };
      }
      return value;
    }
    default:
      return value;
  }
}

function recordFromTyped(schema: RecordSchema, value: Record<string, unknown>): Record<string, unknown> {
  const output: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    if (name === '__type') continue;
    const field = schema.field(name);
    Object.defineProperty(output, name, {
      value: field === undefined ? item : fromTypedJson(field.type, item),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return output;
}

/** The URN a key aspect value names: `urn:li:<entity>:<field>`, or a tuple of the fields in key order. */
export function urnOfKey(entity: EntitySpec, keyValue: unknown): string {
  let key: JsonObject;
  try {
    key = entity.keyAspect.validate(keyValue);
  } catch (error) {
    if (error instanceof ValidationError) {
      throw new BadRequestError(`entityKeyAspect is not a ${entity.keyAspect.name}: ${error.message}`, {
        cause: error,
      });
    }
    throw error;
  }
  const parts = entity.keyAspect.schema.fields.map((field) => {
    const part = key[field.name];
    if (typeof part === 'string' || typeof part === 'number' || typeof part === 'boolean') return String(part);
    throw new BadRequestError(`entityKeyAspect.${field.name} is required to name the entity`);
  });
  try {
    return formatUrn(entity.name, parts);
  } catch (error) {
    if (error instanceof InvalidUrnError) throw new BadRequestError(error.message, { cause: error });
    throw error;
  }
}

// --- Reads --------------------------------------------------------------------------------------------------------

/** One stored aspect as the writer's batch read answers it. */
export interface StoredAspect {
  readonly value: JsonObject;
  readonly systemMetadata?: JsonObject;
  readonly created?: { readonly time: number; readonly actor: string };
}

/** The stored aspects of an entity, by name, in the order the writer answered them (key aspect first). */
export type StoredAspects = ReadonlyMap<string, StoredAspect>;

/**
 * The stored aspects of each entity of a `GET /entitiesV2?ids=…` answer. The writer answers an entity nothing was
 * stored for with its key aspect alone, derived from the URN and without system metadata: that key is no stored
 * aspect, and is left out (an entity with nothing stored answers no aspects). Throws when the answer is not that
 * shape (the caller's 502).
 */
export function storedAspectsOf(answer: unknown): Map<string, StoredAspects> {
  const results = isPlainObject(answer) ? answer['results'] : undefined;
  if (!isPlainObject(results)) throw new Error('the batch read answered without results');
  const entities = new Map<string, StoredAspects>();
  for (const [id, entity] of Object.entries(results)) {
    const aspects = isPlainObject(entity) ? entity['aspects'] : undefined;
    if (!isPlainObject(aspects)) throw new Error(`the batch read answered ${id} without aspects`);
    const stored = new Map<string, StoredAspect>();
    for (const [name, enveloped] of Object.entries(aspects)) {
      if (!isPlainObject(enveloped) || !isPlainObject(enveloped['value'])) {
        throw new Error(`the batch read answered aspect ${name} of ${id} without a value`);
      }
      const systemMetadata = enveloped['systemMetadata'];
      if (!isPlainObject(systemMetadata)) continue;
      const created = enveloped['created'];
      stored.set(name, {
        value: enveloped['value'],
        systemMetadata,
        ...(isPlainObject(created) && typeof created['time'] === 'number' && typeof created['actor'] === 'string'
          ? { created: { time: created['time'], actor: created['actor'] } }
          : {}),
      });
    }
    entities.set(id, stored);
  }
  return entities;
}

/** An aspect as v3 answers it: `{value}`, with `systemMetadata` and `auditStamp` when asked for. */
export function v3Aspect(aspect: StoredAspect, withSystemMetadata: boolean): Record<string, unknown> {
  if (!withSystemMetadata) return { value: aspect.value };
  return {
    value: aspect.value,
    ...(aspect.systemMetadata === undefined ? {} : { systemMetadata: aspect.systemMetadata }),
    ...(aspect.created === undefined ? {} : { auditStamp: aspect.created }),
  };
}

/** An entity as v3 answers it: `{urn, <aspectName>: {value, systemMetadata?}}`. */
export function v3Entity(
  urn: string,
  aspects: Iterable<readonly [string, StoredAspect]>,
  withSystemMetadata: boolean,
): Record<string, unknown> {
  const entity: Record<string, unknown> = { urn };
  for (const [name, aspect] of aspects) entity[name] = v3Aspect(aspect, withSystemMetadata);
  return entity;
}

/** An entity as v2 answers it: `{urn, aspects: {<aspectName>: {value, systemMetadata?}}}`. */
export function v2Entity(
  urn: string,
  aspects: Iterable<readonly [string, StoredAspect]>,
  withSystemMetadata: boolean,
): Record<string, unknown> {
  const byName: Record<string, unknown> = {};
  for (const [name, aspect] of aspects) {
    byName[name] =
      withSystemMetadata && aspect.systemMetadata !== undefined
        ? { value: aspect.value, systemMetadata: aspect.systemMetadata }
        : { value: aspect.value };
  }
  return { urn, aspects: byName };
}

/**
 * The aspects of `stored` a read asked for, in the registry's order: the named ones, or every one when none is named.
 */
export function selectAspects(
  entity: EntitySpec,
  stored: StoredAspects,
  requested: readonly AspectSpec[] | undefined,
): [string, StoredAspect][] {
  const wanted = requested === undefined || requested.length === 0 ? undefined : new Set(requested.map((a) => a.name));
  const selected: [string, StoredAspect][] = [];
  for (const spec of entity.aspects) {
    const aspect = stored.get(spec.name);
    if (aspect !== undefined && (wanted === undefined || wanted.has(spec.name))) selected.push([spec.name, aspect]);
  }
  return selected;
}

/**
 * The version a read of `batchGet` asks for an aspect, from its `If-Version-Match` header: 0 (the latest) when there
 * is none. A 400 when it is not an integer.
 */
export function requestedVersion(headers: unknown, where: string): number {
  if (headers === undefined || headers === null) return 0;
  if (!isPlainObject(headers)) throw new BadRequestError(`${where}.headers must be an object of strings`);
  const text = Object.entries(headers).find(([name]) => name.toLowerCase() === IF_VERSION_MATCH.toLowerCase())?.[1];
  if (text === undefined) return 0;
  if (typeof text !== 'string' || !/^-?\d{1,15}$/.test(text.trim())) {
    throw new BadRequestError(`${where}.headers.${IF_VERSION_MATCH} must be a version number, got ${describe(text)}`);
  }
  return Number(text.trim());
}

/** One entity of a `batchGet` body, with the aspects it names and the version of each (0: latest). */
export interface BatchGetItem {
  readonly urn: string;
  /** Empty: every aspect. */
  readonly aspects: readonly { readonly spec: AspectSpec; readonly version: number }[];
}

/**
 * Reads a `batchGet` body: `[{urn, <aspectName>: {headers?: {If-Version-Match}}}]`. Every URN must be of the path's
 * entity; an entity named twice is read once, its aspects merged. Throws a 400 naming every fault.
 */
export function batchGetItems(entity: EntitySpec, body: unknown): BatchGetItem[] {
  if (!Array.isArray(body)) {
    throw new BadRequestError(`Request body must be a JSON array of {urn, <aspectName>: {}}, got ${describe(body)}`);
  }
  const problems: string[] = [];
  const items = new Map<string, Map<string, { spec: AspectSpec; version: number }>>();
  body.forEach((item: unknown, index) => {
    try {
      if (!isPlainObject(item))
        throw new BadRequestError(`must be an object {urn, <aspectName>: {}}, got ${describe(item)}`);
      const text = item['urn'];
      if (typeof text !== 'string' || text === '') throw new BadRequestError('Missing `urn` field');
      const urn = entityUrnOf(entity, text);
      const aspects = items.get(urn) ?? new Map<string, { spec: AspectSpec; version: number }>();
      items.set(urn, aspects);
      for (const [name, request] of Object.entries(item)) {
        if (name === 'urn') continue;
        const spec = aspectNamed(entity, name);
        const headers = isPlainObject(request) ? request['headers'] : undefined;
        aspects.set(spec.name, { spec, version: requestedVersion(headers, name) });
      }
    } catch (error) {
      if (!(error instanceof BadRequestError)) throw error;
      problems.push(`[${index}]: ${error.message}`);
    }
  });
  if (problems.length > 0) throw new BadRequestError(problems.slice(0, 20).join('\n'));
  return [...items].map(([urn, aspects]) => ({ urn, aspects: [...aspects.values()] }));
}

// --- Scrolling ----------------------------------------------------------------------------------------------------

/**
 * A search filter (`{or: [{and: [criteria]}]}`, or the older `{criteria}`) that also keeps soft-deleted entities: the
 * search hides them unless a criterion names `removed`, so each group gains one that every document matches. A
 * filter of another shape is returned as it is, for the search to refuse.
 */
export function withSoftDeleted(filter: unknown): unknown {
  const everyDocument = { field: 'removed', condition: 'EXISTS', values: [] };
  if (filter === undefined || filter === null) return { or: [{ and: [everyDocument] }] };
  if (!isPlainObject(filter)) return filter;
  const or = filter['or'];
  const criteria = filter['criteria'];
  const groups = Array.isArray(or) ? or : [];
  const hasCriteria = Array.isArray(criteria) && criteria.length > 0;
  if (groups.length === 0 && !hasCriteria) return { or: [{ and: [everyDocument] }] };
  return {
    ...filter,
    ...(Array.isArray(or)
      ? {
          or: or.map((group: unknown) =>
            isPlainObject(group) && Array.isArray(group['and'])
              ? { ...group, and: [...(group['and'] as unknown[]), everyDocument] }
              : group,
          ),
        }
      : {}),
    ...(hasCriteria ? { criteria: [...(criteria as unknown[]), everyDocument] } : {}),
  };
}

/** Sorting a scroll can honour: by URN, ascending (the order of a search's ties, and of `*`). */
export function checkScrollSort(fields: readonly string[], order: string): void {
  const other = fields.find((field) => field !== 'urn');
  if (other !== undefined) {
    throw new BadRequestError(`Sorting by ${other} is not supported: a scroll is sorted by urn`);
  }
  if (order !== 'ASCENDING') {
    throw new BadRequestError(`Sort order ${order} is not supported: a scroll is sorted by urn, ASCENDING`);
  }
}

// --- Entity registry ----------------------------------------------------------------------------------------------

/** DataHub's `AspectSpecDto` of an aspect: its annotation (name, timeseries, schema version when it has one). */
export function aspectSpecDto(aspect: AspectSpec): Record<string, unknown> {
  const annotation = aspect.schema.annotations['Aspect'];
  const fields = isPlainObject(annotation) ? annotation : {};
  const schemaVersion = fields['schemaVersion'];
  const renderSpec = fields['renderSpec'];
  return {
    aspectAnnotation: {
      name: aspect.name,
      timeseries: aspect.kind === 'timeseries',
      autoRender: fields['autoRender'] === true,
      ...(isPlainObject(renderSpec) ? { renderSpec } : {}),
      ...(typeof schemaVersion === 'number' ? { schemaVersion } : {}),
    },
  };
}

/** DataHub's `EntitySpecDto` of an entity: its name, key aspect and aspects. */
export function entitySpecDto(entity: EntitySpec): Record<string, unknown> {
  const aspects = entity.aspects.map((aspect) => [aspect.name, aspectSpecDto(aspect)] as const);
  return {
    name: entity.name,
    entityAnnotation: { name: entity.name, keyAspect: entity.keyAspect.name },
    keyAspectName: entity.keyAspect.name,
    keyAspectSpec: aspectSpecDto(entity.keyAspect),
    aspectSpecs: aspects.map(([, dto]) => dto),
    aspectSpecMap: Object.fromEntries(aspects),
    ...(entity.snapshotRecordName === undefined ? {} : { snapshotSchemaName: entity.snapshotRecordName }),
  };
}

/**
 * DataHub's paginated `{elements, start, count, total}` of the entity specs, sorted by entity name. A start past the
 * end answers an empty page (DataHub fails such a request).
 */
export function entitySpecsPage(registry: EntityRegistry, start: number, count: number): Record<string, unknown> {
  const entities = [...registry.entities()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const page = entities.slice(start, start + count);
  return { elements: page.map(entitySpecDto), start, count: page.length, total: entities.length };
}

// ------------------------------------------------------------------------------------------------------------------

function simpleName(fullName: string): string {
  return fullName.slice(fullName.lastIndexOf('.') + 1);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}…` : value);
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`;
  return typeof value;
}
