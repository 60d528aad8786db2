import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineRoute, type Route } from '@strata/http';
import { BadRequestError, TimeoutError, type EntityRegistry } from '@strata/model';
import { originHeaders, type EventSerde, type RequestOrigin, type TopicNames } from '@strata/events';
import type { MessageLog } from '@strata/log';
import type { AspectStore, StoredAspect } from '@strata/store';
import type { Scheduler } from '@strata/timing';
import { planRollback, UNNAMED_RUN_ID, type RollbackCandidate, type RollbackProposal } from '../domain/rollback';

export interface RunsRouteOptions {
  readonly store: AspectStore;
  readonly registry: EntityRegistry;
  readonly log: MessageLog;
  readonly serde: EventSerde;
  readonly topics: TopicNames;
  readonly scheduler: Scheduler;
  /** How long a rollback waits for its proposals to be applied. */
  readonly timeoutMs: number;
}

/** Most values one rollback reverts (DataHub works through a run 5,000 rows at a time; this takes it whole). */
const MAX_ROLLBACK_ROWS = 100_000;
const POLL_MS = 25;

/**
 * `POST /runs?action=rollback`: DataHub's rollback of an ingestion run, as `datahub ingest rollback` calls it. The
 * writer reads what the run wrote last from the primary store, plans the reverts (`planRollback`), and — unless
 * `dryRun` — publishes them as ordinary proposals on the log, answering once every one of them is applied.
 */
export function runsRoutes(options: RunsRouteOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      resource: '/runs',
      action: 'rollback',
      family: 'restli',
      summary: 'Roll back what an ingestion run wrote: restore earlier versions, remove what it created.',
      description:
        'Soft by default (`safe`, or the deprecated `hardDelete: false`): an entity the run created is hidden with status.removed and keeps what other runs wrote; hard (`safe: false` or `hardDelete: true`) deletes it for good. Every other value the run wrote last goes back to the newest version another run wrote, or is removed. `dryRun` says what would happen and changes nothing.',
      body: z.object({
        runId: z.string({ error: 'runId must be a string' }).min(1, 'runId must not be empty'),
        dryRun: z.boolean().optional(),
        hardDelete: z.boolean().optional(),
        safe: z.boolean().optional(),
      }),
      example: { body: { runId: 'postgres-2026_11_23-10_00_00', dryRun: true, safe: true } },
      handle: async ({ body, context }) => {
        if (body.runId === UNNAMED_RUN_ID) {
          throw new BadRequestError(
            `${UNNAMED_RUN_ID} is a default run-id provided for non labeled ingestion runs. You cannot delete using this reserved run-id`,
          );
        }
        const hard = body.safe !== undefined ? !body.safe : (body.hardDelete ?? false);
        const dryRun = body.dryRun ?? false;
        const candidates = await candidatesOf(options, body.runId);
        const createdEntities = new Map<string, readonly StoredAspect[]>();
        for (const candidate of candidates) {
          if (candidate.isKey) {
            createdEntities.set(candidate.latest.urn, await options.store.getEntity(candidate.latest.urn));
          }
        }
        const plan = planRollback(body.runId, candidates, { hard, dryRun, createdEntities });
        if (!dryRun && plan.proposals.length > 0) await apply(options, plan.proposals, context);
        return { body: { value: plan.response } };
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

/** Publishes the rollback's proposals, in order, and waits until the writers applied every one. */
async function apply(
  options: RunsRouteOptions,
  proposals: readonly RollbackProposal[],
  context: Omit<RequestOrigin, 'requestId'>,
): Promise<void> {
  const ids = proposals.map(() => randomUUID());
  await options.log.publish(
    proposals.map((proposal, index) => ({
      topic: options.topics.metadataChangeProposal,
      key: proposal.entityUrn,
      headers: originHeaders({ ...context, requestId: ids[index] ?? '' }),
      value: options.serde.proposal.encode({
        auditHeader: null,
        entityType: proposal.entityType,
        entityUrn: proposal.entityUrn,
        entityKeyAspect: null,
        changeType: proposal.changeType,
        aspectName: proposal.aspectName,
        aspect:
          proposal.value === undefined
            ? null
            : { value: Buffer.from(JSON.stringify(proposal.value), 'utf8'), contentType: 'application/json' },
        systemMetadata:
          proposal.systemMetadata === undefined ? null : options.serde.toSystemMetadataRecord(proposal.systemMetadata),
        headers: null,
      }),
    })),
  );
  const deadline = options.scheduler.now() + options.timeoutMs;
  for (;;) {
    const applied = await options.store.findApplied(ids);
    if (applied.size === ids.length) return;
    if (options.scheduler.now() >= deadline) {
      throw new TimeoutError(
        `The rollback published ${ids.length} proposals; ${applied.size} were applied within ${options.timeoutMs} ms, the rest may still apply`,
      );
    }
    await options.scheduler.sleep(POLL_MS);
  }
}
