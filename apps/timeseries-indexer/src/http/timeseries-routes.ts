import { z } from 'zod';
import {
  BadRequestError,
  InvalidUrnError,
  NotFoundError,
  parseUrn,
  timeseriesAspectNamed,
  ValidationError,
  type EntityRegistry,
  type EntitySpec,
} from '@strata/model';
import { defineRoute, type Route, type RouteAccess } from '@strata/http';
import { filterSchema, formatTaskId, TIMESERIES_MAX_LIMIT, type TaskId, type TimeseriesIndex } from '@strata/indices';
import type { ChangeLogProcessor } from '@strata/change-log';

/** Reading an indexer's progress: DataHub's system operations privilege (checked with authentication on). */
const SYSTEM_OPERATIONS_ACCESS: RouteAccess = {
  kind: 'privilege',
  anyOf: [['MANAGE_SYSTEM_OPERATIONS']],
  message: '{actor} is not authorized for system operations.',
};

/** The default `limit` of getTimeseriesAspectValues (DataHub's at the interface's time). */
export const DEFAULT_TIMESERIES_LIMIT = 10_000;

const epochMillis = (name: string) =>
  z.number({ error: `${name} must be an integer (epoch milliseconds)` }).int(`${name} must be an integer`);

const valuesBody = z.object({
  urn: z.string({ error: 'urn must be a string' }),
  entity: z.string({ error: 'entity must be a string' }),
  aspect: z.string({ error: 'aspect must be a string' }),
  startTimeMillis: epochMillis('startTimeMillis').nullish(),
  endTimeMillis: epochMillis('endTimeMillis').nullish(),
  limit: z
    .number({ error: 'limit must be an integer' })
    .int('limit must be an integer')
    .min(0, 'limit must be ≥ 0')
    .max(TIMESERIES_MAX_LIMIT, `limit must be at most ${TIMESERIES_MAX_LIMIT}`)
    .nullish(),
  latestValue: z.boolean({ error: 'latestValue must be a boolean' }).nullish(),
  filter: filterSchema.nullish(),
  sort: z
    .object({ field: z.string().min(1), order: z.enum(['ASCENDING', 'DESCENDING']).default('DESCENDING') })
    .nullish(),
});

const indexRef = { entity: z.string().min(1), aspect: z.string().min(1) };

/**
 * The timeseries indexer's routes: `POST /aspects?action=getTimeseriesAspectValues`, its progress, and the internal
 * routes the operations service does index maintenance through (sizes, counts, truncation tasks and their status,
 * emptying the indices and the backlog for a rebuild).
 */
export function timeseriesRoutes(
  index: TimeseriesIndex,
  registry: EntityRegistry,
  indexer: Pick<ChangeLogProcessor, 'progress' | 'backlog'>,
): Route[] {
  return [
    defineRoute({
      method: 'POST',
      resource: '/aspects',
      action: 'getTimeseriesAspectValues',
      family: 'restli',
      access: {
        kind: 'resource',
        group: 'TIMESERIES',
        operations: ['READ'],
        resource: { in: 'body', name: 'urn' },
        message: 'User is unauthorized to get timeseries aspect for {resource}',
      },
      summary: 'Values of a timeseries aspect of one entity, newest first.',
      description:
        '`startTimeMillis` and `endTimeMillis` are both inclusive; `limit` defaults to 10000 (its maximum) and is echoed; ' +
        '`latestValue: true` answers the newest value alone. `filter` (OR of AND groups, as in search) narrows on the ' +
        "aspect's timeseries fields (`pipelineName`, `runId`, `partitionSpec.partition`…); `sort` orders by one field " +
        'instead. Each value is the aspect as a JSON string, with its system metadata.',
      body: valuesBody,
      example: {
        body: {
          urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)',
          entity: 'dataset',
          aspect: 'datasetProfile',
          startTimeMillis: 1_626_912_000_000,
          endTimeMillis: 1_627_000_000_000,
          limit: 100,
        },
      },
      handle: async ({ body }) => {
        const { entity, aspect } = timeseriesAspectNamed(registry, body.entity, body.aspect);
        checkUrn(body.urn, entity);
        const start = body.startTimeMillis ?? undefined;
        const end = body.endTimeMillis ?? undefined;
        if (start !== undefined && end !== undefined && start > end) {
          throw new BadRequestError(`startTimeMillis (${start}) is after endTimeMillis (${end})`);
        }
        const latest = body.latestValue === true;
        const limit = latest ? 1 : (body.limit ?? DEFAULT_TIMESERIES_LIMIT);
        const points = await asBadRequest(
          index.query({
            entity: entity.name,
            aspect: aspect.name,
            urn: body.urn,
            startTimeMillis: start,
            endTimeMillis: end,
            filter: body.filter ?? undefined,
            sort: body.sort ?? undefined,
            limit,
          }),
        );
        return {
          body: {
            value: {
              entityName: body.entity,
              aspectName: body.aspect,
              ...(start === undefined ? {} : { startTimeMillis: start }),
              ...(end === undefined ? {} : { endTimeMillis: end }),
              limit,
              values: points.map((point) => ({
                aspect: { value: point.value, contentType: 'application/json' },
                ...(point.systemMetadata === undefined
                  ? {}
                  : { systemMetadata: JSON.parse(point.systemMetadata) as unknown }),
              })),
            },
          },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      resource: '/openapi/operations/indices/timeseries/progress',
      family: 'openapi',
      access: SYSTEM_OPERATIONS_ACCESS,
      summary:
        "The timeseries indexer's progress: per input partition, the last change log applied and how far behind the log it is now (0 when nothing is pending); its backlog (per partition: the end of the log, its position, the change logs pending; and in all); counts of change logs applied and skipped.",
      handle: async () => ({ body: await indexer.progress() }),
    }),
    defineRoute({
      method: 'GET',
      resource: '/internal/timeseries-index/backlog',
      family: 'restli',
      access: { kind: 'internal' },
      summary:
        'The timeseries change logs the timeseries indexer has yet to apply: per input partition, the end of the log, its position and the difference; and in all.',
      handle: async () => ({ body: await indexer.backlog() }),
    }),
    defineRoute({
      method: 'GET',
      resource: '/internal/timeseries-index/sizes',
      family: 'restli',
      access: { kind: 'internal' },
      summary: 'Every timeseries index with its size on disk.',
      handle: async () => ({ body: { indices: await index.sizes() } }),
    }),
    defineRoute({
      method: 'POST',
      resource: '/internal/timeseries-index/count',
      family: 'restli',
      access: { kind: 'internal' },
      summary: 'How many points one timeseries index holds, all or up to a time (inclusive).',
      body: z.object({ ...indexRef, endTimeMillis: z.number().int().optional() }),
      handle: async ({ body }) => ({
        body: { count: await asBadRequest(index.count(body.entity, body.aspect, body.endTimeMillis)) },
      }),
    }),
    defineRoute({
      method: 'POST',
      resource: '/internal/timeseries-index/truncate',
      family: 'restli',
      access: { kind: 'internal' },
      summary: 'Start removing the points of one timeseries index up to a time (inclusive), as a task.',
      body: z.object({
        ...indexRef,
        endTimeMillis: z.number().int(),
        batchSize: z.number().int().min(1),
        timeoutSeconds: z.number().int().min(1).optional(),
      }),
      handle: async ({ body }) => ({
        body: { task: formatTaskId(await asBadRequest(index.startTruncation(body))) },
      }),
    }),
    defineRoute({
      method: 'POST',
      resource: '/internal/timeseries-index/clear',
      family: 'restli',
      access: { kind: 'internal' },
      summary: 'Remove every point of every timeseries index (a full rebuild replays them); tasks are kept.',
      handle: async () => {
        await index.clear();
        return { body: { cleared: true } };
      },
    }),
    defineRoute({
      method: 'GET',
      resource: '/internal/timeseries-index/task',
      family: 'restli',
      access: { kind: 'internal' },
      summary: 'The status of a task of the timeseries indices; 404 when there is no such task.',
      query: z.object({ task: z.string().regex(/^[a-zA-Z0-9_-]+:[0-9]+$/) }),
      handle: async ({ query }) => {
        const status = await index.taskStatus(parseTaskId(query.task));
        if (status === undefined) throw new NotFoundError(`No task ${query.task}`);
        return { body: status };
      },
    }),
  ];
}

function checkUrn(urn: string, entity: EntitySpec): void {
  let type: string;
  try {
    type = parseUrn(urn).entityType;
  } catch (error) {
    if (error instanceof InvalidUrnError) throw new BadRequestError(`Invalid urn: ${error.message}`);
    throw error;
  }
  if (type !== entity.name) throw new BadRequestError(`Urn ${urn} is not the urn of a ${entity.name}`);
}

function parseTaskId(task: string): TaskId {
  const separator = task.lastIndexOf(':');
  return { nodeId: task.slice(0, separator), number: Number(task.slice(separator + 1)) };
}

/** An index's refusal of a read (a malformed filter, an unknown index) is the client's mistake: a 400. */
async function asBadRequest<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ValidationError) throw new BadRequestError(error.message, { cause: error });
    throw error;
  }
}
