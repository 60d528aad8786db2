/**
 * The `schemaField` entities of a dataset, kept as DataHub's schema-field side effect keeps them (there behind
 * `MCP_SIDE_EFFECTS_SCHEMA_FIELD_ENABLED`; always on here): one entity per field of the dataset's `schemaMetadata`,
 * `urn:li:schemaField:(<dataset urn>,<field path>)`, decided with the write that causes it and committed with it.
 *
 * What a dataset's change does to its fields (each field entity holds `schemaFieldKey`, `status` and
 * `schemaFieldAliases`):
 * - `schemaMetadata` written: a field without an entity gets its key, `status` (removed as the dataset is) and its
 *   aliases; an existing field's `status` follows the dataset's, its aliases are rewritten when they changed. A field of
 *   the previous schema that is no longer in it gets `status.removed = true`; one that comes back is restored.
 * - `status` written: every field of the current schema follows it (`removed` true or false), created if missing;
 *   fields dropped from the schema stay removed.
 * - `schemaMetadata` deleted: every `schemaField` entity of the dataset is deleted (DataHub deletes those of the
 *   previous schema's fields, leaving the ones dropped before it soft-deleted: without a schema, there are no fields).
 * - `status` deleted: the fields of the current schema lose their `status` (and so are not removed).
 * - the dataset deleted (its key): every `schemaField` entity of it is deleted, dropped fields included.
 *
 * A write that changes nothing changes no field: only values that differ are written, each as a new version with its
 * change log, stamped with the triggering write's system metadata (run id included) and audit stamp. Pure: the caller
 * reads what {@link schemaFieldReads} names, then asks {@link schemaFieldSideEffects}.
 */
import { parseUrn, type EntityRegistry, type JsonObject } from '@strata/model';
import type { AspectKey, AspectMutation, StoredAspect } from '@strata/store';
import type { ChangeLogDraft } from './decide';
import { jsonEqual } from './json-equal';

/** The latest value of any aspect of any entity, as the batch being decided knows it. */
export type LatestAspect = (urn: string, aspect: string) => StoredAspect | undefined;

/** What the side effects of a decision need to know before they are decided. */
export interface SchemaFieldReads {
  /** Latest values to know (the dataset's `schemaMetadata` and `status`, its fields' aspects). */
  readonly keys: readonly AspectKey[];
  /** Datasets every `schemaField` entity of which must be listed (`fieldsOf`): those deleted, or their schema. */
  readonly everyFieldOf: readonly string[];
}

/** What the side effects read: latest values, and the listed field entities of a deleted dataset. */
export interface SchemaFieldState {
  readonly latest: LatestAspect;
  /** The URNs of every `schemaField` entity of a dataset named by {@link SchemaFieldReads.everyFieldOf}. */
  readonly fieldsOf: (datasetUrn: string) => readonly string[];
}

/** The writes the side effects add to a decision: applied in the same commit, with a change log each. */
export interface SchemaFieldEffects {
  readonly mutations: readonly AspectMutation[];
  readonly changeLogs: readonly ChangeLogDraft[];
}

const SCHEMA_FIELD = 'schemaField';
const DATASET = 'dataset';
const SCHEMA_METADATA = 'schemaMetadata';
const STATUS = 'status';
const ALIASES = 'schemaFieldAliases';
const FIELD_PATH_V2 = '[version=2.0]';

/** The aspects of a `schemaField` entity the side effects write, besides its key. */
const FIELD_ASPECTS = [STATUS, ALIASES] as const;

/**
 * The URN of a dataset's field, as DataHub makes it (`SchemaFieldUtils.generateSchemaFieldUrn`): the field path with
 * `(`, `)` and `,` percent-encoded, so that the tuple parses. Undefined when no URN can be made of it (an empty path).
 */
export function schemaFieldUrn(datasetUrn: string, fieldPath: string): string | undefined {
  const encoded = fieldPath.replaceAll('(', '%28').replaceAll(')', '%29').replaceAll(',', '%2C');
  const urn = `urn:li:${SCHEMA_FIELD}:(${datasetUrn},${encoded})`;
  try {
    return parseUrn(urn).parts.length === 2 ? urn : undefined;
  } catch {
    return undefined;
  }
}

/** What every `schemaField` URN of a dataset starts with. */
export function schemaFieldUrnPrefix(datasetUrn: string): string {
  return `urn:li:${SCHEMA_FIELD}:(${datasetUrn},`;
}

/**
 * Whether a stored row is one the side effects keep (a dataset field's key, `status` or aliases). A rollback leaves
 * those to the side effects of the dataset's own reverts, which bring its fields along.
 */
export function isSchemaFieldSideEffectRow(urn: string, aspect: string): boolean {
  return (
    urn.startsWith(`urn:li:${SCHEMA_FIELD}:(urn:li:${DATASET}:`) &&
    (aspect === 'schemaFieldKey' || (FIELD_ASPECTS as readonly string[]).includes(aspect))
  );
}

/** A field of a schema: its path and its entity's URN. */
interface Field {
  readonly fieldPath: string;
  readonly urn: string;
}

/** The fields of a `schemaMetadata` value that can be entities, each once, in schema order. */
function fieldsOfSchema(datasetUrn: string, schema: JsonObject | undefined): Field[] {
  const fields = schema?.['fields'];
  if (!Array.isArray(fields)) return [];
  const seen = new Map<string, Field>();
  for (const field of fields as unknown[]) {
    const fieldPath = (field as JsonObject | null)?.['fieldPath'];
    if (typeof fieldPath !== 'string' || seen.has(fieldPath)) continue;
    const urn = schemaFieldUrn(datasetUrn, fieldPath);
    if (urn !== undefined) seen.set(fieldPath, { fieldPath, urn });
  }
  return [...seen.values()];
}

/**
 * A v2 field path as a v1 one (DataHub's field path spec, backward compatibility): `[version=2.0].[type=A].a.[type=
 * string].f` → `a.f`; a v1 path is its own.
 */
function downgradeFieldPath(fieldPath: string): string {
  if (!fieldPath.startsWith(FIELD_PATH_V2)) return fieldPath;
  return fieldPath
    .slice(FIELD_PATH_V2.length)
    .split('.')
    .filter((part) => part !== '' && !(part.startsWith('[') && part.endsWith(']')))
    .join('.');
}

/**
 * Each field's aliases (DataHub's `SchemaFieldUtils.getSchemaFieldAliases`): the URNs of every field of the schema with
 * the same v1 path (itself included), and the URN of that v1 path. Sorted, so that an unchanged schema gives the same
 * value.
 */
export function schemaFieldAliasesOf(datasetUrn: string, fields: readonly Field[]): Map<string, string[]> {
  const byV1Path = new Map<string, string[]>();
  for (const field of fields) {
    const v1 = downgradeFieldPath(field.fieldPath);
    const group = byV1Path.get(v1);
    if (group === undefined) byV1Path.set(v1, [field.urn]);
    else group.push(field.urn);
  }
  const aliases = new Map<string, string[]>();
  for (const field of fields) {
    const v1 = downgradeFieldPath(field.fieldPath);
    const v1Urn = schemaFieldUrn(datasetUrn, v1);
    const all = new Set(byV1Path.get(v1));
    if (v1Urn !== undefined) all.add(v1Urn);
    aliases.set(field.urn, [...all].sort());
  }
  return aliases;
}

/** A dataset change the side effects follow. */
type Trigger =
  | { readonly kind: 'schema'; readonly dataset: string; readonly log: ChangeLogDraft }
  | { readonly kind: 'status'; readonly dataset: string; readonly log: ChangeLogDraft }
  | { readonly kind: 'schemaDeleted'; readonly dataset: string; readonly log: ChangeLogDraft }
  | { readonly kind: 'statusDeleted'; readonly dataset: string; readonly log: ChangeLogDraft }
  | { readonly kind: 'datasetDeleted'; readonly dataset: string; readonly log: ChangeLogDraft };

/** The aspect names the side effects need from the registry; undefined when it has no `schemaField` entity. */
interface Names {
  readonly datasetKey: string;
  readonly fieldKey: string;
}

function namesOf(registry: EntityRegistry): Names | undefined {
  const dataset = registry.entity(DATASET);
  const field = registry.entity(SCHEMA_FIELD);
  if (dataset === undefined || field === undefined) return undefined;
  if (FIELD_ASPECTS.some((aspect) => field.aspect(aspect) === undefined)) return undefined;
  if (dataset.aspect(SCHEMA_METADATA) === undefined || dataset.aspect(STATUS) === undefined) return undefined;
  return { datasetKey: dataset.keyAspect.name, fieldKey: field.keyAspect.name };
}

function triggersOf(changeLogs: readonly ChangeLogDraft[], names: Names): Trigger[] {
  const triggers: Trigger[] = [];
  for (const log of changeLogs) {
    if (log.timeseries || log.entityType !== DATASET || log.changeType === 'RESTATE') continue;
    const upsert = log.changeType === 'UPSERT';
    const dataset = log.entityUrn;
    if (log.aspectName === SCHEMA_METADATA) {
      triggers.push({ kind: upsert ? 'schema' : 'schemaDeleted', dataset, log });
    } else if (log.aspectName === STATUS) {
      triggers.push({ kind: upsert ? 'status' : 'statusDeleted', dataset, log });
    } else if (log.aspectName === names.datasetKey && !upsert) {
      triggers.push({ kind: 'datasetDeleted', dataset, log });
    }
  }
  return triggers;
}

/** Whether a decision's change logs have side effects on `schemaField` entities (a cheap test, before any read). */
export function hasSchemaFieldSideEffects(changeLogs: readonly ChangeLogDraft[], registry: EntityRegistry): boolean {
  const names = namesOf(registry);
  return names !== undefined && triggersOf(changeLogs, names).length > 0;
}

/**
 * The dataset's aspect as the decision leaves it: its own change log of that aspect when it has one, else the latest
 * stored value.
 */
function datasetAspect(
  trigger: Trigger,
  changeLogs: readonly ChangeLogDraft[],
  latest: LatestAspect,
  aspect: string,
): JsonObject | undefined {
  for (let index = changeLogs.length - 1; index >= 0; index--) {
    const log = changeLogs[index];
    if (log === undefined || log.timeseries || log.entityUrn !== trigger.dataset || log.aspectName !== aspect) continue;
    return log.changeType === 'DELETE' ? undefined : log.aspect;
  }
  return latest(trigger.dataset, aspect)?.value;
}

/**
 * What {@link schemaFieldSideEffects} reads for these change logs. Depends on the dataset's stored `schemaMetadata`
 * (whose fields a `status` change reaches), so the caller reads, asks again, and stops once everything named is known.
 */
export function schemaFieldReads(
  changeLogs: readonly ChangeLogDraft[],
  latest: LatestAspect,
  registry: EntityRegistry,
): SchemaFieldReads {
  const names = namesOf(registry);
  if (names === undefined) return { keys: [], everyFieldOf: [] };
  const keys: AspectKey[] = [];
  const everyFieldOf: string[] = [];
  const fieldKeys = (fields: readonly Field[], aspects: readonly string[]) => {
    for (const field of fields) for (const aspect of aspects) keys.push({ urn: field.urn, aspect });
  };
  const all = [names.fieldKey, ...FIELD_ASPECTS];
  for (const trigger of triggersOf(changeLogs, names)) {
    const { dataset, log } = trigger;
    keys.push({ urn: dataset, aspect: SCHEMA_METADATA }, { urn: dataset, aspect: STATUS });
    const current = fieldsOfSchema(dataset, datasetAspect(trigger, changeLogs, latest, SCHEMA_METADATA));
    switch (trigger.kind) {
      case 'schema': {
        fieldKeys(current, all);
        fieldKeys(fieldsOfSchema(dataset, log.previousAspectValue), [names.fieldKey, STATUS]);
        break;
      }
      case 'status':
        fieldKeys(current, all);
        break;
      case 'schemaDeleted':
      case 'datasetDeleted':
        everyFieldOf.push(dataset);
        break;
      case 'statusDeleted':
        fieldKeys(current, [names.fieldKey, STATUS]);
        break;
    }
  }
  return { keys, everyFieldOf };
}

/**
 * The writes to `schemaField` entities that follow from a decision's change logs (see the module's rules), given what
 * {@link schemaFieldReads} named. None when the registry has no `schemaField` entity.
 */
export function schemaFieldSideEffects(
  changeLogs: readonly ChangeLogDraft[],
  state: SchemaFieldState,
  registry: EntityRegistry,
): SchemaFieldEffects {
  const names = namesOf(registry);
  if (names === undefined) return { mutations: [], changeLogs: [] };
  const writes = new FieldWrites(state.latest, names);
  for (const trigger of triggersOf(changeLogs, names)) {
    const { dataset, log } = trigger;
    const schema = datasetAspect(trigger, changeLogs, state.latest, SCHEMA_METADATA);
    const removed = datasetAspect(trigger, changeLogs, state.latest, STATUS)?.['removed'] === true;
    switch (trigger.kind) {
      case 'schema': {
        const fields = fieldsOfSchema(dataset, schema);
        writes.materialize(trigger, fields, removed);
        const kept = new Set(fields.map((field) => field.urn));
        for (const dropped of fieldsOfSchema(dataset, log.previousAspectValue)) {
          if (!kept.has(dropped.urn)) writes.setRemoved(trigger, dropped.urn, true);
        }
        break;
      }
      case 'status':
        writes.materialize(trigger, fieldsOfSchema(dataset, schema), removed);
        break;
      case 'schemaDeleted':
      case 'datasetDeleted':
        for (const urn of state.fieldsOf(dataset)) writes.deleteEntity(trigger, urn);
        break;
      case 'statusDeleted':
        for (const field of fieldsOfSchema(dataset, schema)) writes.deleteAspect(trigger, field.urn, STATUS);
        break;
    }
  }
  return { mutations: writes.mutations, changeLogs: writes.changeLogs };
}

/**
 * Accumulates the side effects' writes, each seen by the later ones (two triggers of one decision on one field agree).
 */
class FieldWrites {
  readonly mutations: AspectMutation[] = [];
  readonly changeLogs: ChangeLogDraft[] = [];
  /** What these writes changed, over the batch's latest values. */
  private readonly written = new Map<string, StoredAspect | undefined>();
  private readonly deleted = new Set<string>();

  constructor(
    private readonly latest: LatestAspect,
    private readonly names: Names,
  ) {}

  /** Makes each field an entity (key, status, aliases) or brings its status and aliases up to date. */
  materialize(trigger: Trigger, fields: readonly Field[], removed: boolean): void {
    const aliases = schemaFieldAliasesOf(trigger.dataset, fields);
    for (const field of fields) {
      const fieldAliases = aliases.get(field.urn) ?? [field.urn];
      if (this.current(field.urn, this.names.fieldKey) === undefined) {
        this.put(trigger, field.urn, this.names.fieldKey, { parent: trigger.dataset, fieldPath: field.fieldPath });
        this.put(trigger, field.urn, STATUS, { removed });
        this.put(trigger, field.urn, ALIASES, { aliases: fieldAliases });
        continue;
      }
      this.setRemoved(trigger, field.urn, removed);
      const stored = this.current(field.urn, ALIASES)?.value['aliases'];
      if (!sameMembers(stored, fieldAliases)) this.put(trigger, field.urn, ALIASES, { aliases: fieldAliases });
    }
  }

  /** Sets an existing field's `status.removed` (absent reads as false), when it differs. */
  setRemoved(trigger: Trigger, urn: string, removed: boolean): void {
    if (this.current(urn, this.names.fieldKey) === undefined) return;
    if ((this.current(urn, STATUS)?.value['removed'] === true) === removed) return;
    this.put(trigger, urn, STATUS, { removed });
  }

  deleteEntity(trigger: Trigger, urn: string): void {
    const key = this.current(urn, this.names.fieldKey);
    if (key === undefined) return;
    this.mutations.push({ kind: 'deleteEntity', urn });
    this.log(trigger, urn, this.names.fieldKey, 'DELETE', undefined, this.stamp(trigger), key);
    this.deleted.add(urn);
    for (const name of [...this.written.keys()]) if (name.startsWith(`${urn}\u0000`)) this.written.delete(name);
  }

  deleteAspect(trigger: Trigger, urn: string, aspect: string): void {
    const existing = this.current(urn, aspect);
    if (existing === undefined) return;
    this.mutations.push({ kind: 'deleteAspect', urn, aspect, expectedVersion: existing.version });
    this.log(trigger, urn, aspect, 'DELETE', undefined, this.stamp(trigger), existing);
    this.written.set(keyOf(urn, aspect), undefined);
  }

  private put(trigger: Trigger, urn: string, aspect: string, value: JsonObject): void {
    const existing = this.current(urn, aspect);
    if (existing !== undefined && jsonEqual(existing.value, value)) return;
    const version = (existing?.version ?? 0) + 1;
    const systemMetadata = { ...this.stamp(trigger), version: String(version) };
    const row = {
      version,
      value,
      systemMetadata,
      createdOn: trigger.log.created.time,
      createdBy: trigger.log.created.actor,
    };
    this.mutations.push({ kind: 'put', urn, aspect, expectedVersion: existing?.version ?? 0, row });
    this.log(trigger, urn, aspect, 'UPSERT', value, systemMetadata, existing);
    this.written.set(keyOf(urn, aspect), { urn, aspect, ...row });
  }

  private current(urn: string, aspect: string): StoredAspect | undefined {
    const key = keyOf(urn, aspect);
    if (this.written.has(key)) return this.written.get(key);
    return this.deleted.has(urn) ? undefined : this.latest(urn, aspect);
  }

  /** The triggering write's system metadata (its run id, its observation time), without its aspect's version. */
  private stamp(trigger: Trigger): JsonObject {
    const { version: _version, ...stamp } = trigger.log.systemMetadata ?? {};
    return stamp;
  }

  private log(
    trigger: Trigger,
    urn: string,
    aspectName: string,
    changeType: 'UPSERT' | 'DELETE',
    aspect: JsonObject | undefined,
    systemMetadata: JsonObject,
    previous: StoredAspect | undefined,
  ): void {
    this.changeLogs.push({
      timeseries: false,
      entityType: SCHEMA_FIELD,
      entityUrn: urn,
      changeType,
      aspectName,
      aspect,
      systemMetadata,
      previousAspectValue: previous?.value,
      previousSystemMetadata: previous?.systemMetadata,
      created: trigger.log.created,
      headers: {},
    });
  }
}

/** Whether a stored alias list holds exactly these URNs, in any order. */
function sameMembers(stored: unknown, aliases: readonly string[]): boolean {
  if (!Array.isArray(stored) || stored.length !== aliases.length) return false;
  const wanted = new Set(aliases);
  return stored.every((alias) => typeof alias === 'string' && wanted.has(alias));
}

function keyOf(urn: string, aspect: string): string {
  return `${urn}\u0000${aspect}`;
}
