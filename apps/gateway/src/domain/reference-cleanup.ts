import {
  ConflictError,
  PreconditionFailedError,
  parseUrn,
  relationshipFields,
  removeReferences,
  validateProposal,
  type EntityRegistry,
  type JsonObject,
  type ValidatedProposal,
} from '@strata/model';

/** An edge into the URN being cleaned: its relationship name and the entity whose aspect holds it. */
export interface IncomingEdge {
  readonly type: string;
  readonly source: string;
}

/** The latest value of an aspect, with DataHub's version of it (the `If-Version-Match` an edit of it sends). */
export interface LatestAspect {
  readonly value: JsonObject;
  readonly version: string | undefined;
}

/** What reference cleanup reads, from the services owning it: the graph's edges and the primary store's values. */
export interface ReferenceReads {
  /** A page of the edges into `urn`, every type, in the graph's stable order; `total` counts all of them. */
  incoming(urn: string, start: number, count: number): Promise<{ total: number; edges: IncomingEdge[] }>;
  /** The latest values of `aspects` of entities of one type, by URN then aspect; absent ones left out. */
  latest(urns: readonly string[], aspects: readonly string[]): Promise<Map<string, Map<string, LatestAspect>>>;
}

/** One aspect to rewrite: its value without the references, or none (delete it), from the version it was read at. */
export interface ReferenceEdit {
  readonly entity: string;
  readonly entityType: string;
  readonly aspect: string;
  /** The relationships (`TaggedWith`, `OwnedBy`) the references were. */
  readonly relationships: readonly string[];
  readonly value: JsonObject | undefined;
  readonly version: string | undefined;
}

/** DataHub's entry of `relatedAspects`, in its key order (its CLI prints the values in order). */
export interface RelatedAspect {
  readonly relationship: string;
  readonly entity: string;
  readonly aspect: string;
}

/** How many entities' aspects one read asks for (their URNs travel in the query string). */
export const READ_CHUNK = 25;
/** Edges read per page of the graph. */
export const EDGE_PAGE = 1_000;
/** Deepest the graph can be paged (Elasticsearch's default `max_result_window`). */
export const EDGE_WINDOW = 10_000;
/** Edits applied per submission. */
export const EDIT_CHUNK = 100;
/** Attempts at an edit whose aspect keeps changing between its read and its write. */
export const MAX_ATTEMPTS = 5;
/** Entries of `relatedAspects` in an answer, as DataHub cuts them. */
export const MAX_RELATED = 10;

/** DataHub's answer of `deleteReferences`. */
export interface ReferenceCleanup {
  /** The edges into the URN when the cleanup started. */
  readonly total: number;
  /** Up to {@link MAX_RELATED} of the aspects holding the references. */
  readonly relatedAspects: readonly RelatedAspect[];
}

/**
 * Applies edits as proposals and waits until they are applied and indexed. Rejects with a
 * {@link PreconditionFailedError} when an aspect changed since it was read (the others are applied).
 */
export type ApplyEdits = (edits: readonly ReferenceEdit[]) => Promise<void>;

/**
 * Takes every reference to `urn` out of the aspects of other entities (`dryRun`: only says where they are). The
 * references are found through the graph's edges into `urn`, page by page: each page's sources are read, cleaned
 * ({@link referenceEdits}) and written before the next page is read from the start again — the edges cleaned are then
 * gone from the graph, so the graph's paging limit bounds nothing but the references that cannot be cleaned (an edge
 * the graph still has but no aspect holds, a reference inside a key). An edit whose aspect changed meanwhile is read
 * and computed again, up to {@link MAX_ATTEMPTS} times, so a concurrent write is never undone.
 */
export async function cleanReferences(
  registry: EntityRegistry,
  urn: string,
  options: { readonly dryRun: boolean },
  reads: ReferenceReads,
  apply: ApplyEdits,
): Promise<ReferenceCleanup> {
  let total: number | undefined;
  const related: RelatedAspect[] = [];
  const seen = new Set<string>();
  let start = 0;
  while (start < EDGE_WINDOW) {
    const page = await reads.incoming(urn, start, Math.min(EDGE_PAGE, EDGE_WINDOW - start));
    total ??= page.total;
    const sources = new Map<string, Set<string>>();
    for (const edge of page.edges) {
      const key = `${edge.type}\u0000${edge.source}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const types = sources.get(edge.source) ?? new Set<string>();
      types.add(edge.type);
      sources.set(edge.source, types);
    }
    if (sources.size === 0) {
      if (page.edges.length === 0) break;
      start += page.edges.length; // only edges that cannot be cleaned here: look past them
      continue;
    }
    const edits = await referenceEdits(registry, urn, sources, reads);
    related.push(...relatedAspectsOf(edits).slice(0, MAX_RELATED - related.length));
    if (options.dryRun) {
      if (related.length >= MAX_RELATED) break;
      start += page.edges.length;
      continue;
    }
    for (let index = 0; index < edits.length; index += EDIT_CHUNK) {
      await applyWithRetries(registry, urn, edits.slice(index, index + EDIT_CHUNK), reads, apply);
    }
  }
  return { total: total ?? 0, relatedAspects: related };
}

/** Applies edits; when an aspect changed since it was read, reads the chunk's sources again and retries. */
async function applyWithRetries(
  registry: EntityRegistry,
  urn: string,
  edits: readonly ReferenceEdit[],
  reads: ReferenceReads,
  apply: ApplyEdits,
): Promise<void> {
  let pending = edits;
  for (let attempt = 1; pending.length > 0; attempt++) {
    try {
      await apply(pending);
      return;
    } catch (error) {
      if (!(error instanceof PreconditionFailedError)) throw error;
      if (attempt === MAX_ATTEMPTS) {
        throw new ConflictError(
          `The references to ${urn} kept changing while they were removed (${MAX_ATTEMPTS} attempts); retry`,
          { cause: error },
        );
      }
    }
    // The edits applied before the one that failed no longer find the reference: only the rest come back.
    const sources = new Map<string, Set<string>>();
    for (const edit of pending) {
      const types = sources.get(edit.entity) ?? new Set<string>();
      for (const relationship of edit.relationships) types.add(relationship);
      sources.set(edit.entity, types);
    }
    pending = await referenceEdits(registry, urn, sources, reads);
  }
}

/**
 * The aspects of the `sources` that reference `urn`, each with its value without the references, computed from the
 * latest values. A source is asked only for the aspects whose `Relationship` annotations of the edges' names allow
 * `urn`'s entity type; key aspects are never edited (a reference there is part of the source's identity). Sources of
 * an entity type this deployment does not know are left alone.
 */
export async function referenceEdits(
  registry: EntityRegistry,
  urn: string,
  sources: ReadonlyMap<string, ReadonlySet<string>>,
  reads: Pick<ReferenceReads, 'latest'>,
): Promise<ReferenceEdit[]> {
  const targetType = parseUrn(urn).entityType;
  // Per entity type, the sources and the aspects worth reading for them.
  const byType = new Map<string, { urns: string[]; aspects: Set<string> }>();
  for (const [source, types] of sources) {
    const entityType = entityTypeOf(source);
    const entity = entityType === undefined ? undefined : registry.entity(entityType);
    if (entity === undefined) continue;
    const aspects = relationshipFields(entity)
      .filter((spec) => types.has(spec.name) && spec.entityTypes.includes(targetType))
      .map((spec) => spec.aspect)
      .filter((aspect) => entity.aspect(aspect)?.isKey === false);
    if (aspects.length === 0) continue;
    const group = byType.get(entity.name) ?? { urns: [], aspects: new Set<string>() };
    group.urns.push(source);
    for (const aspect of aspects) group.aspects.add(aspect);
    byType.set(entity.name, group);
  }
  const edits: ReferenceEdit[] = [];
  for (const [entityType, group] of byType) {
    const entity = registry.entity(entityType);
    if (entity === undefined) continue;
    const aspects = [...group.aspects].sort();
    for (let index = 0; index < group.urns.length; index += READ_CHUNK) {
      const urns = group.urns.slice(index, index + READ_CHUNK);
      const latest = await reads.latest(urns, aspects);
      for (const source of urns) {
        for (const [aspect, found] of latest.get(source) ?? new Map<string, LatestAspect>()) {
          if (!group.aspects.has(aspect)) continue;
          const removal = removeReferences(entity, aspect, found.value, urn);
          if (removal.kind === 'unchanged') continue;
          edits.push({
            entity: source,
            entityType,
            aspect,
            relationships: removal.relationships,
            value: removal.kind === 'changed' ? removal.value : undefined,
            version: found.version,
          });
        }
      }
    }
  }
  return edits;
}

/** The `relatedAspects` entries of some edits: one per (entity, aspect, relationship). */
export function relatedAspectsOf(edits: readonly ReferenceEdit[]): RelatedAspect[] {
  return edits.flatMap((edit) =>
    edit.relationships.map((relationship) => ({ relationship, entity: edit.entity, aspect: edit.aspect })),
  );
}

/**
 * The proposal that makes an edit: an UPSERT of the cleaned value or a DELETE of the aspect, valid only against the
 * version it was computed from (`If-Version-Match`), so that a write in between makes it fail rather than be undone.
 * Validated like any proposal: a cleaned value the aspect's schema refuses is a 422 naming it, before anything is
 * written.
 */
export function proposalOf(registry: EntityRegistry, edit: ReferenceEdit): ValidatedProposal {
  const headers = edit.version === undefined ? {} : { 'If-Version-Match': edit.version };
  return validateProposal(registry, {
    entityType: edit.entityType,
    entityUrn: edit.entity,
    aspectName: edit.aspect,
    headers,
    ...(edit.value === undefined
      ? { changeType: 'DELETE' }
      : {
          changeType: 'UPSERT',
          aspect: { value: JSON.stringify(edit.value), contentType: 'application/json' },
        }),
  });
}

function entityTypeOf(urn: string): string | undefined {
  try {
    return parseUrn(urn).entityType;
  } catch {
    return undefined;
  }
}
