import { useCallback, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useGql } from '../api/graphql';
import {
  filterChips,
  facetLabel,
  facetValueLabel,
  lastPage,
  PAGE_SIZE,
  parseSearchState,
  queryTerms,
  searchInputOf,
  searchParamsOf,
  SORT_LABELS,
  SORTS,
  withFilter,
  withoutFilters,
  withPage,
  withShowDeleted,
  withSort,
  type SearchState,
  type SortKey,
} from '../logic/search-state';
import { EmptyState, ErrorNotice, Loading, PageTitle, Pager } from '../ui/components';
import { EntityItem } from './search/entity-item';
import { summaryOf } from './search/entity-summary';
import { FacetPanel, facetValuesOf } from './search/facets';
import { SEARCH_QUERY, type SearchAnswer } from './search/queries';
import './search.css';

/**
 * Search (`/search?query=…`): results across every entity type from `searchAcrossEntities`, 20 a page, with facets to
 * narrow them, removable filter chips, a sort, and soft-deleted entities on request. The whole search is in the URL.
 * One GraphQL request per view: the page of results and the facets of every match.
 */
export function Component() {
  const [params, setParams] = useSearchParams();
  const current = params.toString();
  const fromUrl = useMemo(() => parseSearchState(params), [params]);
  // The router applies a URL change a moment later (a transition): until it does, the controls show what was asked,
  // so that a ticked box stays ticked. Once the URL moves on, it is the state again.
  const [asked, setAsked] = useState<{ readonly from: string; readonly state: SearchState } | undefined>(undefined);
  if (asked !== undefined && asked.from !== current) setAsked(undefined);
  const state = asked !== undefined && asked.from === current ? asked.state : fromUrl;
  const variables = useMemo(() => ({ input: searchInputOf(state) }), [state]);
  const read = useGql<SearchAnswer>(SEARCH_QUERY, variables);
  const resultsRef = useRef<HTMLElement>(null);
  const go = useCallback(
    (next: SearchState, options: { scroll?: boolean } = {}) => {
      setAsked({ from: current, state: next });
      setParams(searchParamsOf(next));
      if (options.scroll === true) {
        resultsRef.current?.scrollIntoView({ block: 'start' });
        resultsRef.current?.focus({ preventScroll: true });
      }
    },
    [current, setParams],
  );

  // While the next search loads, the last answer stays (dimmed), so that the facets and results do not vanish.
  const answer = useLastDefined(read.data?.searchAcrossEntities ?? undefined);
  const facets = useMemo(() => facetValuesOf(answer?.facets ?? [], state), [answer, state]);
  const terms = useMemo(() => queryTerms(state.query), [state.query]);
  const chips = filterChips(state);
  const labelOf = (field: string, value: string) =>
    facets.find((facet) => facet.field === field)?.values.find((item) => item.value === value)?.label ??
    facetValueLabel(field, value);

  const title = state.query === '' ? 'All entities' : `Search: ${state.query}`;
  return (
    <div className="search-page">
      <PageTitle title={title}>
        {state.query === '' ? (
          'All entities'
        ) : (
          <>
            Results for <q>{state.query}</q>
          </>
        )}
      </PageTitle>
      <div className="with-sidebar">
        <aside className="search-facets" aria-labelledby="search-filters-heading">
          <h2 id="search-filters-heading" className="search-section-heading">
            Filters
          </h2>
          {answer === undefined ? (
            read.error === undefined ? (
              <Loading what="Loading filters" />
            ) : null
          ) : (
            <FacetPanel
              facets={facets}
              onToggle={(field, value, on) => {
                go(withFilter(state, field, value, on));
              }}
            />
          )}
        </aside>
        <section
          className="search-results"
          aria-labelledby="search-results-heading"
          aria-busy={read.fetching}
          ref={resultsRef}
          tabIndex={-1}
        >
          <h2 id="search-results-heading" className="visually-hidden">
            Results
          </h2>
          <div className="search-toolbar">
            <p className="search-count" data-testid="result-count" aria-live="polite">
              {answer === undefined
                ? ''
                : `${answer.total.toLocaleString()} ${answer.total === 1 ? 'result' : 'results'}`}
            </p>
            <label className="search-option">
              <input
                type="checkbox"
                checked={state.showDeleted}
                onChange={(event) => {
                  go(withShowDeleted(state, event.target.checked));
                }}
              />
              Show deleted
            </label>
            <span className="search-option">
              <label htmlFor="search-sort">Sort by</label>
              <select
                id="search-sort"
                value={state.sort}
                onChange={(event) => {
                  go(withSort(state, event.target.value as SortKey));
                }}
              >
                {SORTS.map((sort) => (
                  <option key={sort} value={sort}>
                    {SORT_LABELS[sort]}
                  </option>
                ))}
              </select>
            </span>
          </div>
          {chips.length === 0 ? null : (
            <ul className="filter-chips" aria-label="Active filters">
              {chips.map((chip) => (
                <li key={`${chip.field}\u0000${chip.value}`} className="filter-chip">
                  <span>
                    <span className="muted">{facetLabel(chip.field)}:</span> {labelOf(chip.field, chip.value)}
                  </span>
                  <button
                    type="button"
                    className="filter-chip-remove"
                    aria-label={`Remove filter ${facetLabel(chip.field)}: ${labelOf(chip.field, chip.value)}`}
                    title="Remove this filter"
                    onClick={() => {
                      go(withFilter(state, chip.field, chip.value, false));
                    }}
                  >
                    ×
                  </button>
                </li>
              ))}
              {chips.length > 1 ? (
                <li>
                  <button
                    type="button"
                    className="button button-quiet button-small"
                    onClick={() => {
                      go(withoutFilters(state));
                    }}
                  >
                    Clear all filters
                  </button>
                </li>
              ) : null}
            </ul>
          )}
          <Results
            state={state}
            answer={answer}
            error={read.error}
            fetching={read.fetching}
            retry={read.refetch}
            terms={terms}
            go={go}
          />
        </section>
      </div>
    </div>
  );
}

function Results({
  state,
  answer,
  error,
  fetching,
  retry,
  terms,
  go,
}: {
  readonly state: SearchState;
  readonly answer: NonNullable<SearchAnswer['searchAcrossEntities']> | undefined;
  readonly error: unknown;
  readonly fetching: boolean;
  readonly retry: () => void;
  readonly terms: readonly string[];
  readonly go: (next: SearchState, options?: { scroll?: boolean }) => void;
}) {
  if (error !== undefined) {
    return (
      <>
        <ErrorNotice error={error} retry={retry} />
        {state.sort === 'relevance' ? null : (
          <p>
            <button
              type="button"
              className="button"
              onClick={() => {
                go(withSort(state, 'relevance'));
              }}
            >
              Sort by relevance instead
            </button>
          </p>
        )}
      </>
    );
  }
  if (answer === undefined) return fetching ? <Loading what="Searching" /> : null;
  const start = (state.page - 1) * PAGE_SIZE;
  if (answer.searchResults.length === 0) {
    if (answer.total > 0) {
      return (
        <EmptyState>
          <p>This page is past the last one.</p>
          <button
            type="button"
            className="button"
            onClick={() => {
              go(withPage(state, 1));
            }}
          >
            Go to the first page
          </button>
        </EmptyState>
      );
    }
    return (
      <EmptyState>
        <p>
          No entity matches
          {state.query === '' ? (
            ''
          ) : (
            <>
              {' '}
              <q>{state.query}</q>
            </>
          )}
          .
        </p>
        {Object.keys(state.filters).length > 0 ? (
          <button
            type="button"
            className="button"
            onClick={() => {
              go(withoutFilters(state));
            }}
          >
            Search without filters
          </button>
        ) : null}
        {state.showDeleted ? null : (
          <p className="muted">Soft-deleted entities are hidden: tick “Show deleted” to include them.</p>
        )}
      </EmptyState>
    );
  }
  return (
    <>
      <ol className="entity-list" start={start + 1}>
        {answer.searchResults.map((result) => {
          const summary = summaryOf(result.entity);
          return (
            <EntityItem
              key={summary.urn}
              summary={summary}
              terms={terms}
              matchedFields={result.matchedFields}
              testId="search-result"
            />
          );
        })}
      </ol>
      <Pager
        start={start}
        count={PAGE_SIZE}
        total={Math.min(answer.total, lastPage(answer.total) * PAGE_SIZE)}
        onPage={(next) => {
          go(withPage(state, next / PAGE_SIZE + 1), { scroll: true });
        }}
      />
      {answer.total > lastPage(answer.total) * PAGE_SIZE ? (
        <p className="muted">
          Only the first {(lastPage(answer.total) * PAGE_SIZE).toLocaleString()} results can be paged: narrow the search
          to see the rest.
        </p>
      ) : null}
    </>
  );
}

/** The value, or while it is undefined (loading again), the last defined value it had. */
function useLastDefined<T>(value: T | undefined): T | undefined {
  const [last, setLast] = useState(value);
  if (value !== undefined && value !== last) setLast(value);
  return value ?? last;
}
