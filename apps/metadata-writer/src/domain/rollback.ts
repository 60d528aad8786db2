import type { JsonObject } from '@strata/model';
import type { CurrentAspect } from './decide';
import { isSchemaFieldSideEffectRow } from './schema-field-side-effects';

/** Domain code takes the store's shapes from `decide`'s own signature (it may not import the store library). */
type StoredAspect = NonNullable<ReturnType<CurrentAspect>>;

/** DataHub's reserved run id of writes that named none: never rolled back. */
export const UNNAMED_RUN_ID = 'no-run-id-provided';

/** The run id DataHub stamps on what a rollback writes (the soft delete of an entity the run created). */
export const ROLLBACK_RUN_ID = '__datahub-rollback';

/** A latest value the run wrote last, and what rolling it back restores. */
export interface RollbackCandidate {
  readonly entityType: string;
  readonly latest: StoredAspect;
  readonly isKey: boolean;
  /** The newest earlier version another run wrote; undefined when every earlier version is the run's own, or none. */
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
}

export interface AspectRowSummary {
  readonly runId: string;
  readonly aspectName: string;
  readonly urn: string;
  readonly timestamp: number;
  readonly keyAspect: boolean;
}

/** DataHub's `RollbackResponse`. */
export interface RollbackResponse {
  readonly entitiesAffected: number;
  readonly aspectsReverted: number;
  /** Only after a real run. */
  readonly aspectsAffected?: number;
  readonly entitiesDeleted: number;
  readonly unsafeEntitiesCount: number;
  readonly unsafeEntities: readonly { readonly urn: string }[];
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
 */
export function planRollback(
  runId: string,
  allCandidates: readonly RollbackCandidate[],
  options: {
    readonly hard: boolean;
    readonly dryRun: boolean;
    readonly createdEntities: ReadonlyMap<string, readonly StoredAspect[]>;
  },
): RollbackPlan {
  const candidates = allCandidates.filter(
    (candidate) => !isSchemaFieldSideEffectRow(candidate.latest.urn, candidate.latest.aspect),
  );
  const created = new Set(candidates.filter((candidate) => candidate.isKey).map((candidate) => candidate.latest.urn));
  const proposals: RollbackProposal[] = [];
  for (const candidate of candidates) {
    const { latest, entityType } = candidate;
    if (candidate.isKey || (options.hard && created.has(latest.urn))) continue; // the entity goes as a whole, below
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
      options.hard
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
      aspectsReverted: listed.length,
      ...(options.dryRun ? {} : { aspectsAffected: affected.length }),
      entitiesDeleted: created.size,
      unsafeEntitiesCount: unsafe.length,
      unsafeEntities: unsafe.map((urn) => ({ urn })),
      aspectRowSummaries: listed.slice(0, SUMMARY_ROWS).map(({ latest, isKey }) => ({
        runId,
        aspectName: latest.aspect,
        urn: latest.urn,
        timestamp:
          typeof latest.systemMetadata['lastObserved'] === 'number' ? latest.systemMetadata['lastObserved'] : 0,
        keyAspect: isKey,
      })),
    },
  };
}
