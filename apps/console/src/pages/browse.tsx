import { useMemo } from 'react';
import { Link, useLocation, useSearchParams } from 'react-router';
import { describeFailure } from '../api/errors';
import { useGql, type GqlRead } from '../api/graphql';
import {
  breadcrumbsOf,
  browseFiltersOf,
  browseHref,
  childHref,
  ENTITIES_PER_PAGE,
  entitiesHereFiltersOf,
  entitiesUnderFiltersOf,
  GROUPS_PER_PAGE,
  GROUPS_READ,
  pageParam,
  parseBrowsePath,
  platformNameOf,
  platformUrnOf,
  segmentLabel,
  type BrowseLocation,
} from '../logic/browse-path';
import { facetHref, facetValueLabel } from '../logic/search-state';
import { entityTypeLabel, entityTypeOfUrn } from '../logic/urn';
import { EmptyState, ErrorNotice, Loading, PageTitle, Pager } from '../ui/components';
import { EntityItem } from './search/entity-item';
import { nameOf, summaryOf } from './search/entity-summary';
import {
  BROWSE_ENTITIES_QUERY,
  BROWSE_LEVEL_QUERY,
  BROWSE_PLATFORMS_QUERY,
  type AggregateAnswer,
  type BrowseEntitiesAnswer,
  type BrowseLevelAnswer,
} from './search/queries';
import './browse.css';

/**
 * Browse (`/browse/<platform>/<segment>…`): the platforms, then one platform's tree as its entities' `browsePathsV2`
 * draw it (platform instance, containers, folders), each level listing its groups with how many entities lie under
 * each, and the entities that sit at the level itself. The location is the URL's path; the pages of groups and of
 * entities are its `groups` and `page` parameters.
 */
export function Component() {
  const { pathname } = useLocation();
  const location = useMemo(() => parseBrowsePath(pathname), [pathname]);
  return location.platform === undefined ? <Platforms /> : <Level location={location} />;
}

function Platforms() {
  const read = useGql<AggregateAnswer>(BROWSE_PLATFORMS_QUERY);
  const facet = read.data?.aggregateAcrossEntities?.facets?.find((candidate) => candidate.field === 'platform');
  let body;
  if (read.error !== undefined) body = <ErrorNotice error={read.error} retry={read.refetch} />;
  else if (read.data === undefined) body = <Loading what="Loading platforms" />;
  else if (facet === undefined || facet.aggregations.length === 0) {
    body = <EmptyState>No entity of the catalog names a platform yet.</EmptyState>;
  } else {
    body = (
      <ul className="browse-list">
        {facet.aggregations.map((aggregation) => {
          const label = facetValueLabel(
            'platform',
            aggregation.value,
            aggregation.entity == null ? undefined : nameOf(aggregation.entity),
          );
          return (
            <li key={aggregation.value} className="browse-row" data-testid="browse-group">
              <Link to={browseHref(platformNameOf(aggregation.value))} className="browse-row-name">
                {label}
              </Link>
              <span className="browse-row-count">{entitiesCount(aggregation.count)}</span>
            </li>
          );
        })}
      </ul>
    );
  }
  return (
    <div className="browse-page">
      <PageTitle title="Browse">Browse by platform</PageTitle>
      <Trail location={{ platform: undefined, path: [] }} names={new Map()} />
      <section aria-labelledby="browse-platforms-heading">
        <h2 id="browse-platforms-heading" className="browse-section-heading">
          Platforms
        </h2>
        {body}
      </section>
    </div>
  );
}

function entitiesCount(count: number): string {
  return `${count.toLocaleString()} ${count === 1 ? 'entity' : 'entities'}`;
}

function Level({ location }: { readonly location: BrowseLocation }) {
  const [params, setParams] = useSearchParams();
  const groupPage = pageParam(params.get('groups'));
  const entityPage = pageParam(params.get('page'));
  const platformUrn = platformUrnOf(location.platform ?? '');
  const levelVariables = useMemo(
    () => ({
      input: { path: location.path, orFilters: browseFiltersOf(location), start: 0, count: GROUPS_READ },
      pathUrns: [platformUrn, ...location.path.filter((segment) => entityTypeOfUrn(segment) !== undefined)],
    }),
    [location, platformUrn],
  );
  const level = useGql<BrowseLevelAnswer>(BROWSE_LEVEL_QUERY, levelVariables);
  const browse = level.data?.browseV2 ?? undefined;
  const names = useMemo(() => {
    const known = new Map<string, string>();
    for (const entity of level.data?.entities ?? []) {
      const urn = (entity as { urn?: unknown } | null)?.urn;
      if (typeof urn === 'string') known.set(urn, nameOf(entity));
    }
    for (const group of browse?.groups ?? []) if (group.entity != null) known.set(group.name, nameOf(group.entity));
    return known;
  }, [level.data, browse]);

  const allGroupsRead = browse !== undefined && browse.total <= browse.groups.length;
  const groupNames = useMemo(() => browse?.groups.map((group) => group.name) ?? [], [browse]);
  const entitiesVariables = useMemo(
    () => ({
      input: {
        query: '*',
        start: (entityPage - 1) * ENTITIES_PER_PAGE,
        count: ENTITIES_PER_PAGE,
        orFilters: entitiesHereFiltersOf(location, groupNames),
        searchFlags: { skipAggregates: true, skipHighlighting: true },
      },
    }),
    [location, groupNames, entityPage],
  );
  const entities = useGql<BrowseEntitiesAnswer>(BROWSE_ENTITIES_QUERY, entitiesVariables, { pause: !allGroupsRead });
  // A level too large for browseV2 to group (it answers 400) lists the entities at or below it instead.
  const refused = level.error !== undefined && describeFailure(level.error).status === 400;
  const underVariables = useMemo(
    () => ({
      input: {
        query: '*',
        start: (entityPage - 1) * ENTITIES_PER_PAGE,
        count: ENTITIES_PER_PAGE,
        orFilters: entitiesUnderFiltersOf(location),
        searchFlags: { skipAggregates: true, skipHighlighting: true },
      },
    }),
    [location, entityPage],
  );
  const under = useGql<BrowseEntitiesAnswer>(BROWSE_ENTITIES_QUERY, underVariables, { pause: !refused });

  const label = labelOf(location.path.at(-1) ?? platformUrn, names, location);
  const setPage = (key: 'groups' | 'page', page: number) => {
    const next = new URLSearchParams(params);
    if (page <= 1) next.delete(key);
    else next.set(key, String(page));
    setParams(next);
  };

  return (
    <div className="browse-page">
      <PageTitle title={`Browse ${label}`}>{label}</PageTitle>
      <Trail location={location} names={names} />
      {refused ? (
        <>
          <div className="notice" role="note">
            <p className="notice-title">Too many entities to group at this level</p>
            <p>{describeFailure(level.error).detail}</p>
            <p>
              Every entity at or below it is listed instead; narrow them with a{' '}
              <Link to={facetHref('platform', platformUrn)}>search of this platform</Link>.
            </p>
          </div>
          <section aria-labelledby="browse-under-heading" className="browse-section">
            <h2 id="browse-under-heading" className="browse-section-heading">
              Entities at or below this level
            </h2>
            <Entities
              read={under}
              page={entityPage}
              onPage={(page) => {
                setPage('page', page);
              }}
              empty="No entity lies at or below this level."
            />
          </section>
        </>
      ) : level.error !== undefined ? (
        <ErrorNotice error={level.error} retry={level.refetch} />
      ) : browse === undefined ? (
        <Loading what="Loading this level" />
      ) : (
        <>
          <Groups
            location={location}
            groups={browse.groups}
            total={browse.total}
            page={groupPage}
            names={names}
            onPage={(page) => {
              setPage('groups', page);
            }}
          />
          <section aria-labelledby="browse-entities-heading" className="browse-section">
            <h2 id="browse-entities-heading" className="browse-section-heading">
              Entities here
            </h2>
            {!allGroupsRead ? (
              <EmptyState>
                This level has more than {GROUPS_READ.toLocaleString()} groups, too many to tell the entities at it from
                those below: <Link to={facetHref('platform', platformUrn)}>search the platform</Link> instead.
              </EmptyState>
            ) : (
              <Entities
                read={entities}
                page={entityPage}
                onPage={(page) => {
                  setPage('page', page);
                }}
              />
            )}
          </section>
        </>
      )}
    </div>
  );
}

/** A segment's name: the loaded entity's, else a readable part of it. */
function labelOf(segment: string, names: ReadonlyMap<string, string>, location: BrowseLocation): string {
  if (location.path.length === 0 && segment === platformUrnOf(location.platform ?? '')) {
    return names.get(segment) ?? location.platform ?? segment;
  }
  return names.get(segment) ?? segmentLabel(segment);
}

function Trail({
  location,
  names,
}: {
  readonly location: BrowseLocation;
  readonly names: ReadonlyMap<string, string>;
}) {
  const crumbs = breadcrumbsOf(location);
  if (crumbs.length <= 1) return null;
  return (
    <nav aria-label="Browse path" className="browse-trail">
      <ol>
        {crumbs.map((crumb, index) => {
          const text =
            crumb.kind === 'platform'
              ? (names.get(platformUrnOf(crumb.segment)) ?? crumb.segment)
              : crumb.kind === 'segment'
                ? (names.get(crumb.segment) ?? segmentLabel(crumb.segment))
                : crumb.segment;
          return (
            <li key={crumb.href}>
              {index === crumbs.length - 1 ? (
                <span aria-current="page">{text}</span>
              ) : (
                <Link to={crumb.href}>{text}</Link>
              )}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}

function Groups({
  location,
  groups,
  total,
  page,
  names,
  onPage,
}: {
  readonly location: BrowseLocation;
  readonly groups: NonNullable<BrowseLevelAnswer['browseV2']>['groups'];
  readonly total: number;
  readonly page: number;
  readonly names: ReadonlyMap<string, string>;
  readonly onPage: (page: number) => void;
}) {
  const start = (page - 1) * GROUPS_PER_PAGE;
  const shown = groups.slice(start, start + GROUPS_PER_PAGE);
  return (
    <section aria-labelledby="browse-groups-heading" className="browse-section">
      <h2 id="browse-groups-heading" className="browse-section-heading">
        Groups
      </h2>
      {groups.length === 0 ? (
        <p className="muted">No group below this level.</p>
      ) : shown.length === 0 ? (
        <EmptyState>
          This page is past the last one.{' '}
          <button
            type="button"
            className="button button-small"
            onClick={() => {
              onPage(1);
            }}
          >
            First page
          </button>
        </EmptyState>
      ) : (
        <>
          <ul className="browse-list">
            {shown.map((group) => (
              <li key={group.name} className="browse-row" data-testid="browse-group">
                <Link to={childHref(location, group.name)} className="browse-row-name" title={group.name}>
                  {names.get(group.name) ?? segmentLabel(group.name)}
                </Link>
                {group.entity == null ? null : <span className="browse-row-kind muted">{kindOf(group.name)}</span>}
                <span className="browse-row-count">
                  {entitiesCount(group.count)}
                  {group.hasSubGroups ? <span className="muted"> · has groups</span> : null}
                </span>
              </li>
            ))}
          </ul>
          <Pager
            start={start}
            count={GROUPS_PER_PAGE}
            total={groups.length}
            onPage={(next) => {
              onPage(next / GROUPS_PER_PAGE + 1);
            }}
          />
          {total > groups.length ? (
            <p className="muted">
              The first {groups.length.toLocaleString()} of {total.toLocaleString()} groups, by size.
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}

function kindOf(segment: string): string {
  const type = entityTypeOfUrn(segment);
  return type === undefined ? '' : entityTypeLabel(type);
}

function Entities({
  read,
  page,
  onPage,
  empty = 'No entity sits at this level itself: open a group above.',
}: {
  readonly read: GqlRead<BrowseEntitiesAnswer>;
  readonly page: number;
  readonly onPage: (page: number) => void;
  readonly empty?: string;
}) {
  const answer = read.data?.searchAcrossEntities ?? undefined;
  if (read.error !== undefined) return <ErrorNotice error={read.error} retry={read.refetch} />;
  if (answer === undefined) return <Loading what="Loading entities" />;
  if (answer.searchResults.length === 0) {
    return answer.total > 0 ? (
      <EmptyState>
        This page is past the last one.{' '}
        <button
          type="button"
          className="button button-small"
          onClick={() => {
            onPage(1);
          }}
        >
          First page
        </button>
      </EmptyState>
    ) : (
      <p className="muted">{empty}</p>
    );
  }
  const start = (page - 1) * ENTITIES_PER_PAGE;
  return (
    <>
      <ol className="entity-list" start={start + 1}>
        {answer.searchResults.map((result) => {
          const summary = summaryOf(result.entity);
          return <EntityItem key={summary.urn} summary={summary} testId="browse-entity" />;
        })}
      </ol>
      <Pager
        start={start}
        count={ENTITIES_PER_PAGE}
        total={answer.total}
        onPage={(next) => {
          onPage(next / ENTITIES_PER_PAGE + 1);
        }}
      />
    </>
  );
}
