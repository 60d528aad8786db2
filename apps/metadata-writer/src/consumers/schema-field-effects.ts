import type { EntityRegistry } from '@strata/model';
import type { AspectKey, AspectStore, StoredAspect } from '@strata/store';
import type { TimeSlice } from '@strata/timing';
import type { Decision } from '../domain/decide';
import {
  hasSchemaFieldSideEffects,
  schemaFieldReads,
  schemaFieldSideEffects,
  schemaFieldUrnPrefix,
} from '../domain/schema-field-side-effects';

/** The latest values a batch knows, as its decisions leave them: what the side effects read through. */
export interface KnownAspects {
  get(urn: string, aspect: string): StoredAspect | undefined;
  /** Whether the batch knows the value (read, or written by one of its decisions): else the store's is current. */
  knows(urn: string, aspect: string): boolean;
  /** Records what the store holds for keys the batch did not know (absent ones included). */
  load(keys: readonly AspectKey[], rows: readonly StoredAspect[]): void;
  /** The entities the batch knows whose URN starts with `prefix`. */
  entities(prefix: string): readonly string[];
}

/** Keys read from the store at once: a schema of 10,000 fields is read in a few queries, not one huge one. */
const READ_CHUNK = 1_000;

/** Entities listed per page when every field of a deleted dataset is listed. */
const SCAN_PAGE = 1_000;

/**
 * A decision with the side effects of its writes on `schemaField` entities added (`schemaFieldSideEffects`): reads what
 * they need — the dataset's aspects, its fields' — that the batch does not know yet, then asks the domain. The field
 * writes' change logs go first, so that the proposal's own last change log, which a write waiting for indexing marks,
 * follows them on a topic's partition. Unchanged when the decision touches no dataset's schema, status or key.
 */
export async function withSchemaFieldEffects(
  decision: Decision,
  options: {
    readonly store: AspectStore;
    readonly registry: EntityRegistry;
    readonly known: KnownAspects;
    readonly slice: TimeSlice;
  },
): Promise<Decision> {
  const { store, registry, known, slice } = options;
  if (!hasSchemaFieldSideEffects(decision.changeLogs, registry)) return decision;
  const latest = (urn: string, aspect: string) => known.get(urn, aspect);
  const listed = new Map<string, readonly string[]>();
  // What is read depends on the dataset's stored schema (the fields a status change reaches): read until stable.
  for (let round = 0; round < 3; round++) {
    const reads = schemaFieldReads(decision.changeLogs, latest, registry);
    for (const dataset of reads.everyFieldOf) {
      if (!listed.has(dataset)) listed.set(dataset, await listFields(store, registry, known, dataset, slice));
    }
    const missing = unique(reads.keys.filter(({ urn, aspect }) => !known.knows(urn, aspect)));
    if (missing.length === 0) break;
    for (let start = 0; start < missing.length; start += READ_CHUNK) {
      const chunk = missing.slice(start, start + READ_CHUNK);
      known.load(chunk, await store.getLatest(chunk));
      await slice.pause();
    }
  }
  const effects = schemaFieldSideEffects(
    decision.changeLogs,
    { latest, fieldsOf: (dataset) => listed.get(dataset) ?? [] },
    registry,
  );
  if (effects.mutations.length === 0) return decision;
  return {
    ...decision,
    mutations: [...decision.mutations, ...effects.mutations],
    changeLogs: [...effects.changeLogs, ...decision.changeLogs],
  };
}

/**
 * Every `schemaField` entity of a dataset: those stored (their keys read into the batch's state) and those the batch
 * created. Whether each still exists is the state's to say.
 */
async function listFields(
  store: AspectStore,
  registry: EntityRegistry,
  known: KnownAspects,
  dataset: string,
  slice: TimeSlice,
): Promise<string[]> {
  const keyAspect = registry.entity('schemaField')?.keyAspect.name;
  if (keyAspect === undefined) return [];
  const prefix = schemaFieldUrnPrefix(dataset);
  const urns = new Set(known.entities(prefix));
  for (let afterUrn: string | undefined; ;) {
    const page = await store.scanEntities({ urnPrefix: prefix, limit: SCAN_PAGE, ...(afterUrn ? { afterUrn } : {}) });
    const keys = page.map(({ urn }) => ({ urn, aspect: keyAspect }));
    known.load(
      keys,
      page.flatMap(({ aspects }) => aspects.filter((aspect) => aspect.aspect === keyAspect)),
    );
    for (const { urn } of page) urns.add(urn);
    await slice.pause();
    if (page.length < SCAN_PAGE) break;
    afterUrn = page[page.length - 1]?.urn;
  }
  return [...urns];
}

function unique(keys: readonly AspectKey[]): AspectKey[] {
  return [...new Map(keys.map((key) => [`${key.urn}\u0000${key.aspect}`, key])).values()];
}
