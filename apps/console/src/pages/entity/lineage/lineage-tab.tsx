import { useCallback, useEffect, useId, useMemo, useState, type SyntheticEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { EmptyState, ErrorNotice, Loading } from '../../../ui/components';
import type { Expansion, LineageDirection, LineageRequest, ReachHops } from '../../../logic/lineage-graph';
import {
  readLineageState,
  resetLineageState,
  showMore,
  showMoreReach,
  toggleExpansion,
  withReach,
  writeLineageState,
  type LineageViewState,
} from '../../../logic/lineage-state';
import { entityPath } from '../../../logic/urn';
import { LineageCanvas } from './lineage-canvas';
import { LineageActionsContext, type LineageActions } from './lineage-controls';
import { LineageDetails } from './lineage-details';
import { LineageList } from './lineage-list';
import { useLineage } from './use-lineage';
import './lineage.css';

/**
 * The Lineage tab of an entity's page: its lineage as an interactive graph — upstream on the left, the entity in the
 * centre, downstream on the right — one hop each way at first; each entity expands hop by hop either way, or
 * everything at once to some hops; every edge known between the entities shown is drawn (every path among them);
 * columns show column-level lineage where fine-grained lineage exists; a mark on an entity says where a traversal
 * stopped at a limit, with what lifts it. The same graph reads as tables in the list view. Every choice is in the URL.
 */
export function LineageTab({ urn }: { readonly urn: string }) {
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const state = useMemo(() => readLineageState(params, urn), [params, urn]);
  // The graph depends on what is expanded, not on the selection or the view: it is rebuilt only when that changes.
  const requestKey = JSON.stringify([state.expansions, state.reach, state.columns]);
  const request = useMemo<LineageRequest>(() => {
    const [expansions, reach, columns] = JSON.parse(requestKey) as [
      Expansion[],
      LineageRequest['reach'] | null,
      boolean,
    ];
    return { center: urn, expansions, reach: reach ?? undefined, columns };
  }, [urn, requestKey]);
  const lineage = useLineage(request);
  const { graph } = lineage;

  const update = useCallback(
    (change: (current: LineageViewState) => LineageViewState, replace = false) => {
      setParams((current) => writeLineageState(change(readLineageState(current, urn)), current), {
        replace,
        preventScrollReset: true,
      });
    },
    [setParams, urn],
  );

  const actions = useMemo<LineageActions>(
    () => ({
      toggle: (target: string, direction: LineageDirection) => {
        update((current) => toggleExpansion(current, target, direction));
      },
      more: (target: string, direction: LineageDirection) => {
        update((current) => showMore(current, target, direction));
      },
      moreReach: () => {
        update(showMoreReach);
      },
      select: (target: string) => {
        update((current) => ({ ...current, selected: target }), true);
      },
      open: (target: string) => {
        void navigate(entityPath(target, 'lineage'));
      },
      selected: state.selected,
      hops: state.reach?.hops,
    }),
    [update, navigate, state.selected, state.reach?.hops],
  );

  const center = graph.nodes.find((node) => node.isCenter);
  const nothing =
    center !== undefined &&
    state.reach === undefined &&
    center.upstream.known === 0 &&
    center.downstream.known === 0 &&
    graph.nodes.length === 1;

  return (
    <LineageActionsContext.Provider value={actions}>
      <div className="lineage-tab">
        <h2 className="visually-hidden">Lineage</h2>
        <Toolbar state={state} update={update} onRefresh={lineage.refresh} />
        <p className="lineage-hint muted">
          Click an entity to see its details, double-click it for the lineage around it;{' '}
          <span aria-hidden="true">+</span> and <span aria-hidden="true">−</span> expand and collapse a side one hop. A
          yellow mark says where a traversal stopped at a limit.
        </p>
        <p className="lineage-status" role="status" aria-live="polite">
          {graph.nodes.length} {graph.nodes.length === 1 ? 'entity' : 'entities'}, {graph.edges.length}{' '}
          {graph.edges.length === 1 ? 'edge' : 'edges'}
          {state.columns
            ? `, ${graph.columnEdges.length} column ${graph.columnEdges.length === 1 ? 'edge' : 'edges'}`
            : ''}
          {lineage.loading ? ' · loading…' : ''}
        </p>
        {lineage.error === undefined ? null : <ErrorNotice error={lineage.error} retry={lineage.retry} />}
        {nothing ? (
          <EmptyState>
            <p>No lineage is recorded for {center.entity.name}: nothing upstream or downstream of it.</p>
          </EmptyState>
        ) : null}
        {center?.entity.partial === true && lineage.loading && graph.edges.length === 0 ? (
          <Loading what="Loading the lineage" />
        ) : state.view === 'list' ? (
          <LineageList graph={graph} columns={state.columns} />
        ) : (
          <div className="lineage-layout">
            <LineageCanvas graph={graph} columns={state.columns} />
            <LineageDetails
              graph={graph}
              selected={state.selected}
              columns={state.columns}
              onClose={() => {
                update((current) => ({ ...current, selected: undefined }), true);
              }}
            />
          </div>
        )}
      </div>
    </LineageActionsContext.Provider>
  );
}

function Toolbar({
  state,
  update,
  onRefresh,
}: {
  readonly state: LineageViewState;
  readonly update: (change: (current: LineageViewState) => LineageViewState, replace?: boolean) => void;
  readonly onRefresh: () => void;
}) {
  const id = useId();
  const [hops, setHops] = useState<ReachHops>(state.reach?.hops ?? 2);
  // Shown at once; the URL (which the graph follows) changes in a transition.
  const [columns, setColumns] = useState(state.columns);
  useEffect(() => {
    setColumns(state.columns);
  }, [state.columns]);
  const expandAll = (event: SyntheticEvent) => {
    event.preventDefault();
    update((current) => withReach(current, hops));
  };
  return (
    <div className="lineage-toolbar">
      <div className="lineage-view-switch" role="group" aria-label="Show the lineage as">
        <button
          type="button"
          className="button button-small"
          aria-pressed={state.view === 'graph'}
          onClick={() => {
            update((current) => ({ ...current, view: 'graph' }));
          }}
        >
          Graph
        </button>
        <button
          type="button"
          className="button button-small"
          aria-pressed={state.view === 'list'}
          onClick={() => {
            update((current) => ({ ...current, view: 'list' }));
          }}
        >
          List
        </button>
      </div>
      <label className="lineage-columns-toggle">
        <input
          type="checkbox"
          checked={columns}
          onChange={(event) => {
            const checked = event.target.checked;
            setColumns(checked);
            update((current) => ({ ...current, columns: checked }));
          }}
        />{' '}
        Columns
      </label>
      <form className="lineage-expand-all" onSubmit={expandAll}>
        <label htmlFor={`${id}-hops`}>Expand all to</label>
        <select
          id={`${id}-hops`}
          value={String(hops)}
          onChange={(event) => {
            setHops(event.target.value === 'all' ? 'all' : event.target.value === '1' ? 1 : 2);
          }}
        >
          <option value="1">1 hop</option>
          <option value="2">2 hops</option>
          <option value="all">every hop</option>
        </select>
        <button type="submit" className="button button-small">
          Expand all
        </button>
      </form>
      {state.reach === undefined ? null : (
        <button
          type="button"
          className="button button-small"
          onClick={() => {
            update((current) => withReach(current, undefined));
          }}
        >
          Hop by hop
        </button>
      )}
      <button
        type="button"
        className="button button-small"
        onClick={() => {
          update(resetLineageState);
        }}
      >
        Reset
      </button>
      <button type="button" className="button button-small button-quiet" onClick={onRefresh}>
        Refresh
      </button>
    </div>
  );
}
