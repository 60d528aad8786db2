import { z } from 'zod';
import { defineRoute, type Route } from '@strata/http';
import { BadRequestError, InvalidUrnError, parseUrn, type EntityRegistry } from '@strata/model';
import { originHeaders, RecordHeader, type EventSerde, type TopicNames } from '@strata/events';
import type { AspectStore, OutboxRecord, RestatedRow, RowCursor } from '@strata/store';
import { TimeSlice } from '@strata/timing';
import { changeLogRecordOf } from '../consumers/change-log-records';
import type { OutboxRelay } from '../consumers/outbox-relay';
import { compileUrnPattern } from '../domain/urn-pattern';

export interface RestoreRouteOptions {
  readonly store: AspectStore;
  readonly registry: EntityRegistry;
  readonly serde: EventSerde;
  readonly topics: TopicNames;
  readonly relay: OutboxRelay;
  readonly now: () => number;
}

/** Rows one store transaction restates: large enough to amortize it, small enough to hold the store briefly. */
const ROWS_PER_TRANSACTION = 500;
/**
 * Rows one store transaction reads, matching or not (`scanLimit`): a narrow `urnLike` or `aspect` may match few of
 * the rows walked, and the embedded store reads synchronously, so without it one page could walk the whole store
 * without giving the event loop a turn. About 10 ms of reading with SQLite, under the event-loop slice.
 */
export const ROWS_READ_PER_TRANSACTION = 2_000;
/** The most rows one call restates. */
export const MAX_RESTATE_ROWS = 100_000;
/** Continuations remembered (see `restoreRoutes`). */
const MAX_CONTINUATIONS = 64;

const cursor = z.object({
  source: z.enum(['latest', 'timeseries']),
  urn: z.string(),
  aspect: z.string(),
  id: z.string(),
});

const restateBody = z.object({
  urn: z.string().min(1).optional(),
  aspect: z.string().min(1).optional(),
  urnLike: z.string().min(1).optional(),
  start: z.number().int().min(0).optional(),
  after: cursor.optional(),
  limit: z.number().int().min(1).max(MAX_RESTATE_ROWS),
  /** Only rows written at or after this time (their `createdOn`), epoch milliseconds. */
  gePitEpochMs: z.number().int().optional(),
  /** Only rows written at or before this time (their `createdOn`), epoch milliseconds. */
  lePitEpochMs: z.number().int().optional(),
});

/** What a restate call did: the operations service turns it into restoreIndices' answer. */
export interface RestateResult {
  /** Rows restated (each one change log). */
  readonly rows: number;
  /** Matching rows passed over to honour `start`. */
  readonly skipped: number;
  /** Rows of aspects or entity types the registry no longer has: left out. */
  readonly ignored: number;
  /** The last row restated or passed over: resume after it. */
  readonly last: RowCursor | undefined;
  /** True when no matching row is left after `last`. */
  readonly exhausted: boolean;
  /** Time reading the store and appending the change logs, then publishing them, in milliseconds. */
  readonly readMs: number;
  readonly publishMs: number;
  /**
   * True when every change log of this call is on the log as it answers; false when the log refused them: they wait
   * in the outbox, which the relay keeps publishing in the background (a later call tells whether it got through).
   */
  readonly published: boolean;
}

/**
 * The writer's part of restoring the indices: `POST /internal/restate` replays the latest rows of the primary store
 * (every versioned aspect's version 0, then every durable timeseries point) as RESTATE change logs carrying each row's
 * original `created` stamp and system metadata, so that every index consuming the change logs rebuilds itself from
 * them; `POST /internal/timeseries/truncate` removes durable timeseries points, so that a truncation stays truncated
 * after a restore. The operations service calls both on behalf of its callers.
 */
export function restoreRoutes(options: RestoreRouteOptions): Route[] {
  // Where each recent call ended, by the request that would continue it (same selection, `start` at the call's end):
  // a restore driven page after page by `start` resumes right after the last row restated instead of passing over
  // every row before it again, and a row written meanwhile before that point does not shift the pages.
  const continuations = new Map<string, RowCursor>();
  const continuationOf = (body: z.infer<typeof restateBody>, start: number) =>
    JSON.stringify([
      body.urn ?? null,
      body.aspect ?? null,
      body.urnLike ?? null,
      body.gePitEpochMs ?? null,
      body.lePitEpochMs ?? null,
      start,
    ]);
  return [
    defineRoute({
      method: 'POST',
      resource: '/internal/restate',
      family: 'restli',
      access: { kind: 'internal' },
      summary: 'Replay rows of the primary store as RESTATE change logs, for the indices to rebuild from.',
      body: restateBody,
      handle: async ({ body, context }) => {
        const pattern = body.urnLike === undefined ? undefined : compileUrnPattern(body.urnLike);
        if (body.urn !== undefined) checkUrn(body.urn);
        if (body.aspect !== undefined) checkAspect(options.registry, body.aspect);
        const headers = originHeaders(context);
        const result: Mutable<RestateResult> = {
          rows: 0,
          skipped: 0,
          ignored: 0,
          last: body.after,
          exhausted: false,
          readMs: 0,
          publishMs: 0,
          published: false,
        };
        const slice = new TimeSlice();
        const start = body.start ?? 0;
        const resumed =
          body.after === undefined && start > 0 ? continuations.get(continuationOf(body, start)) : undefined;
        let skip = resumed === undefined ? start : 0;
        if (resumed !== undefined) {
          result.last = resumed;
          result.skipped = start;
        }
        const readStarted = options.now();
        while (result.rows < body.limit && !result.exhausted) {
          const page = await options.store.restate(
            {
              urn: body.urn,
              aspects: body.aspect === undefined ? undefined : [body.aspect],
              urnPrefix: pattern?.prefix,
              urnMatches: pattern?.matches,
              createdOn: { fromMillis: body.gePitEpochMs, untilMillis: body.lePitEpochMs },
              after: result.last,
              skip,
              limit: Math.min(ROWS_PER_TRANSACTION, body.limit - result.rows),
              scanLimit: ROWS_READ_PER_TRANSACTION,
            },
            (rows) => {
              const records = rows.flatMap((row) => restatedRecord(options, row, headers) ?? []);
              result.ignored += rows.length - records.length;
              return records;
            },
          );
          // A page that ended at its scan limit may have passed over only some of the rows to skip.
          skip -= page.skipped;
          result.rows += page.rows;
          result.skipped += page.skipped;
          result.last = page.last ?? result.last;
          result.exhausted = page.exhausted;
          await slice.pause();
        }
        result.readMs = options.now() - readStarted;
        if (result.last !== undefined && body.after === undefined) {
          continuations.set(continuationOf(body, start + result.rows), result.last);
          if (continuations.size > MAX_CONTINUATIONS) continuations.delete(continuations.keys().next().value ?? '');
        }
        const publishStarted = options.now();
        result.published = await options.relay.flush();
        result.publishMs = options.now() - publishStarted;
        return { body: result };
      },
    }),
    defineRoute({
      method: 'GET',
      resource: '/internal/restate/count',
      family: 'restli',
      access: { kind: 'internal' },
      summary: 'How many rows a restore of everything replays: latest versioned values and timeseries points.',
      handle: async () => ({ body: await options.store.countRows() }),
    }),
    defineRoute({
      method: 'POST',
      resource: '/internal/timeseries/truncate',
      family: 'restli',
      access: { kind: 'internal' },
      summary: 'Remove the durable timeseries points of one aspect of one entity type up to a time (inclusive).',
      body: z.object({
        entityType: z.string().min(1),
        aspect: z.string().min(1),
        endTimeMillis: z.number().int(),
        batchSize: z.number().int().min(1).max(100_000).default(10_000),
      }),
      handle: async ({ body }) => {
        const slice = new TimeSlice();
        let deleted = 0;
        for (;;) {
          const removed = await options.store.truncateTimeseries({
            urnPrefix: `urn:li:${body.entityType}:`,
            aspect: body.aspect,
            endTimeMillis: body.endTimeMillis,
            limit: body.batchSize,
          });
          deleted += removed;
          if (removed < body.batchSize) break;
          await slice.pause();
        }
        return { body: { deleted } };
      },
    }),
  ];
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The RESTATE change log of a stored row; undefined for a row of a model the registry no longer has. */
function restatedRecord(
  options: RestoreRouteOptions,
  restated: RestatedRow,
  headers: Readonly<Record<string, string>>,
): OutboxRecord | undefined {
  const { row } = restated;
  const entity = options.registry.entity(entityTypeOf(row.urn));
  const aspect = entity?.aspect(row.aspect);
  if (entity === undefined || aspect === undefined) return undefined;
  const id = restated.source === 'latest' ? `${row.urn}/${row.aspect}` : `${row.urn}/${row.aspect}/${restated.row.id}`;
  return changeLogRecordOf(
    options,
    {
      timeseries: restated.source === 'timeseries',
      entityType: entity.name,
      entityUrn: row.urn,
      changeType: 'RESTATE',
      aspectName: aspect.name,
      aspect: row.value,
      systemMetadata: row.systemMetadata,
      previousAspectValue: undefined,
      previousSystemMetadata: undefined,
      created: { time: row.createdOn, actor: row.createdBy },
      headers: {},
    },
    { ...headers, [RecordHeader.changeId]: `restate/${headers[RecordHeader.requestId] ?? ''}/${id}` },
  );
}

function entityTypeOf(urn: string): string {
  return /^urn:li:([^:]+):/.exec(urn)?.[1] ?? '';
}

function checkUrn(urn: string): void {
  try {
    parseUrn(urn);
  } catch (error) {
    if (error instanceof InvalidUrnError) throw new BadRequestError(`Invalid urn: ${error.message}`);
    throw error;
  }
}

function checkAspect(registry: EntityRegistry, aspect: string): void {
  if (!registry.entities().some((entity) => entity.aspect(aspect) !== undefined)) {
    throw new BadRequestError(`Unknown aspect ${aspect}: no entity type of the registry has it`);
  }
}
