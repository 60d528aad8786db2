import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { gqlOnce } from '../../../api/graphql';
import {
  buildLineageGraph,
  fetchKey,
  hopKey,
  reachKey,
  type FineGrainedEntry,
  type HopAnswer,
  type LineageAnswers,
  type LineageGraph,
  type LineageRequest,
  type ReachAnswer,
} from '../../../logic/lineage-graph';
import { lineageQueries, type LineageResults } from '../../../logic/lineage-query';

interface Store {
  readonly answers: LineageAnswers;
  /** Keys of the fetches under way. */
  readonly inflight: ReadonlySet<string>;
  /** Keys of the fetches that failed (not asked again until a retry), and the last failure. */
  readonly failed: ReadonlySet<string>;
  readonly error?: unknown;
}

const EMPTY: Store = {
  answers: { hops: new Map(), reaches: new Map(), fineGrained: new Map() },
  inflight: new Set(),
  failed: new Set(),
};

function merged(answers: LineageAnswers, results: LineageResults): LineageAnswers {
  const hops = new Map<string, HopAnswer>(answers.hops);
  for (const hop of results.hops) hops.set(hopKey(hop.urn, hop.direction, hop.start), hop);
  const reaches = new Map<string, ReachAnswer>(answers.reaches);
  for (const reach of results.reaches) reaches.set(reachKey(reach.direction, reach.hops, reach.start), reach);
  const fineGrained = new Map<string, readonly FineGrainedEntry[]>(answers.fineGrained);
  for (const [urn, entries] of results.fineGrained) fineGrained.set(urn, entries);
  return {
    ...answers,
    ...(results.center === undefined ? {} : { center: results.center }),
    hops,
    reaches,
    fineGrained,
  };
}

function without(keys: ReadonlySet<string>, removed: readonly string[]): Set<string> {
  const next = new Set(keys);
  for (const key of removed) next.delete(key);
  return next;
}

/**
 * The lineage graph of a request, fetching what it lacks: each time the request (the URL) asks something not yet
 * fetched — a first view, an expansion, a page more, "expand all", columns — one request asks all of it (more only when
 * a link names more than the server takes at once). Answers are kept, so collapsing and expanding again asks nothing.
 */
export function useLineage(request: LineageRequest): {
  readonly graph: LineageGraph;
  readonly loading: boolean;
  readonly error: unknown;
  readonly retry: () => void;
  readonly refresh: () => void;
} {
  const [store, setStore] = useState<Store>(EMPTY);
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);
  const graph = useMemo(() => buildLineageGraph(request, store.answers), [request, store.answers]);

  useEffect(() => {
    const todo = graph.missing.filter((fetch) => {
      const key = fetchKey(fetch);
      return !store.inflight.has(key) && !store.failed.has(key);
    });
    if (todo.length === 0) return;
    const keys = todo.map(fetchKey);
    setStore((current) => ({ ...current, inflight: new Set([...current.inflight, ...keys]) }));
    for (const query of lineageQueries(todo, request.center, request.columns)) {
      const queryKeys = query.fetches.map(fetchKey);
      gqlOnce<unknown>(query.query, query.variables).then(
        (data) => {
          if (!alive.current) return;
          const results = query.read(data);
          setStore((current) => ({
            ...current,
            answers: merged(current.answers, results),
            inflight: without(current.inflight, queryKeys),
          }));
        },
        (error: unknown) => {
          if (!alive.current) return;
          setStore((current) => ({
            ...current,
            inflight: without(current.inflight, queryKeys),
            failed: new Set([...current.failed, ...queryKeys]),
            error,
          }));
        },
      );
    }
  }, [graph.missing, store.inflight, store.failed, request.center, request.columns]);

  const retry = useCallback(() => {
    setStore((current) => ({ answers: current.answers, inflight: current.inflight, failed: new Set() }));
  }, []);
  const refresh = useCallback(() => {
    setStore(EMPTY);
  }, []);
  return {
    graph,
    loading: store.inflight.size > 0 || graph.missing.some((fetch) => !store.failed.has(fetchKey(fetch))),
    error: store.failed.size > 0 ? store.error : undefined,
    retry,
    refresh,
  };
}
