import { z } from 'zod';
import { defineRoute, type Route, type RouteAccess } from '@strata/http';
import { BadRequestError, type EntityRegistry } from '@strata/model';
import type { AspectStore, StoredAspect } from '@strata/store';
import {
  parseRegistryId,
  planRegistryRollback,
  planRollback,
  UNNAMED_RUN_ID,
  writtenIn,
  type RollbackCandidate,
  type RollbackScope,
  type RollbackTimeseries,
} from '../domain/rollback';

export interface RunsRouteOptions {
  readonly store: AspectStore;
  readonly registry: EntityRegistry;
}

/**
 * Reading what ingestion runs wrote: DataHub's ENTITY READ on ingestion sources (what a run belongs to), as rolling a
 * run back asks for ENTITY UPDATE and DELETE on them; with authentication on.
 */
const RUNS_READ_ACCESS: RouteAccess = {
  kind: 'resource',
  group: 'ENTITY',
  operations: ['READ'],
  resource: { in: 'type', type: 'dataHubIngestionSource' },
  message: 'User is unauthorized to read ingestion runs.',
};

/** Most rows one `describe` page holds. */
const MAX_DESCRIBE_ROWS = 10_000;

/** Most values one rollback reverts (DataHub works through a run 5,000 rows at a time; this takes it whole). */
const MAX_ROLLBACK_ROWS = 100_000;

/**
 * Most (entity, timeseries aspect) pairs one rollback removes the run's values of: each is one proposal, however many
 * values it holds. A run holding more leaves the rest for the next rollback of it.
 */
const MAX_ROLLBACK_TIMESERIES = 100_000;

/**
 * `POST /internal/runs/rollback-plan`: what rolling back an ingestion run would write (`planRollback`), from what the
 * run wrote last in the primary store and the timeseries values it wrote there, and DataHub's answer for it. The gateway serves `POST /runs?action=rollback` on
 * it: it checks the planned writes as it checks any write and publishes them as ordinary proposals (docs/adr/0018).
 */
export function runsRoutes(options: RunsRouteOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      resource: '/runs',
      action: 'list',
      family: 'restli',
      access: RUNS_READ_ACCESS,
      summary: 'The ingestion runs that last wrote some aspect, newest first: DataHub’s `IngestionRunSummary` list.',
      example: { body: { pageOffset: 0, pageSize: 10, includeSoft: false } },
      description:
        'Per run: `runId`, `rows` (the latest aspect values it wrote last) and `timestamp` (the newest ' +
        '`lastObserved` among them). Values of soft-deleted entities count only with `includeSoft`; the unnamed ' +
        'run (`no-run-id-provided`) is not listed. Defaults: `pageOffset` 0, `pageSize` 100.',
      body: z.object({
        pageOffset: z.number().int('pageOffset must be an integer').min(0, 'pageOffset must be ≥ 0').nullish(),
        pageSize: z
          .number()
          .int('pageSize must be an integer')
          .min(0, 'pageSize must be ≥ 0')
          .max(MAX_DESCRIBE_ROWS, `pageSize must be ≤ ${MAX_DESCRIBE_ROWS}`)
          .nullish(),
        includeSoft: z.boolean().nullish(),
      }),
      handle: async ({ body }) => ({
        body: {
          value: await options.store.listRuns({
            start: body.pageOffset ?? 0,
            count: body.pageSize ?? 100,
            includeSoft: body.includeSoft ?? false,
          }),
        },
      }),
    }),
    defineRoute({
      method: 'POST',
      resource: '/runs',
      action: 'describe',
      family: 'restli',
      access: RUNS_READ_ACCESS,
      summary: 'The aspect values an ingestion run wrote last, by URN then aspect: DataHub’s `AspectRowSummary` list.',
      example: { body: { runId: 'my-run', start: 0, count: 10, includeAspect: true } },
      description:
        'Each row: `runId`, `urn`, `aspectName`, `version`, `timestamp` (its `lastObserved`), `keyAspect`, and with ' +
        '`includeAspect` the value as `aspect`. Values of soft-deleted entities only with `includeSoft`.',
      body: z.object({
        runId: z.string({ error: 'runId must be a string' }).min(1, 'runId must not be empty'),
        start: z.number().int('start must be an integer').min(0, 'start must be ≥ 0').default(0),
        count: z
          .number()
          .int('count must be an integer')
          .min(0, 'count must be ≥ 0')
          .max(MAX_DESCRIBE_ROWS, `count must be ≤ ${MAX_DESCRIBE_ROWS}`)
          .default(100),
        includeSoft: z.boolean().nullish(),
        includeAspect: z.boolean().nullish(),
      }),
      handle: async ({ body }) => {
        const rows = await options.store.findLatestByRunId(body.runId, MAX_ROLLBACK_ROWS);
        const removed = new Set<string>();
        if (body.includeSoft !== true) {
          const urns = [...new Set(rows.map((row) => row.urn))];
          const statuses = await options.store.getLatest(urns.map((urn) => ({ urn, aspect: 'status' })));
          for (const status of statuses) if (status.value['removed'] === true) removed.add(status.urn);
        }
        const page = rows.filter((row) => !removed.has(row.urn)).slice(body.start, body.start + body.count);
        return {
          body: {
            value: page.map((row) => {
              const entityType = /^urn:li:([^:]+):/.exec(row.urn)?.[1] ?? '';
              const lastObserved = row.systemMetadata['lastObserved'];
              return {
                runId: body.runId,
                urn: row.urn,
                aspectName: row.aspect,
                version: row.version,
                timestamp: typeof lastObserved === 'number' ? lastObserved : row.createdOn,
                keyAspect: options.registry.entity(entityType)?.keyAspect.name === row.aspect,
                ...(body.includeAspect === true ? { aspect: row.value } : {}),
              };
            }),
          },
        };
      },
    }),
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
        const scope = { runId: body.runId };
        const candidates = await candidatesOf(
          options,
          scope,
          await options.store.findLatestByRunId(body.runId, MAX_ROLLBACK_ROWS),
        );
        const createdEntities = new Map<string, readonly StoredAspect[]>();
        for (const candidate of candidates) {
          if (candidate.isKey) {
            createdEntities.set(candidate.latest.urn, await options.store.getEntity(candidate.latest.urn));
          }
        }
        // A dry run leaves the timeseries values out, as DataHub's does: they are not read.
        const timeseries = body.dryRun ? [] : await timeseriesOf(options, body.runId);
        return {
          body: planRollback(body.runId, candidates, {
            hard: body.hard,
            dryRun: body.dryRun,
            createdEntities,
            timeseries,
          }),
        };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/internal/registries/rollback-plan',
      family: 'restli',
      access: { kind: 'internal' },
      summary: 'Plan the deletion of what one version of a model registry wrote: the writes it takes, and the answer.',
      body: z.object({
        registryId: z.string({ error: 'registryId must be a string' }).min(1, 'registryId must not be empty'),
      }),
      handle: async ({ body }) => {
        const scope = parseRegistryId(body.registryId);
        const latest = await options.store.findLatestByRegistry(
          scope.registryName,
          scope.registryVersion,
          MAX_ROLLBACK_ROWS,
        );
        // As DataHub's deleteAll, which leaves out the values of entities already soft-deleted.
        const removed = await softDeleted(options.store, [...new Set(latest.map((row) => row.urn))]);
        const visible = latest.filter((row) => !removed.has(row.urn));
        return { body: planRegistryRollback(await candidatesOf(options, scope, visible)) };
      },
    }),
  ];
}

/**
 * The timeseries aspects of entities holding values the run wrote, with how many; those of a model no longer loaded
 * are left alone, as its versioned values are.
 */
async function timeseriesOf(options: RunsRouteOptions, runId: string): Promise<RollbackTimeseries[]> {
  const held: RollbackTimeseries[] = [];
  for (const pair of await options.store.findTimeseriesByRunId(runId, MAX_ROLLBACK_TIMESERIES)) {
    const entity = options.registry.entity(/^urn:li:([^:]+):/.exec(pair.urn)?.[1] ?? '');
    if (entity === undefined || entity.aspect(pair.aspect)?.kind !== 'timeseries') continue;
    held.push({ entityType: entity.name, urn: pair.urn, aspect: pair.aspect, count: pair.count });
  }
  return held;
}

/** Which of these entities are soft-deleted (`status.removed`), read a thousand at a time. */
async function softDeleted(store: AspectStore, urns: readonly string[]): Promise<Set<string>> {
  const removed = new Set<string>();
  for (let start = 0; start < urns.length; start += 1000) {
    const keys = urns.slice(start, start + 1000).map((urn) => ({ urn, aspect: 'status' }));
    for (const status of await store.getLatest(keys)) if (status.value['removed'] === true) removed.add(status.urn);
  }
  return removed;
}

/**
 * The latest values written in the scope, each with the newest earlier version written outside it; values of a model
 * no longer loaded are left alone.
 */
async function candidatesOf(
  options: RunsRouteOptions,
  scope: RollbackScope,
  latest: readonly StoredAspect[],
): Promise<RollbackCandidate[]> {
  const candidates: RollbackCandidate[] = [];
  for (const row of latest) {
    const entityType = /^urn:li:([^:]+):/.exec(row.urn)?.[1] ?? '';
    const entity = options.registry.entity(entityType);
    const spec = entity?.aspect(row.aspect);
    if (entity === undefined || spec === undefined) continue; // a value of a model no longer loaded: left alone
    let survivor: StoredAspect | undefined;
    for (let version = row.version - 1; version >= 1 && survivor === undefined; version--) {
      const earlier = await options.store.getVersion(row.urn, row.aspect, version);
      if (earlier !== undefined && !writtenIn(scope, earlier.systemMetadata)) survivor = earlier;
    }
    candidates.push({ entityType: entity.name, latest: row, isKey: spec.isKey, survivor });
  }
  return candidates;
}
