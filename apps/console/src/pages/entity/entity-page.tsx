import { useEffect } from 'react';
import { Link, Navigate, useLocation, useParams } from 'react-router';
import { useGql } from '../../api/graphql';
import { useChunk } from '../../ui/chunks';
import { EmptyState, ErrorNotice, Loading, PageTitle, TabLinks } from '../../ui/components';
import { graphqlObjectTypeOf, tabLabel, tabOf, tabsOf, type EntityTab } from '../../logic/entity-kinds';
import { summaryFromAspects, summaryFromGraphql, type EntitySummary } from '../../logic/entity-summary';
import { entityPath, entityTypeOfUrn } from '../../logic/urn';
import { EntityHeader } from './entity-header';
import { OverviewTab } from './overview-tab';
import { entityQueryOf, hasEntityQuery } from './queries';
import { latestAspectsPath, useRestRead, type LatestAspects } from './rest-reads';
import './entity.css';

/** Each tab's chunk, loaded when the tab is first shown (see {@link EntityPage}'s early start, and useChunk). */
const TAB_CHUNKS = {
  schema: () => import('./schema-tab'),
  history: () => import('./history-tab'),
  stats: () => import('./stats-tab'),
  raw: () => import('./raw-tab'),
  lineage: () => import('./lineage/lineage-tab'),
} as const;

/**
 * An entity's page (`/entity/<encoded urn>/<tab>`): the header (what it is, where it sits, who owns it, its labels and
 * state, with the edits the user may make) and one tab. Every entity type has a page: the types GraphQL details are
 * read through it; the others from their aspects.
 */
export function Component() {
  const params = useParams();
  const location = useLocation();
  const urn = params['urn'] ?? '';
  const entityType = entityTypeOfUrn(urn);
  if (entityType === undefined) {
    return (
      <>
        <PageTitle title="Not an entity">Not an entity</PageTitle>
        <EmptyState>
          <p>
            <code>{urn}</code> is not a URN (<code>urn:li:&lt;type&gt;:&lt;key&gt;</code>).
          </p>
          <p>
            <Link to="/search">Search the catalog</Link>
          </p>
        </EmptyState>
      </>
    );
  }
  if (params['tab'] === 'overview')
    return <Navigate to={{ pathname: entityPath(urn), search: location.search }} replace />;
  // One spelling of each page's address (the console's own links'), so that its tab links know which is current.
  const canonical = entityPath(urn, params['tab']);
  if (location.pathname !== canonical && safeDecode(location.pathname) === safeDecode(canonical)) {
    return <Navigate to={{ pathname: canonical, search: location.search, hash: location.hash }} replace />;
  }
  return <EntityPage key={urn} urn={urn} entityType={entityType} tabSegment={params['tab']} />;
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function EntityPage({
  urn,
  entityType,
  tabSegment,
}: {
  readonly urn: string;
  readonly entityType: string;
  readonly tabSegment: string | undefined;
}) {
  const read = useEntitySummary(urn, entityType);
  const tab = tabOf(tabSegment, entityType);
  // The tab's chunk starts loading with the entity's read, not after it: a page opened at a tab waits for one
  // round trip less.
  useEffect(() => {
    if (tab !== undefined && tab in TAB_CHUNKS) void TAB_CHUNKS[tab as keyof typeof TAB_CHUNKS]();
  }, [tab]);
  const tabs = tabsOf(entityType).map((name) => ({
    to: entityPath(urn, name === 'overview' ? undefined : name),
    label: tabLabel(name),
  }));
  if (read.summary === undefined) {
    if (read.error !== undefined) {
      return (
        <>
          <PageTitle title="Entity">Entity</PageTitle>
          <ErrorNotice error={read.error} retry={read.refetch} />
        </>
      );
    }
    return <Loading what="Loading the entity" />;
  }
  const summary = read.summary;
  return (
    <article className="entity-page" aria-labelledby="entity-title">
      <EntityHeader summary={summary} onChanged={read.refetch} />
      {read.error === undefined ? null : <ErrorNotice error={read.error} retry={read.refetch} />}
      {summary.exists === false ? (
        <EmptyState>
          <p>Strata holds nothing for this URN yet: no aspect of it has been written (or it was deleted for good).</p>
        </EmptyState>
      ) : null}
      <TabLinks tabs={tabs} label={`${summary.name}: views`} />
      <section className="entity-tab" aria-label={tab === undefined ? 'Unknown view' : tabLabel(tab)}>
        {tab === undefined ? (
          <EmptyState>
            <p>
              A {summary.typeLabel.toLowerCase()} has no “{tabSegment}” view.{' '}
              <Link to={entityPath(urn)}>See its overview</Link>
            </p>
          </EmptyState>
        ) : (
          <TabContent tab={tab} summary={summary} onChanged={read.refetch} />
        )}
      </section>
    </article>
  );
}

function TabContent({
  tab,
  summary,
  onChanged,
}: {
  readonly tab: EntityTab;
  readonly summary: EntitySummary;
  readonly onChanged: () => void;
}) {
  if (tab === 'overview') return <OverviewTab summary={summary} onChanged={onChanged} />;
  return <SplitTab tab={tab} summary={summary} />;
}

/** A tab in a chunk of its own, rendered once its chunk is loaded (started with the page: see EntityPage). */
function SplitTab({ tab, summary }: { readonly tab: Exclude<EntityTab, 'overview'>; readonly summary: EntitySummary }) {
  const chunk = useChunk<unknown>(TAB_CHUNKS[tab]);
  if (chunk.error !== undefined) return <ErrorNotice error={chunk.error} />;
  if (chunk.module === undefined) return <Loading />;
  switch (tab) {
    case 'schema': {
      const { SchemaTab } = chunk.module as Awaited<ReturnType<typeof TAB_CHUNKS.schema>>;
      return <SchemaTab urn={summary.urn} />;
    }
    case 'lineage': {
      const { LineageTab } = chunk.module as Awaited<ReturnType<typeof TAB_CHUNKS.lineage>>;
      return <LineageTab urn={summary.urn} />;
    }
    case 'stats': {
      const { StatsTab } = chunk.module as Awaited<ReturnType<typeof TAB_CHUNKS.stats>>;
      return <StatsTab urn={summary.urn} />;
    }
    case 'history': {
      const { HistoryTab } = chunk.module as Awaited<ReturnType<typeof TAB_CHUNKS.history>>;
      return <HistoryTab urn={summary.urn} entityType={summary.entityType} />;
    }
    case 'raw': {
      const { RawTab } = chunk.module as Awaited<ReturnType<typeof TAB_CHUNKS.raw>>;
      return <RawTab urn={summary.urn} />;
    }
  }
}

/** The header and overview's read: GraphQL for the types it details, the latest aspects for the others. */
function useEntitySummary(
  urn: string,
  entityType: string,
): { summary?: EntitySummary; error?: unknown; refetch: () => void } {
  const graphqlType = graphqlObjectTypeOf(entityType);
  const viaGraphql = hasEntityQuery(graphqlType);
  const gql = useGql<{ entity: unknown }>(entityQueryOf(graphqlType ?? 'Dataset'), { urn }, { pause: !viaGraphql });
  const rest = useRestRead<LatestAspects>(viaGraphql ? undefined : latestAspectsPath(urn));
  if (viaGraphql) {
    const entity = gql.data?.entity;
    return {
      ...(gql.data === undefined
        ? {}
        : { summary: summaryFromGraphql(urn, graphqlType, entity ?? { urn, exists: false }) }),
      ...(gql.error === undefined || gql.error === null ? {} : { error: gql.error }),
      refetch: gql.refetch,
    };
  }
  return {
    ...(rest.data === undefined ? {} : { summary: summaryFromAspects(urn, rest.data.aspects) }),
    ...(rest.error === undefined ? {} : { error: rest.error }),
    refetch: rest.refetch,
  };
}
