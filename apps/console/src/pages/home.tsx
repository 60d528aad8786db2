import type { ReactNode } from 'react';
import { entityTypeOfUrn } from '../logic/urn';
import { Link } from 'react-router';
import { useGql, type GqlRead } from '../api/graphql';
import { browseHref, platformNameOf } from '../logic/browse-path';
import { facetHref, facetValueLabel } from '../logic/search-state';
import { EmptyState, ErrorNotice, Loading, PageTitle, Time } from '../ui/components';
import { GlobalSearch } from '../ui/global-search';
import { EntityItem } from './search/entity-item';
import { extraTimeOf, nameOf, summaryOf } from './search/entity-summary';
import {
  HOME_COUNTS_QUERY,
  LAST_CHANGED_FIELD,
  RECENT_COUNT,
  RECENT_QUERY,
  recentTypesOf,
  recentVariablesOf,
  type AggregateAnswer,
  type FacetAnswer,
  type RecentAnswer,
} from './search/queries';
import './home.css';

/** The most types and platforms the home page counts (the server answers at most 60 values a facet). */
const MAX_COUNTS = 24;

/**
 * The home page: the search box, how many entities of each type and each platform the catalog holds (each count a
 * link to the search narrowed to it), and the entities changed last in the catalog. Two GraphQL requests, one per
 * section, so that each loads and fails on its own.
 */
export function Component() {
  const counts = useGql<AggregateAnswer>(HOME_COUNTS_QUERY);
  return (
    <div className="home">
      <div className="home-hero">
        <PageTitle title="Home">Find data in Strata</PageTitle>
        <GlobalSearch autoFocus large />
        <p className="home-hint muted">
          Search by name, description, column, tag or owner, or <Link to="/browse">browse by platform</Link>.
        </p>
      </div>
      <Counts read={counts} />
      <RecentlyChanged counts={counts} />
    </div>
  );
}

function Counts({ read }: { readonly read: GqlRead<AggregateAnswer> }) {
  const facets = read.data?.aggregateAcrossEntities?.facets ?? undefined;
  const body = (field: string, render: (facet: FacetAnswer) => ReactNode) => {
    if (read.error !== undefined) return <ErrorNotice error={read.error} retry={read.refetch} />;
    if (facets === undefined) return <Loading what="Counting" />;
    const facet = facets.find((candidate) => candidate.field === field);
    if (facet === undefined || facet.aggregations.length === 0) return <EmptyState>Nothing to count yet.</EmptyState>;
    return render(facet);
  };
  return (
    <div className="home-counts">
      <section aria-labelledby="home-types-heading" className="home-section">
        <h2 id="home-types-heading">By type</h2>
        {body('_entityType', (facet) => (
          <ul className="count-grid">
            {facet.aggregations.slice(0, MAX_COUNTS).map((aggregation) => (
              <li key={aggregation.value}>
                <Link className="count-card" data-testid="type-count" to={facetHref('_entityType', aggregation.value)}>
                  <span className="count-number">{aggregation.count.toLocaleString()}</span>
                  <span className="count-label">{facetValueLabel('_entityType', aggregation.value)}</span>
                </Link>
              </li>
            ))}
          </ul>
        ))}
      </section>
      <section aria-labelledby="home-platforms-heading" className="home-section">
        <h2 id="home-platforms-heading">By platform</h2>
        {body('platform', (facet) => (
          <ul className="count-grid">
            {facet.aggregations.slice(0, MAX_COUNTS).map((aggregation) => {
              const label = facetValueLabel(
                'platform',
                aggregation.value,
                aggregation.entity == null ? undefined : nameOf(aggregation.entity),
              );
              return (
                <li key={aggregation.value} className="count-card-with-browse">
                  <Link
                    className="count-card"
                    data-testid="platform-count"
                    to={facetHref('platform', aggregation.value)}
                  >
                    <span className="count-number">{aggregation.count.toLocaleString()}</span>
                    <span className="count-label">{label}</span>
                  </Link>
                  <Link
                    className="count-browse"
                    to={browseHref(platformNameOf(aggregation.value))}
                    aria-label={`Browse ${label}`}
                  >
                    Browse
                  </Link>
                </li>
              );
            })}
          </ul>
        ))}
      </section>
    </div>
  );
}

function RecentlyChanged({ counts }: { readonly counts: GqlRead<AggregateAnswer> }) {
  // The types come with the counts; should counting fail, every type is asked and columns are dropped here.
  const typeFacet = counts.data?.aggregateAcrossEntities?.facets?.find((facet) => facet.field === '_entityType');
  const typeValues =
    counts.data === undefined ? undefined : (typeFacet?.aggregations.map((aggregation) => aggregation.value) ?? []);
  const types = counts.error !== undefined ? undefined : recentTypesOf(typeValues);
  const waiting = counts.error === undefined && types === undefined;
  const nothing = types !== undefined && types.length === 0;
  const read = useGql<RecentAnswer>(RECENT_QUERY, recentVariablesOf(types), { pause: waiting || nothing });
  const answer = read.data?.searchAcrossEntities ?? undefined;
  // Entities without a change time come last in the sort (written before Strata kept one): they are left out.
  const dated = (answer?.searchResults ?? []).flatMap((result) => {
    const time = extraTimeOf(result.extraProperties, LAST_CHANGED_FIELD);
    const summary = summaryOf(result.entity);
    if (time === undefined || entityTypeOfUrn(summary.urn) === 'schemaField') return [];
    return [{ summary, time }];
  });
  let body: ReactNode;
  if (read.error !== undefined) body = <ErrorNotice error={read.error} retry={read.refetch} />;
  else if (nothing) body = <EmptyState>No entity has changed in this catalog yet.</EmptyState>;
  else if (answer === undefined) body = <Loading what="Loading recently changed entities" />;
  else if (dated.length === 0) {
    body = <EmptyState>No entity has changed in this catalog yet.</EmptyState>;
  } else {
    body = (
      <ol className="entity-list">
        {dated.map(({ summary, time }) => (
          <EntityItem
            key={summary.urn}
            summary={summary}
            testId="recent-entity"
            aside={
              <>
                Changed <Time millis={time} />
              </>
            }
          />
        ))}
      </ol>
    );
  }
  return (
    <section aria-labelledby="home-recent-heading" className="home-section">
      <h2 id="home-recent-heading">Recently changed</h2>
      <p className="muted home-section-note">
        The {RECENT_COUNT} entities changed last in this catalog (any aspect written, by anyone), latest first, with the
        time of that change. Every entity type is listed but columns, which a schema change touches by the dozen.
      </p>
      {body}
    </section>
  );
}
