import { z } from 'zod';
import { defineRoute, type Route } from '@strata/http';
import { BadRequestError, type EntityRegistry } from '@strata/model';
import type { AspectStore, StoredAspect } from '@strata/store';
import { planRollback, UNNAMED_RUN_ID, type RollbackCandidate } from '../domain/rollback';

export interface RunsRouteOptions {
  readonly store: AspectStore;
  readonly registry: EntityRegistry;
}

/** Most values one rollback reverts (DataHub works through a run 5,000 rows at a time; this takes it whole). */
const MAX_ROLLBACK_ROWS = 100_000;

/**
 * `POST /internal/runs/rollback-plan`: what rolling back an ingestion run would write (`planRollback`), from what the
 * run wrote last in the primary store, and DataHub's answer for it. The gateway serves `POST /runs?action=rollback` on
 * it: it checks the planned writes as it checks any write and publishes them as ordinary proposals (docs/adr/0018).
 */
export function runsRoutes(options: RunsRouteOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      resource: '/internal/runs/rollback-plan',
      family: 'restli',
      access: { kind: 'internal' },
      summary: 'Plan the rollback of an ingestion run: the writes it takes, and the answer to give.',
      body: z.object({
        runId: z.string({ error: 'runId must be a string' }).min(1, 'runId must not be empty'),
        hard: z.boolean(),
        dryRun: z.boolean(),
      }),
      handle: async ({ body }) => {
        if (body.runId === UNNAMED_RUN_ID) {
          throw new BadRequestError(
            `${UNNAMED_RUN_ID} is a default run-id provided for non labeled ingestion runs. You cannot delete using this reserved run-id`,
          );
        }
        const candidates = await candidatesOf(options, body.runId);
        const createdEntities = new Map<string, readonly StoredAspect[]>();
        for (const candidate of candidates) {
          if (candidate.isKey) {
            createdEntities.set(candidate.latest.urn, await options.store.getEntity(candidate.latest.urn));
          }
        }
        return {
          body: planRollback(body.runId, candidates, { hard: body.hard, dryRun: body.dryRun, createdEntities }),
        };
      },
    }),
  ];
}

/** The latest values the run wrote last, each with the newest earlier version another run wrote. */
async function candidatesOf(options: RunsRouteOptions, runId: string): Promise<RollbackCandidate[]> {
  const latest = await options.store.findLatestByRunId(runId, MAX_ROLLBACK_ROWS);
  const candidates: RollbackCandidate[] = [];
  for (const row of latest) {
    const entityType = /^urn:li:([^:]+):/.exec(row.urn)?.[1] ?? '';
    const entity = options.registry.entity(entityType);
    const spec = entity?.aspect(row.aspect);
    if (entity === undefined || spec === undefined) continue; // a value of a model no longer loaded: left alone
    let survivor: StoredAspect | undefined;
    for (let version = row.version - 1; version >= 1 && survivor === undefined; version--) {
      const earlier = await options.store.getVersion(row.urn, row.aspect, version);
      if (earlier !== undefined && earlier.systemMetadata['runId'] !== runId) survivor = earlier;
    }
    candidates.push({ entityType: entity.name, latest: row, isKey: spec.isKey, survivor });
  }
  return candidates;
}
