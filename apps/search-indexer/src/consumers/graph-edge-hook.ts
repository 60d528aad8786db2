/**
 * The graph hook: keeps the relationship edges (`GET /relationships`) from the versioned change logs. Each change
 * becomes one or two graph changes (`graphChangesOf`: an aspect's edges replaced, with the column-level lineage edges
 * it holds; or the entity's edges removed), and a batch's changes are applied in log order in one call. Idempotent:
 * an aspect's edges are replaced, never appended.
 */
import type { ChangeLogHook } from '@strata/change-log';
import type { GraphIndex } from '@strata/indices';
import { graphChangesOf } from '../domain/evolve';
import { aspectChangeOf } from './search-document-hook';

export function graphEdgeHook(graph: GraphIndex): ChangeLogHook {
  return {
    name: 'graph',
    consumes: ['versioned'],
    servesReads: true,
    apply: (events) => graph.apply(events.flatMap((event) => graphChangesOf(aspectChangeOf(event)))),
  };
}
