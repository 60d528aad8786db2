/**
 * What the entity page shows of each entity type: its tabs, and the related entities its overview lists (each a read
 * of the graph's relationships of some types in one direction). A type the table does not name gets the generic page:
 * overview, history and raw aspects. Pure (unit-tested in entity-kinds.spec.ts).
 */

/** The entity page's tabs, in the order they are shown; `overview` is the page's own URL (no tab segment). */
export const ENTITY_TABS = ['overview', 'schema', 'lineage', 'stats', 'history', 'raw'] as const;
export type EntityTab = (typeof ENTITY_TABS)[number];

const TAB_LABELS: Readonly<Record<EntityTab, string>> = {
  overview: 'Overview',
  schema: 'Schema',
  lineage: 'Lineage',
  stats: 'Stats',
  history: 'History',
  raw: 'Raw',
};

/** A tab's label. */
export function tabLabel(tab: EntityTab): string {
  return TAB_LABELS[tab];
}

/** Entity types with lineage (edges upstream or downstream of them). */
const WITH_LINEAGE = new Set([
  'dataset',
  'chart',
  'dashboard',
  'dataJob',
  'dataFlow',
  'mlModel',
  'mlModelGroup',
  'mlFeature',
  'mlFeatureTable',
  'mlPrimaryKey',
  'schemaField',
]);

/** The tabs an entity type has. */
export function tabsOf(entityType: string | undefined): EntityTab[] {
  return ENTITY_TABS.filter((tab) => {
    switch (tab) {
      case 'schema':
      case 'stats':
        return entityType === 'dataset';
      case 'lineage':
        return entityType !== undefined && WITH_LINEAGE.has(entityType);
      default:
        return true;
    }
  });
}

/** The tab a URL segment names: none is the overview; an unknown one or one the type lacks is undefined. */
export function tabOf(segment: string | undefined, entityType: string | undefined): EntityTab | undefined {
  if (segment === undefined || segment === '' || segment === 'overview' || segment === 'documentation') {
    return 'overview';
  }
  return tabsOf(entityType).find((tab) => tab === segment);
}

/** A list of related entities on an overview: the relationships of `types` in `direction`. */
export interface RelatedSection {
  /** Stable, also the URL parameter holding the section's page (`?<id>=<start>`). */
  readonly id: string;
  readonly title: string;
  readonly types: readonly string[];
  readonly direction: 'INCOMING' | 'OUTGOING';
  /** Said when there is none. */
  readonly empty: string;
}

const MEMBERSHIP = ['IsMemberOfGroup', 'IsMemberOfNativeGroup'];

const SECTIONS: Readonly<Record<string, readonly RelatedSection[]>> = {
  chart: [
    {
      id: 'dashboards',
      title: 'In dashboards',
      types: ['Contains'],
      direction: 'INCOMING',
      empty: 'No dashboard shows this chart.',
    },
    {
      id: 'inputs',
      title: 'Inputs',
      types: ['Consumes'],
      direction: 'OUTGOING',
      empty: 'No input dataset is recorded.',
    },
  ],
  dashboard: [
    {
      id: 'charts',
      title: 'Charts',
      types: ['Contains'],
      direction: 'OUTGOING',
      empty: 'This dashboard lists no chart.',
    },
    { id: 'datasets', title: 'Datasets', types: ['Consumes'], direction: 'OUTGOING', empty: 'No dataset is recorded.' },
  ],
  dataJob: [
    {
      id: 'inputs',
      title: 'Inputs',
      types: ['Consumes'],
      direction: 'OUTGOING',
      empty: 'No input dataset is recorded.',
    },
    {
      id: 'outputs',
      title: 'Outputs',
      types: ['Produces'],
      direction: 'OUTGOING',
      empty: 'No output dataset is recorded.',
    },
    {
      id: 'upstreamJobs',
      title: 'Upstream jobs',
      types: ['DownstreamOf'],
      direction: 'OUTGOING',
      empty: 'No upstream job is recorded.',
    },
  ],
  dataFlow: [
    { id: 'jobs', title: 'Jobs', types: ['IsPartOf'], direction: 'INCOMING', empty: 'This pipeline has no job.' },
  ],
  container: [
    {
      id: 'contents',
      title: 'Contents',
      types: ['IsPartOf'],
      direction: 'INCOMING',
      empty: 'This container is empty.',
    },
  ],
  corpuser: [
    { id: 'groups', title: 'Groups', types: MEMBERSHIP, direction: 'OUTGOING', empty: 'Not a member of any group.' },
    { id: 'owned', title: 'Owns', types: ['OwnedBy'], direction: 'INCOMING', empty: 'Owns nothing.' },
  ],
  corpGroup: [
    { id: 'members', title: 'Members', types: MEMBERSHIP, direction: 'INCOMING', empty: 'This group has no member.' },
    { id: 'owned', title: 'Owns', types: ['OwnedBy'], direction: 'INCOMING', empty: 'Owns nothing.' },
  ],
  tag: [
    {
      id: 'tagged',
      title: 'Tagged entities',
      types: ['TaggedWith'],
      direction: 'INCOMING',
      empty: 'Nothing has this tag.',
    },
  ],
  glossaryTerm: [
    {
      id: 'termed',
      title: 'Entities with this term',
      types: ['TermedWith'],
      direction: 'INCOMING',
      empty: 'Nothing has this term.',
    },
  ],
  glossaryNode: [
    {
      id: 'children',
      title: 'Terms and nodes',
      types: ['IsPartOf'],
      direction: 'INCOMING',
      empty: 'This node is empty.',
    },
  ],
  domain: [
    {
      id: 'assets',
      title: 'Entities in this domain',
      types: ['AssociatedWith'],
      direction: 'INCOMING',
      empty: 'Nothing is in this domain.',
    },
  ],
};

/** The related-entity lists of an entity type's overview. */
export function relatedSectionsOf(entityType: string | undefined): readonly RelatedSection[] {
  return entityType === undefined ? [] : (SECTIONS[entityType] ?? []);
}

/**
 * The GraphQL object type of an entity type, for the types whose page reads their fields through GraphQL; undefined
 * for the others (read as aspects through REST).
 */
export function graphqlObjectTypeOf(entityType: string | undefined): string | undefined {
  return entityType === undefined ? undefined : GRAPHQL_TYPES[entityType];
}

const GRAPHQL_TYPES: Readonly<Record<string, string>> = {
  dataset: 'Dataset',
  chart: 'Chart',
  dashboard: 'Dashboard',
  dataFlow: 'DataFlow',
  dataJob: 'DataJob',
  container: 'Container',
  corpuser: 'CorpUser',
  corpGroup: 'CorpGroup',
  tag: 'Tag',
  glossaryTerm: 'GlossaryTerm',
  glossaryNode: 'GlossaryNode',
  domain: 'Domain',
  dataProduct: 'DataProduct',
  dataPlatform: 'DataPlatform',
  mlModel: 'MLModel',
  mlModelGroup: 'MLModelGroup',
  mlFeature: 'MLFeature',
  mlFeatureTable: 'MLFeatureTable',
  mlPrimaryKey: 'MLPrimaryKey',
};

/** A page of a section from the URL (`?<id>=<start>`): a whole number ≥ 0, else 0. */
export function sectionStart(value: string | null): number {
  if (value === null) return 0;
  const number = Number(value);
  return Number.isInteger(number) && number >= 0 ? number : 0;
}
