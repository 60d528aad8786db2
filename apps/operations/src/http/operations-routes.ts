import { z } from 'zod';
import { defineRoute, type RequestContext, type Route, type RouteCaller } from '@strata/http';
import { BadRequestError, NotFoundError, timeseriesAspectNamed, type EntityRegistry } from '@strata/model';
import type { IndexRebuilds } from '../tasks/index-rebuild';
import {
  checkForceFlags,
  restoreValue,
  taskOf,
  taskStatusValue,
  truncationSummary,
  type TaskReport,
} from '../domain/operations-answers';

/** The paths the operations answer under: DataHub's own, its Cloud docs' and its frontend proxy's. */
export const OPERATIONS_RESOURCES = ['/operations', '/gms/operations', '/api/gms/operations'] as const;

/** The default rows per delete batch of a truncation (the interface's). */
export const DEFAULT_TRUNCATION_BATCH = 10_000;
/** The default rows one restoreIndices call restores (the interface's). */
export const DEFAULT_RESTORE_BATCH = 10;
/** The most rows one restoreIndices call restores. */
export const MAX_RESTORE_BATCH = 100_000;

export interface OperationsRouteOptions {
  readonly registry: EntityRegistry;
  /** Calls the routes of the services that own the work: the writer and the indexers. */
  readonly call: RouteCaller;
  readonly now: () => number;
  readonly rebuilds: IndexRebuilds;
}

const truncateBody = z.object({
  entityType: z.string({ error: 'entityType must be a string' }).min(1, 'entityType must not be empty'),
  aspect: z.string({ error: 'aspect must be a string' }).min(1, 'aspect must not be empty'),
  endTimeMillis: z.number({ error: 'endTimeMillis must be an integer (epoch milliseconds)' }).int(),
  dryRun: z.boolean({ error: 'dryRun must be a boolean' }).default(true),
  batchSize: z.number({ error: 'batchSize must be an integer' }).int().min(1).max(10_000).optional(),
  timeoutSeconds: z.number({ error: 'timeoutSeconds must be an integer' }).int().min(1).optional(),
  forceDeleteByQuery: z.boolean().optional(),
  forceReindex: z.boolean().optional(),
});

const taskStatusBody = z.object({
  nodeId: z.string({ error: 'nodeId must be a string' }).optional(),
  taskId: z.number({ error: 'taskId must be an integer' }).int().optional(),
  task: z.string({ error: 'task must be a string' }).optional(),
});

const restoreBody = z.object({
  urn: z.string({ error: 'urn must be a string' }).min(1).optional(),
  aspect: z.string({ error: 'aspect must be a string' }).min(1).optional(),
  urnLike: z.string({ error: 'urnLike must be a string' }).min(1).optional(),
  start: z.number({ error: 'start must be an integer' }).int().min(0, 'start must be ≥ 0').default(0),
  batchSize: z
    .number({ error: 'batchSize must be an integer' })
    .int()
    .min(1, 'batchSize must be ≥ 1')
    .max(MAX_RESTORE_BATCH, `batchSize must be at most ${MAX_RESTORE_BATCH}`)
    .default(DEFAULT_RESTORE_BATCH),
  limit: z.number({ error: 'limit must be an integer' }).int().min(0).optional(),
  gePitEpochMs: z.number({ error: 'gePitEpochMs must be epoch milliseconds' }).int().optional(),
  lePitEpochMs: z.number({ error: 'lePitEpochMs must be epoch milliseconds' }).int().optional(),
});

interface IndexSize {
  readonly indexName: string;
  readonly entity: string;
  readonly aspect: string;
  readonly bytes: number;
}

/**
 * The operations: getIndexSizes, truncateTimeseriesAspect, getEsTaskStatus and restoreIndices under each of
 * {@link OPERATIONS_RESOURCES}, and restoreIndices under `/aspects` too. Each is done by the service owning the data:
 * sizes, counts and truncation tasks by the timeseries indexer, the durable points and the restore by the writer.
 * Their privileges are checked in front of them (the gateway's route guard).
 */
export function operationsRoutes(options: OperationsRouteOptions): Route[] {
  const routes = OPERATIONS_RESOURCES.flatMap((resource) => [
    indexSizesRoute(options, resource),
    truncateRoute(options, resource),
    taskStatusRoute(options, resource),
    restoreRoute(options, resource),
    rebuildRoute(options, resource),
  ]);
  return [...routes, restoreRoute(options, '/aspects')];
}

function indexSizesRoute({ call }: OperationsRouteOptions, resource: string): Route {
  return defineRoute({
    method: 'POST',
    resource,
    action: 'getIndexSizes',
    family: 'restli',
    access: {
      kind: 'privilege',
      anyOf: [['GET_TIMESERIES_INDEX_SIZES_PRIVILEGE'], ['MANAGE_SYSTEM_OPERATIONS']],
      message: 'User is unauthorized to get index sizes.',
      always: true,
    },
    summary: 'Sizes of the timeseries indices.',
    description:
      'One record per timeseries index: `indexName`, `entityName` and `aspectName` (lowercase, as in the index name) ' +
      'and its size in megabytes (10^6 bytes, primary copy) as `sizeInMb` and `sizeMb`.',
    handle: async ({ context }) => {
      const { indices } = (await call({ method: 'GET', resource: '/internal/timeseries-index/sizes' }, context)) as {
        indices: readonly IndexSize[];
      };
      return {
        body: {
          value: {
            indexSizes: indices.map((index) => {
              const megabytes = index.bytes / 1_000_000;
              return {
                indexName: index.indexName,
                entityName: index.entity.toLowerCase(),
                aspectName: index.aspect.toLowerCase(),
                sizeInMb: megabytes,
                sizeMb: megabytes,
              };
            }),
          },
        },
      };
    },
  });
}

function truncateRoute({ call, registry }: OperationsRouteOptions, resource: string): Route {
  return defineRoute({
    method: 'POST',
    resource,
    action: 'truncateTimeseriesAspect',
    family: 'restli',
    access: {
      kind: 'privilege',
      anyOf: [['TRUNCATE_TIMESERIES_INDEX_PRIVILEGE']],
      message: 'User is unauthorized to truncate timeseries index',
      always: true,
    },
    summary: 'Remove the points of a timeseries aspect up to a time (inclusive); a dry run by default.',
    description:
      "A dry run (the default) reports how many points would go, in DataHub's words. `dryRun: false` removes them " +
      "from the primary store's durable copy (so that no restore brings them back), then starts a task removing them " +
      'from the index in batches of `batchSize` (default 10000), and answers its id `<nodeId>:<taskId>` for ' +
      'getEsTaskStatus. Entity type and aspect are accepted in any case.',
    body: truncateBody,
    example: { body: { entityType: 'dataset', aspect: 'datasetusagestatistics', endTimeMillis: 1_700_000_000_000 } },
    handle: async ({ body, context }) => {
      checkForceFlags(body);
      const { entity, aspect } = timeseriesAspectNamed(registry, body.entityType, body.aspect);
      const count = async (endTimeMillis?: number) =>
        (
          (await call(
            {
              method: 'POST',
              resource: '/internal/timeseries-index/count',
              body: { entity: entity.name, aspect: aspect.name, endTimeMillis },
            },
            context,
          )) as { count: number }
        ).count;
      if (body.dryRun) {
        const counts = { toDelete: await count(body.endTimeMillis), total: await count() };
        return { body: { value: truncationSummary(counts, body) } };
      }
      const batchSize = body.batchSize ?? DEFAULT_TRUNCATION_BATCH;
      // The durable copy first: once the index task starts, no restore can bring the points back.
      await call(
        {
          method: 'POST',
          resource: '/internal/timeseries/truncate',
          body: { entityType: entity.name, aspect: aspect.name, endTimeMillis: body.endTimeMillis, batchSize },
        },
        context,
      );
      const { task } = (await call(
        {
          method: 'POST',
          resource: '/internal/timeseries-index/truncate',
          body: {
            entity: entity.name,
            aspect: aspect.name,
            endTimeMillis: body.endTimeMillis,
            batchSize,
            timeoutSeconds: body.timeoutSeconds,
          },
        },
        context,
      )) as { task: string };
      return { body: { value: task } };
    },
  });
}

function taskStatusRoute({ call, rebuilds }: OperationsRouteOptions, resource: string): Route {
  return defineRoute({
    method: 'POST',
    resource,
    action: 'getEsTaskStatus',
    family: 'restli',
    access: {
      kind: 'privilege',
      anyOf: [['GET_ES_TASK_STATUS_PRIVILEGE'], ['MANAGE_SYSTEM_OPERATIONS']],
      message: 'User is unauthorized to get ES task status',
      always: true,
    },
    summary: 'The status of an index task (a truncation), by `task` (`<nodeId>:<taskId>`) or by `nodeId` and `taskId`.',
    body: taskStatusBody,
    example: { body: { task: 'aB1cdEf2GHIJKLMnoPQr3S:123456' } },
    handle: async ({ body, context }) => {
      const task = taskOf(body);
      const report = rebuilds.report(task) ?? (await taskReport(call, `${task.nodeId}:${task.number}`, context));
      return { body: { value: taskStatusValue(task, report) } };
    },
  });
}

function restoreRoute({ call, now }: OperationsRouteOptions, resource: string): Route {
  return defineRoute({
    method: 'POST',
    resource,
    action: 'restoreIndices',
    family: 'restli',
    access: {
      kind: 'privilege',
      anyOf: [['RESTORE_INDICES_PRIVILEGE']],
      message:
        resource === '/aspects'
          ? 'User is unauthorized to update entities.'
          : 'User is unauthorized to restore indices.',
      always: true,
    },
    summary: 'Rebuild the indices of stored rows: replay them as RESTATE change logs.',
    description:
      'Replays the latest value of each matching aspect (then each durable timeseries point), in (urn, aspect) order, ' +
      'from row `start`, `batchSize` rows (default 10) at most, with its original audit stamp and system metadata: ' +
      'every index consuming the change logs rebuilds itself from them. `gePitEpochMs` and `lePitEpochMs` keep the ' +
      'rows written (their `createdOn`) at or after, and at or before, those times; a bound of 0 or less, or none, ' +
      'is open, as in DataHub. `urnLike` is SQL LIKE when it holds `%` ' +
      '(`%` any run of characters, `_` one), otherwise a regular expression (RE2) matching the whole URN. The answer ' +
      'reports the rows restored, the time taken, and `nextStart`/`complete`: where to continue.',
    body: restoreBody,
    example: { body: { urnLike: 'urn:li:dataset:(urn:li:dataPlatform:hive,%', batchSize: 1000 } },
    handle: async ({ body, context }) => {
      const started = now();
      const rows = body.limit !== undefined && body.limit > 0 ? Math.min(body.limit, body.batchSize) : body.batchSize;
      const window = pitWindowOf(body);
      const outcome = (await call(
        {
          method: 'POST',
          resource: '/internal/restate',
          body: {
            urn: body.urn,
            aspect: body.aspect,
            urnLike: body.urnLike,
            start: body.start,
            limit: rows,
            ...window,
          },
        },
        context,
      )) as {
        rows: number;
        ignored: number;
        last: { urn: string; aspect: string } | undefined;
        exhausted: boolean;
        readMs: number;
        publishMs: number;
      };
      const args = {
        urn: body.urn,
        aspect: body.aspect,
        urnLike: body.urnLike,
        start: body.start,
        batchSize: body.batchSize,
      };
      return { body: { value: restoreValue({ ...args, ...window }, { ...outcome, tookMs: now() - started }) } };
    },
  });
}

/**
 * The write-time window of a restore, as DataHub applies it: a bound of 0 or less is unset (its default), so only a
 * positive bound narrows; a window ending before it starts is refused rather than answered with nothing.
 */
function pitWindowOf(body: { gePitEpochMs?: number | undefined; lePitEpochMs?: number | undefined }): {
  gePitEpochMs?: number;
  lePitEpochMs?: number;
} {
  const ge = body.gePitEpochMs !== undefined && body.gePitEpochMs > 0 ? body.gePitEpochMs : undefined;
  const le = body.lePitEpochMs !== undefined && body.lePitEpochMs > 0 ? body.lePitEpochMs : undefined;
  if (ge !== undefined && le !== undefined && ge > le) {
    throw new BadRequestError(`gePitEpochMs (${ge}) is after lePitEpochMs (${le}): no row can be written in between`);
  }
  return { ...(ge === undefined ? {} : { gePitEpochMs: ge }), ...(le === undefined ? {} : { lePitEpochMs: le }) };
}

function rebuildRoute({ rebuilds }: OperationsRouteOptions, resource: string): Route {
  return defineRoute({
    method: 'POST',
    resource,
    action: 'rebuildIndices',
    family: 'restli',
    access: {
      kind: 'privilege',
      anyOf: [['RESTORE_INDICES_PRIVILEGE']],
      message: 'User is unauthorized to restore indices.',
      always: true,
    },
    summary: 'Rebuild every index from the primary store, as a task (Strata’s own operation).',
    description:
      'Empties the search, relationship and timeseries indices, then replays every row of the primary store as ' +
      'RESTATE change logs, so that the indices hold exactly what the store backs, and waits until the indexers have ' +
      'applied them. Answers the task id at once; getEsTaskStatus reports its progress (`phase`: `counting`, ' +
      '`clearing`, `restating`, `indexing`, `done`; `total` rows, `created` rows replayed, `rows_per_second`; ' +
      '`change_logs_to_index`, `change_logs_pending` and `change_logs_per_second` while the indexers catch up; ' +
      '`eta_millis` of the phase in progress), as do the `strata_rebuild_*` metrics. It is `completed` once every ' +
      'index has applied the replay. Reads see the indices filling back until then.',
    handle: ({ context }) => {
      const task = rebuilds.start(context);
      return Promise.resolve({ body: { value: `${task.nodeId}:${task.number}` } });
    },
  });
}

/** The task's report from the owner of its index; undefined when no owner knows it. */
async function taskReport(call: RouteCaller, task: string, context: RequestContext): Promise<TaskReport | undefined> {
  try {
    return (await call(
      { method: 'GET', resource: '/internal/timeseries-index/task', query: { task } },
      context,
    )) as TaskReport;
  } catch (error) {
    if (error instanceof NotFoundError || error instanceof BadRequestError) return undefined;
    throw error;
  }
}
