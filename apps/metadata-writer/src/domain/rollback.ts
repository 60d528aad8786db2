import { BadRequestError, TIMESERIES_RUN_HEADER, type JsonObject } from '@strata/model';
import type { CurrentAspect } from './decide';
import { isSchemaFieldSideEffectRow } from './schema-field-side-effects';

/** Domain code takes the store's shapes from `decide`'s own signature (it may not import the store library). */
type StoredAspect = NonNullable<ReturnType<CurrentAspect>>;

/** DataHub's reserved run id of writes that named none: never rolled back. */
export const UNNAMED_RUN_ID = 'no-run-id-provided';

/** The run id DataHub stamps on what a rollback writes (the soft delete of an entity the run created). */
export const ROLLBACK_RUN_ID = '__datahub-rollback';

/**
 * What a rollback reverts: the latest values written last by an ingestion run (their system metadata's `runId`), or
 * under one version of a model registry (`registryName` and `registryVersion`, what DataHub's `deleteAll` reverts).
 */
export type RollbackScope =
  { readonly runId: string } | { readonly registryName: string; readonly registryVersion: string };

/**
 * Whether a version was written in the scope, by its system metadata (DataHub's conditions of a rollback: each field
 * equal). A registry is named only by writers that put one in their system metadata: Strata loads no registry plugins.
 */
export function writtenIn(scope: RollbackScope, systemMetadata: JsonObject): boolean {
  if ('runId' in scope) return systemMetadata['runId'] === scope.runId;
  return (
    systemMetadata['registryName'] === scope.registryName && systemMetadata['registryVersion'] === scope.registryVersion
  );
}

/**
 * Reads a registry id as DataHub's `deleteAll` takes it, `<name>:<version>`. Refuses, with DataHub's words, an id
 * that is not exactly two non-empty parts (DataHub answers 500 for some, and silently reads `a:b:c` as `a:b`).
 */
export function parseRegistryId(registryId: string): {
  readonly registryName: string;
  readonly registryVersion: string;
} {
  const parts = registryId.split(':');
  const [registryName, registryVersion] = parts;
  if (parts.length !== 2 || !registryName || !registryVersion) {
    throw new BadRequestError(`Failed to parse registry id: ${registryId}`);
  }
  return { registryName, registryVersion };
}

/** A latest value written in the rollback's scope, and what rolling it back restores. */
export interface RollbackCandidate {
  readonly entityType: string;
  readonly latest: StoredAspect;
  readonly isKey: boolean;
  /**
   * The newest earlier version written outside the scope (another run's, another registry's); undefined when every
   * earlier version is in the scope, or there is none.
   */
  readonly survivor: StoredAspect | undefined;
}

/** A write the rollback makes, as an ordinary proposal. */
export interface RollbackProposal {
  readonly entityType: string;
  readonly entityUrn: string;
  readonly changeType: 'UPSERT' | 'DELETE';
  readonly aspectName: string;
  readonly value?: JsonObject;
  readonly systemMetadata?: JsonObject;
  /** The proposal's headers: the run a DELETE of a timeseries aspect removes the values of. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A timeseries aspect of one entity holding values the run wrote, and how many. */
export interface RollbackTimeseries {
  readonly entityType: string;
  readonly urn: string;
  readonly aspect: string;
  readonly count: number;
}

export interface AspectRowSummary {
  readonly runId: string;
  readonly aspectName: string;
  readonly urn: string;
  readonly timestamp: number;
  readonly keyAspect: boolean;
}

/** DataHub's `RollbackResponse`, as a run's rollback fills it in, or `deleteAll` (which leaves out what it does not). */
export interface RollbackResponse {
  readonly entitiesAffected: number;
  /** A run's rollback only. */
  readonly aspectsReverted?: number;
  /** After a run's rollback that was not a dry run; always after `deleteAll`. */
  readonly aspectsAffected?: number;
  readonly entitiesDeleted: number;
  /** A run's rollback only. */
  readonly unsafeEntitiesCount?: number;
  /** A run's rollback only. */
  readonly unsafeEntities?: readonly { readonly urn: string }[];
  readonly aspectRowSummaries: readonly AspectRowSummary[];
}

export interface RollbackPlan {
  readonly proposals: readonly RollbackProposal[];
  readonly response: RollbackResponse;
}

/** How many rows of the run a response lists, as DataHub. */
const SUMMARY_ROWS = 100;

/**
 * What rolling back an ingestion run does, as DataHub does it. Every latest value the run wrote last goes back to the
 * newest earlier version another run wrote, or is deleted when there is none. An entity the run created (its key is
 * the run's) is deleted for good when `hard`; otherwise (the default, DataHub's "safe" rollback) it is hidden with
 * `status.removed = true` and keeps what other runs wrote ("unsafe" entities, which the answer lists). Pure: the
 * caller reads the candidates, and the latest values of the entities the run created (`createdEntities`).
 *
 * The rows the writer keeps for a dataset's fields (their `schemaField` key, `status` and aliases, stamped with the run
 * id of the dataset write that caused them) are left out: they follow the dataset's own reverts, whose side effects
 * restore, hide or delete the fields with it (its schema or the dataset deleted: its fields go too).
 *
 * The timeseries values the run wrote (`timeseries`: per entity and aspect, how many) go too, as DataHub deletes them
 * by run id: one DELETE of each aspect naming the run, before the entities the run created are hidden or deleted,
 * and their number added to `aspectsReverted`. A dry run reports none of them, as DataHub's does not, and the rows
 * listed, the entities affected and the unsafe ones are the versioned values' alone, as in DataHub.
 */
export function planRollback(
  runId: string,
  allCandidates: readonly RollbackCandidate[],
  options: {
    readonly hard: boolean;
    readonly dryRun: boolean;
    readonly createdEntities: ReadonlyMap<string, readonly StoredAspect[]>;
    /** Ignored in a dry run. Default none. */
    readonly timeseries?: readonly RollbackTimeseries[];
  },
): RollbackPlan {
  const candidates = revertible(allCandidates);
  const created = new Set(candidates.filter((candidate) => candidate.isKey).map((candidate) => candidate.latest.urn));
  const timeseries = options.dryRun ? [] : (options.timeseries ?? []);
  const proposals = [
    ...timeseries.map((held): RollbackProposal => ({
      entityType: held.entityType,
      entityUrn: held.urn,
      changeType: 'DELETE',
      aspectName: held.aspect,
      headers: { [TIMESERIES_RUN_HEADER]: runId },
    })),
    ...revertProposals(candidates, options.hard),
  ];
  const timeseriesReverted = timeseries.reduce((sum, held) => sum + held.count, 0);

  // What other runs wrote on the entities this run created: lost with a hard rollback, hidden with a soft one.
  const affected = [...created].flatMap((urn) =>
    (options.createdEntities.get(urn) ?? []).filter(
      (aspect) =>
        aspect.systemMetadata['runId'] !== runId && aspect.aspect !== 'status' && !aspect.aspect.endsWith('Key'),
    ),
  );
  const unsafe = [...new Set(affected.map((aspect) => aspect.urn))];
  const listed = candidates.filter((candidate) => !(options.dryRun && !options.hard && candidate.isKey));
  return {
    proposals,
    response: {
      entitiesAffected: new Set(candidates.map((candidate) => candidate.latest.urn)).size,
      aspectsReverted: listed.length + timeseriesReverted,
      ...(options.dryRun ? {} : { aspectsAffected: affected.length }),
      entitiesDeleted: created.size,
      unsafeEntitiesCount: unsafe.length,
      unsafeEntities: unsafe.map((urn) => ({ urn })),
      aspectRowSummaries: listed.slice(0, SUMMARY_ROWS).map(({ latest, isKey }) => ({
        runId,
        aspectName: latest.aspect,
        urn: latest.urn,
        timestamp: lastObservedOf(latest),
        keyAspect: isKey,
      })),
    },
  };
}

/**
 * What deleting everything one version of a model registry wrote does, as DataHub's `deleteAll` does it: the rollback
 * of a run, soft — every latest value written under the registry goes back to the newest version written outside
 * it, or goes; an entity whose key it wrote is hidden with `status.removed = true` — and DataHub's answer: the rows
 * found (`aspectsAffected`, in a dry run too), their entities, the key rows among them (`entitiesDeleted`), and the
 * first 100 rows, each with the run that wrote it. Pure, like {@link planRollback}.
 */
export function planRegistryRollback(allCandidates: readonly RollbackCandidate[]): RollbackPlan {
  const candidates = revertible(allCandidates);
  return {
    proposals: revertProposals(candidates, false),
    response: {
      entitiesAffected: new Set(candidates.map((candidate) => candidate.latest.urn)).size,
      aspectsAffected: candidates.length,
      entitiesDeleted: candidates.filter((candidate) => candidate.isKey).length,
      aspectRowSummaries: candidates.slice(0, SUMMARY_ROWS).map(({ latest, isKey }) => ({
        runId: typeof latest.systemMetadata['runId'] === 'string' ? latest.systemMetadata['runId'] : UNNAMED_RUN_ID,
        aspectName: latest.aspect,
        urn: latest.urn,
        timestamp: lastObservedOf(latest),
        keyAspect: isKey,
      })),
    },
  };
}

/**
 * The candidates a rollback reverts itself. The rows the writer keeps for a dataset's fields (their `schemaField` key,
 * `status` and aliases, stamped with the system metadata of the dataset write that caused them) are left out: they
 * follow the dataset's own reverts, whose side effects restore, hide or delete the fields with it.
 */
function revertible(candidates: readonly RollbackCandidate[]): RollbackCandidate[] {
  return candidates.filter((candidate) => !isSchemaFieldSideEffectRow(candidate.latest.urn, candidate.latest.aspect));
}

/**
 * The writes reverting the candidates: each value back to its survivor, or deleted when it has none; an entity whose
 * key is a candidate, last, deleted whole when `hard` (its other candidates then go with it) and otherwise hidden with
 * `status.removed = true`.
 */
function revertProposals(candidates: readonly RollbackCandidate[], hard: boolean): RollbackProposal[] {
  const created = new Set(candidates.filter((candidate) => candidate.isKey).map((candidate) => candidate.latest.urn));
  const proposals: RollbackProposal[] = [];
  for (const candidate of candidates) {
    const { latest, entityType } = candidate;
    if (candidate.isKey || (hard && created.has(latest.urn))) continue; // the entity goes as a whole, below
    proposals.push(
      candidate.survivor === undefined
        ? { entityType, entityUrn: latest.urn, changeType: 'DELETE', aspectName: latest.aspect }
        : {
            entityType,
            entityUrn: latest.urn,
            changeType: 'UPSERT',
            aspectName: latest.aspect,
            value: candidate.survivor.value,
            systemMetadata: candidate.survivor.systemMetadata,
          },
    );
  }
  for (const candidate of candidates.filter((each) => each.isKey)) {
    const { latest, entityType } = candidate;
    proposals.push(
      hard
        ? { entityType, entityUrn: latest.urn, changeType: 'DELETE', aspectName: latest.aspect }
        : {
            entityType,
            entityUrn: latest.urn,
            changeType: 'UPSERT',
            aspectName: 'status',
            value: { removed: true },
            systemMetadata: { runId: ROLLBACK_RUN_ID },
          },
    );
  }
  return proposals;
}

function lastObservedOf(latest: StoredAspect): number {
  const lastObserved = latest.systemMetadata['lastObserved'];
  return typeof lastObserved === 'number' ? lastObserved : 0;
}
