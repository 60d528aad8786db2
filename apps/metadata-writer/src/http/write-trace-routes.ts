import { z } from 'zod';
import { defineRoute, type Route } from '@strata/http';
import type { AspectStore, StoredAspect, WriteTrace } from '@strata/store';

/** Most (urn, aspect) one question may name. */
const MAX_KEYS = 10_000;

/**
 * What the writer knows of one (urn, aspect) of a trace: nothing yet (`seen: false`: not yet applied, or never sent
 * under this trace), or its write trace and whether the value it wrote is still the latest.
 */
export type WriteTraceAnswer =
  | { readonly urn: string; readonly aspect: string; readonly seen: false }
  | {
      readonly urn: string;
      readonly aspect: string;
      readonly seen: true;
      readonly status: WriteTrace['status'];
      readonly version: number | null;
      readonly errorCode: string | null;
      readonly error: string | null;
      /**
       * For an applied write: whether the store still holds what it left — the version it wrote is the latest (an
       * applied delete: the aspect is still absent). False once a later write replaced it.
       */
      readonly current: boolean;
      readonly changeLogged: boolean;
      readonly publishedBefore: WriteTrace['publishedBefore'];
    };

/**
 * `POST /internal/write-traces`: what the writer recorded of the writes of a trace, per (urn, aspect), and whether each
 * applied value is still the latest — the primary-storage half of DataHub's trace API, which the gateway composes
 * with the search indexer's progress. Straight from the store (write traces are committed with the writes they
 * describe), so an answer never says more than a read would show.
 */
export function writeTraceRoutes(store: AspectStore): Route[] {
  return [
    defineRoute({
      method: 'POST',
      resource: '/internal/write-traces',
      family: 'openapi',
      access: { kind: 'internal' },
      summary: 'What became of the writes of a trace, per (urn, aspect).',
      body: z.object({
        traceId: z.string().min(1),
        keys: z.array(z.object({ urn: z.string().min(1), aspect: z.string().min(1) })).max(MAX_KEYS),
      }),
      handle: async ({ body }) => {
        const traces = await store.findWriteTraces(body.traceId, body.keys);
        const byKey = new Map(traces.map((trace) => [keyOf(trace.urn, trace.aspect), trace]));
        const latest = new Map(
          (await store.getLatest(traces.filter((trace) => trace.status === 'APPLIED'))).map((row) => [
            keyOf(row.urn, row.aspect),
            row,
          ]),
        );
        const answers: WriteTraceAnswer[] = body.keys.map(({ urn, aspect }) => {
          const trace = byKey.get(keyOf(urn, aspect));
          if (trace === undefined) return { urn, aspect, seen: false };
          return {
            urn,
            aspect,
            seen: true,
            status: trace.status,
            version: trace.version,
            errorCode: trace.errorCode,
            error: trace.error,
            current: trace.status === 'APPLIED' && isCurrent(trace, latest.get(keyOf(urn, aspect))),
            changeLogged: trace.changeLogged,
            publishedBefore: trace.publishedBefore,
          };
        });
        return { body: { traces: answers } };
      },
    }),
  ];
}

/**
 * Whether the latest stored value is the one an applied write left: the same ordinal written at the same time (an
 * entity deleted and written again reuses ordinals). A write that left no version stays current as a timeseries value
 * (values at other times do not replace it) and, as a delete, while the aspect is still absent.
 */
export function isCurrent(trace: WriteTrace, latest: StoredAspect | undefined): boolean {
  if (trace.version === null) return latest === undefined || !trace.changeLogged;
  return latest !== undefined && latest.version === trace.version && latest.createdOn === trace.createdOn;
}

function keyOf(urn: string, aspect: string): string {
  return JSON.stringify([urn, aspect]);
}
