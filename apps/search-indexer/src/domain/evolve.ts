import {
  EVERY,
  parseUrn,
  relationshipFields,
  searchableFields,
  valuesAt,
  type EntitySpec,
  type RelationshipFieldSpec,
  type SearchableFieldSpec,
} from '@strata/model';
import type {
  DocumentWrite,
  FieldContribution,
  FieldValue,
  GraphChange,
  GraphEdge,
  HeldEdge,
  SearchDocument,
} from '@strata/indices';

/**
 * How one versioned change log changes the search document and the graph edges of its entity. Pure: the search hook
 * reads the current documents, folds a batch's changes through {@link evolveDocument} in log order and writes the
 * result; the graph hook turns each change into {@link GraphChange}s and applies them in order.
 */

/** A versioned change log, decoded. */
export interface AspectChange {
  readonly entity: EntitySpec;
  readonly urn: string;
  readonly aspectName: string;
  /** DataHub's change types: `UPSERT`, `CREATE`, `RESTATE`, `PATCH`… put the value; `DELETE` removes it. */
  readonly changeType: string;
  /** The aspect value after the change (absent for DELETE). */
  readonly value: unknown;
  /** The change's audit stamp, for the edges it creates. */
  readonly createdAt?: number;
  readonly createdBy?: string;
}

/**
 * The entity's search document after a change (undefined: none yet; null: deleted earlier in the batch).
 * - DELETE of the key aspect deletes the entity: no document (null).
 * - DELETE of another aspect removes that aspect's contribution.
 * - Any other change replaces the aspect's contribution ({@link contributionOf}).
 * - Every change but the entity's deletion moves `lastChangedAt` to the change's stamp (`createdAt`: when Strata stored
 *   the write) when that is later: a change replayed late, or out of order, never moves it back.
 */
export function evolveDocument(
  current: SearchDocument | null | undefined,
  change: AspectChange,
): SearchDocument | null {
  const isDelete = change.changeType === 'DELETE';
  if (isDelete && change.aspectName === change.entity.keyAspect.name) return null;
  const others = Object.entries(current?.aspects ?? {}).filter(([name]) => name !== change.aspectName);
  const aspects: Record<string, FieldContribution> = Object.fromEntries(
    isDelete
      ? others
      : [...others, [change.aspectName, contributionOf(change.entity, change.aspectName, change.value)]],
  );
  const lastChangedAt = laterOf(current?.lastChangedAt, change.createdAt);
  return {
    urn: change.urn,
    entityType: change.entity.name,
    aspects,
    ...(lastChangedAt === undefined ? {} : { lastChangedAt }),
  };
}

function laterOf(known: number | undefined, stamp: number | undefined): number | undefined {
  const valid = stamp !== undefined && Number.isFinite(stamp) && stamp > 0 ? stamp : undefined;
  if (known === undefined) return valid;
  return valid === undefined ? known : Math.max(known, valid);
}

/**
 * What a change does to the graph, as the graph changes to apply in order:
 * - DELETE of the key aspect removes the edges the entity's aspects implied: those from it, and those it holds
 *   (`removeEntity`).
 * - Any other change replaces the aspect's edges from the entity with those the value implies ({@link edgesOf}; none
 *   for a DELETE). An aspect carrying column-level lineage ({@link COLUMN_LINEAGE_ASPECTS}) also replaces the edges
 *   it holds between schema fields with those its `fineGrainedLineages` imply ({@link columnLineageEdgesOf}).
 *
 * The column-level edges do not start at the entity holding the aspect but at each downstream field, so they are
 * written as held edges, kept by (holder, aspect) in the graph (`replaceHeldEdges`): each write replaces all of them
 * at once, whichever fields the previous value listed — the change log's previous value is not needed, which a rebuild
 * (replaying the latest values only) or a lost previous value would not give anyway — and the same field named by two
 * holders (a dataset's lineage and a job's) keeps the edges of each apart. Deleting the aspect empties them; deleting
 * the holder removes them.
 */
export function graphChangesOf(change: AspectChange): GraphChange[] {
  const isDelete = change.changeType === 'DELETE';
  if (isDelete && change.aspectName === change.entity.keyAspect.name)
    return [{ kind: 'removeEntity', urn: change.urn }];
  const own: GraphChange = {
    kind: 'replaceEdges',
    source: change.urn,
    aspect: change.aspectName,
    edges: isDelete ? [] : edgesOf(change.entity, change.aspectName, change.value, change),
  };
  if (!COLUMN_LINEAGE_ASPECTS.has(change.aspectName)) return [own];
  return [
    own,
    {
      kind: 'replaceHeldEdges',
      holder: change.urn,
      aspect: change.aspectName,
      edges: isDelete ? [] : columnLineageEdgesOf(change.value),
    },
  ];
}

/** The aspects whose `fineGrainedLineages` imply column-level lineage: a dataset's lineage, a data job's. */
export const COLUMN_LINEAGE_ASPECTS: ReadonlySet<string> = new Set(['upstreamLineage', 'dataJobInputOutput']);

/** DataHub's relationship between two schema fields of column-level lineage: the downstream is `DownstreamOf` the upstream. */
const DOWNSTREAM_OF = 'DownstreamOf';

/**
 * The column-level lineage edges an aspect value's `fineGrainedLineages` imply, as DataHub's indexer derives them
 * outside the `Relationship` annotations: for each entry, an edge `DownstreamOf` from each of its `downstreams` to each
 * of its `upstreams`, whatever `upstreamType` and `downstreamType` say (an upstream of type `DATASET` is a dataset
 * URN, and the edge goes to it). As in DataHub, an entry without `downstreams` or without `upstreams` ends the list:
 * the entries after it imply nothing. The edges carry no stamps or properties (DataHub's have none), so no lineage
 * time window hides them. A value that is not a URN is left out; each (downstream, upstream) pair once.
 */
export function columnLineageEdgesOf(value: unknown): HeldEdge[] {
  const lineages = isMap(value) && Array.isArray(value['fineGrainedLineages']) ? value['fineGrainedLineages'] : [];
  const edges: HeldEdge[] = [];
  const seen = new Set<string>();
  for (const lineage of lineages) {
    if (!isMap(lineage)) continue;
    const downstreams = lineage['downstreams'];
    const upstreams = lineage['upstreams'];
    if (!Array.isArray(downstreams) || !Array.isArray(upstreams)) break;
    for (const source of downstreams) {
      if (!isUrn(source)) continue;
      for (const destination of upstreams) {
        if (!isUrn(destination)) continue;
        const key = `${source}\u0000${destination}`;
        if (seen.has(key)) continue;
        seen.add(key);
        edges.push({ source, type: DOWNSTREAM_OF, destination });
      }
    }
  }
  return edges;
}

function isUrn(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    parseUrn(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * The fields an aspect value contributes to the document: for each `Searchable` annotation of the aspect, the values
 * at its path (a map's entries as `key=value`, as DataHub indexes `customProperties`), and its `hasValuesFieldName`
 * flag. Values that are neither strings, numbers nor booleans are left out.
 */
export function contributionOf(entity: EntitySpec, aspectName: string, value: unknown): FieldContribution {
  const fields: Record<string, FieldValue[]> = {};
  // Each value once per field, in first-seen order; a Set per field keeps large aspects (100,000 owners) linear.
  const seen = new Map<string, Set<FieldValue>>();
  const add = (name: string, values: readonly FieldValue[]) => {
    const list = (fields[name] ??= []);
    let known = seen.get(name);
    if (known === undefined) seen.set(name, (known = new Set(list)));
    for (const item of values) {
      if (known.has(item)) continue;
      known.add(item);
      list.push(item);
    }
  };
  for (const spec of searchableFields(entity)) {
    if (spec.aspect !== aspectName) continue;
    const values = fieldValues(spec, value);
    add(spec.fieldName, values);
    if (spec.hasValuesFieldName !== undefined) {
      const flag = fields[spec.hasValuesFieldName]?.includes(true) === true || values.length > 0;
      fields[spec.hasValuesFieldName] = [flag];
      seen.delete(spec.hasValuesFieldName);
    }
  }
  return fields;
}

function fieldValues(spec: SearchableFieldSpec, value: unknown): FieldValue[] {
  // A path ending in `*` over a map (`customProperties/*`) stands for its entries: keep the keys. (Over an array, the
  // items are what `valuesAt` of the shorter path already spreads.)
  const found =
    spec.path[spec.path.length - 1] === EVERY ? valuesAt(value, spec.path.slice(0, -1)) : valuesAt(value, spec.path);
  const values: FieldValue[] = [];
  for (const item of found) {
    if (typeof item === 'string' || typeof item === 'boolean') values.push(item);
    else if (typeof item === 'number' && Number.isFinite(item)) values.push(item);
    else if (isMap(item)) {
      for (const [key, entry] of Object.entries(item)) {
        if (typeof entry === 'string' || typeof entry === 'number' || typeof entry === 'boolean') {
          values.push(`${key}=${String(entry)}`);
        }
      }
    }
  }
  return values;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The edges an aspect value implies: for each `Relationship` annotation of the aspect, one edge to every URN at its
 * path whose entity type the annotation allows. Each (type, destination) once, the first occurrence kept.
 *
 * An edge's stamps are its own when the annotation says where they are and the value there is set (DataHub's
 * `createdOn`, `createdActor`, `updatedOn`, `updatedActor`: the same array item as the destination, e.g. an
 * upstream's `created` and `auditStamp`; a time of 0 counts as none); otherwise `createdAt`/`createdBy` are the
 * change's stamp and there is no `updatedAt` (nor `updatedBy`). An edge whose properties say `source: UI` is `manual`.
 */
export function edgesOf(
  entity: EntitySpec,
  aspectName: string,
  value: unknown,
  stamp: { readonly createdAt?: number; readonly createdBy?: string } = {},
): GraphEdge[] {
  const edges: GraphEdge[] = [];
  const seen = new Set<string>();
  for (const spec of relationshipFields(entity)) {
    if (spec.aspect !== aspectName) continue;
    for (const { destination, own } of destinationsOf(spec, value)) {
      if (typeof destination !== 'string' || !allowedDestination(destination, spec.entityTypes)) continue;
      const key = `${spec.name}\u0000${destination}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const createdAt = own.createdOn ?? stamp.createdAt;
      const createdBy = own.createdActor ?? stamp.createdBy;
      edges.push({
        type: spec.name,
        destination,
        ...(createdAt === undefined ? {} : { createdAt }),
        ...(createdBy === undefined ? {} : { createdBy }),
        ...(own.updatedOn === undefined ? {} : { updatedAt: own.updatedOn }),
        ...(own.updatedOn === undefined || own.updatedActor === undefined ? {} : { updatedBy: own.updatedActor }),
        ...(own.manual ? { manual: true } : {}),
      });
    }
  }
  return edges;
}

interface OwnStamps {
  readonly createdOn?: number;
  readonly createdActor?: string;
  readonly updatedOn?: number;
  readonly updatedActor?: string;
  readonly manual: boolean;
}

/**
 * The values at an annotation's path, each with the stamps found beside it: the value is read item by item at the
 * deepest array the path shares with the stamps' paths (`upstreams/*`), and each stamp is the one value its path
 * gives in that item (none when it gives several).
 */
function destinationsOf(
  spec: RelationshipFieldSpec,
  value: unknown,
): { readonly destination: unknown; readonly own: OwnStamps }[] {
  const stamps = spec.stamps;
  if (stamps === undefined) return valuesAt(value, spec.path).map((destination) => ({ destination, own: NO_STAMPS }));
  const paths = Object.values(stamps).filter((path): path is readonly string[] => path !== undefined);
  let shared = 0;
  for (let index = 0; index < spec.path.length; index += 1) {
    const segment = spec.path[index];
    if (!paths.every((path) => path[index] === segment)) break;
    if (segment === EVERY) shared = index + 1;
  }
  const items = shared === 0 ? [value] : valuesAt(value, spec.path.slice(0, shared));
  return items.flatMap((item) => {
    const single = (path: readonly string[] | undefined): unknown => {
      if (path === undefined) return undefined;
      const found = valuesAt(item, path.slice(shared));
      return found.length === 1 ? found[0] : undefined;
    };
    const time = (path: readonly string[] | undefined): number | undefined => {
      const found = single(path);
      return typeof found === 'number' && Number.isFinite(found) && found !== 0 ? found : undefined;
    };
    const actor = (path: readonly string[] | undefined): string | undefined => {
      const found = single(path);
      return typeof found === 'string' && found !== '' ? found : undefined;
    };
    const properties = single(stamps.properties);
    const createdOn = time(stamps.createdOn);
    const createdActor = actor(stamps.createdActor);
    const updatedOn = time(stamps.updatedOn);
    const updatedActor = actor(stamps.updatedActor);
    const own: OwnStamps = {
      ...(createdOn === undefined ? {} : { createdOn }),
      ...(createdActor === undefined ? {} : { createdActor }),
      ...(updatedOn === undefined ? {} : { updatedOn }),
      ...(updatedActor === undefined ? {} : { updatedActor }),
      manual: isMap(properties) && properties['source'] === 'UI',
    };
    return valuesAt(item, spec.path.slice(shared)).map((destination) => ({ destination, own }));
  });
}

const NO_STAMPS: OwnStamps = { manual: false };

function allowedDestination(value: string, entityTypes: readonly string[]): boolean {
  try {
    return entityTypes.includes(parseUrn(value).entityType);
  } catch {
    return false;
  }
}

/** The write that leaves the index holding `document` (null: the entity is gone). */
export function documentWrite(urn: string, document: SearchDocument | null): DocumentWrite {
  return document === null ? { remove: urn } : { put: document };
}
