/**
 * The GraphQL the Lineage tab sends, and how its answers become the graph's inputs (lineage-graph.ts). Whatever is
 * missing at a moment — the centre entity, pages of entities' lineage, pages of "expand all", fine-grained lineage of
 * entities shown before columns were turned on — goes in ONE request, each part under an alias of its own. Pure
 * (unit-tested in lineage-query.spec.ts, which also validates the documents against Strata's schema).
 *
 * What is asked of each entity shown: its name, type and platform; its neighbours' URNs one hop each way (up to
 * {@link ADJACENCY_COUNT}), so edges to entities already shown are drawn; and, with columns on, its fine-grained
 * lineage (a dataset's `upstreamLineage`, a job's `dataJobInputOutput`, read as raw aspects: GraphQL has no field for
 * them).
 */
import {
  ADJACENCY_COUNT,
  HOP_PAGE_SIZE,
  REACH_PAGE_SIZE,
  type Adjacency,
  type FineGrainedEntry,
  type HopAnswer,
  type LineageDirection,
  type LineageEntity,
  type LineageFetch,
  type ReachAnswer,
  type ReachHops,
  simpleFieldPath,
} from './lineage-graph';
import { displayNameOfUrn, entityTypeOfGraphql, entityTypeOfUrn, platformName, platformOfUrn } from './urn';

/** The GraphQL types that answer `lineage(input: LineageInput!)`. */
export const LINEAGE_TYPES = [
  'Dataset',
  'Chart',
  'Dashboard',
  'DataFlow',
  'DataJob',
  'MLModel',
  'MLModelGroup',
  'MLFeature',
  'MLFeatureTable',
  'MLPrimaryKey',
  'SchemaFieldEntity',
] as const;

/** The aspect holding an entity type's fine-grained lineage. */
const FINE_GRAINED_ASPECT: Readonly<Record<string, string>> = {
  Dataset: 'upstreamLineage',
  DataJob: 'dataJobInputOutput',
};

const PLATFORM = 'urn name properties { displayName }';

const NODE_FRAGMENT = `fragment LineageNode on Entity {
  urn
  type
  ... on Dataset { name properties { name } platform { ${PLATFORM} } }
  ... on Chart { properties { name } platform { ${PLATFORM} } }
  ... on Dashboard { properties { name } platform { ${PLATFORM} } }
  ... on DataFlow { flowId properties { name } platform { ${PLATFORM} } }
  ... on DataJob { jobId properties { name } }
  ... on MLModel { name platform { ${PLATFORM} } }
  ... on MLModelGroup { name platform { ${PLATFORM} } }
  ... on MLFeatureTable { name platform { ${PLATFORM} } }
  ... on MLFeature { name }
  ... on MLPrimaryKey { name }
  ... on SchemaFieldEntity { fieldPath parent { urn } }
}`;

/**
 * An entity's neighbours each way. Upstream is the plain `lineage` field (the fragment is only spread where no other
 * `lineage` is selected) and downstream an alias: the server counts aliases (at most 50 a request), and each type
 * needs its own since `lineage` is no field of the `Entity` interface.
 */
const ADJACENCY_FRAGMENT = `fragment LineageAdjacency on Entity {
${LINEAGE_TYPES.map(
  (type) => `  ... on ${type} {
    lineage(input: {direction: UPSTREAM, count: $adjacency}) { ...LineageNeighbours }
    downstreamAdjacency: lineage(input: {direction: DOWNSTREAM, count: $adjacency}) { ...LineageNeighbours }
  }`,
).join('\n')}
}
fragment LineageNeighbours on EntityLineageResult { total filtered relationships { entity { urn } } }`;

/** The aliases a fragment spread of {@link ADJACENCY_FRAGMENT} counts. */
const ADJACENCY_ALIASES = LINEAGE_TYPES.length;

const COLUMNS_FRAGMENT = `fragment LineageColumns on Entity {
${Object.entries(FINE_GRAINED_ASPECT)
  .map(
    ([type, aspect]) =>
      `  ... on ${type} { aspects(input: {aspectNames: ["${aspect}"]}) @include(if: $columns) { aspectName payload } }`,
  )
  .join('\n')}
}`;

const PAGE_FRAGMENT = `fragment LineagePage on EntityLineageResult {
  start
  count
  total
  filtered
  relationships { type entity { ...LineageNode ...LineageAdjacency ...LineageColumns } }
}`;

/** A request for some fetches: its document, its variables, and how to read its answer. */
export interface LineageQuery {
  readonly query: string;
  readonly variables: Record<string, unknown>;
  /** The fetches it answers. */
  readonly fetches: readonly LineageFetch[];
  readonly read: (data: unknown) => LineageResults;
}

/** What one answer brings. */
export interface LineageResults {
  /** The centre entity when it was asked: null when it does not exist. */
  readonly center?: LineageEntity | null;
  readonly hops: readonly HopAnswer[];
  readonly reaches: readonly ReachAnswer[];
  readonly fineGrained: readonly (readonly [string, readonly FineGrainedEntry[]])[];
}

/** The `orFilters` of "expand all" to some hops (the lineage search's `degree` facet); none walks as far as it can. */
export function degreeFilter(hops: ReachHops): unknown {
  if (hops === 'all') return undefined;
  return [{ and: [{ field: 'degree', values: hops === 1 ? ['1'] : ['1', '2'] }] }];
}

/** The server's limit of aliases in one request (docs/graphql.md, "Limits"). */
export const MAX_ALIASES = 50;

/** The aliases one fetch costs in a request. */
function aliasesOf(fetch: LineageFetch): number {
  switch (fetch.kind) {
    case 'center':
      return 1;
    case 'hop':
    case 'reach':
      return 1 + ADJACENCY_ALIASES;
    case 'fineGrained':
      return 0;
  }
}

/**
 * The requests that fetch all of `fetches` (lineage of `center`), with columns or not: one, unless they exceed what
 * the server takes in one request (its alias limit: about four pages of neighbours), as when a link names many
 * expanded entities at once. Fine-grained reads all go in one batch.
 */
export function lineageQueries(fetches: readonly LineageFetch[], center: string, columns: boolean): LineageQuery[] {
  const batches: LineageFetch[][] = [];
  let current: LineageFetch[] = [];
  let aliases = 1; // the batch of fine-grained reads
  for (const fetch of fetches) {
    if (current.length > 0 && aliases + aliasesOf(fetch) > MAX_ALIASES) {
      batches.push(current);
      current = [];
      aliases = 1;
    }
    current.push(fetch);
    aliases += aliasesOf(fetch);
  }
  if (current.length > 0) batches.push(current);
  return batches.map((batch) => lineageQuery(batch, center, columns));
}

/** The GraphQL type of an entity URN's type, when it has `lineage`. */
function lineageTypeOf(urn: string): (typeof LINEAGE_TYPES)[number] | undefined {
  const type = entityTypeOfUrn(urn);
  const named =
    type === 'schemaField' ? 'SchemaFieldEntity' : type?.replace(/^ml/, 'ML').replace(/^./, (c) => c.toUpperCase());
  return LINEAGE_TYPES.find((candidate) => candidate === named);
}

/** One request fetching all of `fetches` (see {@link lineageQueries}, which keeps it within the server's limits). */
export function lineageQuery(fetches: readonly LineageFetch[], center: string, columns: boolean): LineageQuery {
  const declarations: string[] = [];
  const fields: string[] = [];
  const variables: Record<string, unknown> = {};
  const fragments = new Set<string>();
  const readers: ((data: Record<string, unknown>, results: MutableResults) => void)[] = [];
  const fineGrained = fetches.flatMap((fetch) => (fetch.kind === 'fineGrained' ? [fetch.urn] : []));

  fetches.forEach((fetch, index) => {
    const alias = `f${index}`;
    switch (fetch.kind) {
      case 'center':
        declarations.push(`$${alias}: String!`);
        variables[alias] = fetch.urn;
        fields.push(`${alias}: entity(urn: $${alias}) { ...LineageNode ...LineageColumns }`);
        fragments.add(NODE_FRAGMENT).add(COLUMNS_FRAGMENT);
        readers.push((data, results) => {
          results.center = entityOf(data[alias]) ?? null;
        });
        break;
      case 'hop': {
        declarations.push(`$${alias}: String!`, `$${alias}start: Int!`);
        variables[alias] = fetch.urn;
        variables[`${alias}start`] = fetch.start;
        const input = `{direction: ${fetch.direction}, start: $${alias}start, count: $pageSize}`;
        // The URN says the entity's type: only its own fragment is asked (each costs against the server's limits).
        const known = lineageTypeOf(fetch.urn);
        const types = known === undefined ? LINEAGE_TYPES : [known];
        const perType = types.map((type) => `... on ${type} { lineage(input: ${input}) { ...LineagePage } }`);
        fields.push(`${alias}: entity(urn: $${alias}) { urn ${perType.join(' ')} }`);
        fragments.add(NODE_FRAGMENT).add(ADJACENCY_FRAGMENT).add(COLUMNS_FRAGMENT).add(PAGE_FRAGMENT);
        readers.push((data, results) => {
          results.hops.push(hopOf(fetch.urn, fetch.direction, fetch.start, recordOf(data[alias])?.['lineage']));
        });
        break;
      }
      case 'reach': {
        declarations.push(`$${alias}start: Int!`);
        variables[`${alias}start`] = fetch.start;
        const filter = degreeFilter(fetch.hops);
        if (filter !== undefined) {
          declarations.push(`$${alias}filters: [AndFilterInput!]`);
          variables[`${alias}filters`] = filter;
        }
        variables['center'] = center;
        const input = [
          'urn: $center',
          `direction: ${fetch.direction}`,
          `start: $${alias}start`,
          'count: $reachCount',
          ...(filter === undefined ? [] : [`orFilters: $${alias}filters`]),
        ].join(', ');
        fields.push(
          `${alias}: searchAcrossLineage(input: {${input}}) { start total isPartial searchResults { degree truncatedChildren paths { path { urn } } entity { ...LineageNode ...LineageAdjacency ...LineageColumns } } }`,
        );
        fragments.add(NODE_FRAGMENT).add(ADJACENCY_FRAGMENT).add(COLUMNS_FRAGMENT);
        readers.push((data, results) => {
          results.reaches.push(reachOf(fetch.direction, fetch.hops, fetch.start, data[alias]));
        });
        break;
      }
      case 'fineGrained':
        break;
    }
  });
  if (fineGrained.length > 0) {
    declarations.push('$fineGrainedUrns: [String!]!');
    variables['fineGrainedUrns'] = fineGrained;
    fields.push('fineGrained: entities(urns: $fineGrainedUrns) { urn ...LineageColumns }');
    fragments.add(COLUMNS_FRAGMENT);
    readers.push((data, results) => {
      const found = new Map<string, readonly FineGrainedEntry[]>();
      for (const item of listOf(data['fineGrained'])) {
        const urn = textOf(recordOf(item)?.['urn']);
        if (urn !== undefined) found.set(urn, fineGrainedOf(recordOf(item)?.['aspects']) ?? []);
      }
      // An entity the answer leaves out (it does not exist) has none: it is not asked again.
      for (const urn of fineGrained) results.fineGrained.push([urn, found.get(urn) ?? []]);
    });
  }

  const uses = (name: string) => fields.join(' ').includes(name) || [...fragments].join(' ').includes(name);
  if (uses('$columns')) {
    declarations.push('$columns: Boolean!');
    variables['columns'] = columns || fineGrained.length > 0;
  }
  if (uses('$pageSize')) {
    declarations.push('$pageSize: Int!');
    variables['pageSize'] = HOP_PAGE_SIZE;
  }
  if (uses('$adjacency')) {
    declarations.push('$adjacency: Int!');
    variables['adjacency'] = ADJACENCY_COUNT;
  }
  if (uses('$reachCount')) {
    declarations.push('$reachCount: Int!', '$center: String!');
    variables['reachCount'] = REACH_PAGE_SIZE;
  }
  const query = [
    `query consoleLineage(${declarations.join(', ')}) {`,
    ...fields.map((field) => `  ${field}`),
    '}',
    ...fragments,
  ].join('\n');
  return {
    query,
    variables,
    fetches,
    read: (data) => {
      const results: MutableResults = { hops: [], reaches: [], fineGrained: [] };
      const record = recordOf(data) ?? {};
      for (const reader of readers) reader(record, results);
      return results;
    },
  };
}

interface MutableResults {
  center?: LineageEntity | null;
  hops: HopAnswer[];
  reaches: ReachAnswer[];
  fineGrained: (readonly [string, readonly FineGrainedEntry[]])[];
}

function hopOf(urn: string, direction: LineageDirection, start: number, value: unknown): HopAnswer {
  const lineage = recordOf(value);
  const relationships = listOf(lineage?.['relationships']).flatMap((item) => {
    const relationship = recordOf(item);
    const entity = entityOf(relationship?.['entity']);
    return entity === undefined ? [] : [{ type: textOf(relationship?.['type']) ?? '', entity }];
  });
  return {
    urn,
    direction,
    start: numberOf(lineage?.['start']) ?? start,
    count: numberOf(lineage?.['count']) ?? relationships.length,
    total: numberOf(lineage?.['total']) ?? relationships.length,
    filtered: numberOf(lineage?.['filtered']) ?? 0,
    relationships,
  };
}

function reachOf(direction: LineageDirection, hops: ReachHops, start: number, value: unknown): ReachAnswer {
  const answer = recordOf(value);
  const results = listOf(answer?.['searchResults']).flatMap((item) => {
    const result = recordOf(item);
    const entity = entityOf(result?.['entity']);
    if (result === undefined || entity === undefined) return [];
    return [
      {
        entity,
        degree: numberOf(result['degree']) ?? 1,
        truncatedChildren: result['truncatedChildren'] === true,
        paths: listOf(result['paths']).map((path) =>
          listOf(recordOf(path)?.['path']).map((hop) => textOf(recordOf(hop)?.['urn']) ?? null),
        ),
      },
    ];
  });
  return {
    direction,
    hops,
    start: numberOf(answer?.['start']) ?? start,
    total: numberOf(answer?.['total']) ?? results.length,
    isPartial: answer?.['isPartial'] === true,
    results,
  };
}

/** An entity of an answer (the `LineageNode`, `LineageAdjacency` and `LineageColumns` fragments). */
export function entityOf(value: unknown): LineageEntity | undefined {
  const raw = recordOf(value);
  const urn = textOf(raw?.['urn']);
  if (raw === undefined || urn === undefined) return undefined;
  const graphqlType = textOf(raw['type']);
  const type = graphqlType === undefined ? (entityTypeOfUrn(urn) ?? 'entity') : entityTypeOfGraphql(graphqlType);
  const properties = recordOf(raw['properties']);
  const ownName = textOf(raw['name']);
  const fieldPath = textOf(raw['fieldPath']);
  const name =
    textOf(properties?.['name']) ??
    ownName ??
    textOf(raw['jobId']) ??
    textOf(raw['flowId']) ??
    (fieldPath === undefined ? undefined : simpleFieldPath(fieldPath)) ??
    displayNameOfUrn(urn);
  const qualifiedName =
    ownName !== undefined && ownName !== name
      ? ownName
      : fieldPath !== undefined
        ? displayNameOfUrn(textOf(recordOf(raw['parent'])?.['urn']) ?? urn)
        : undefined;
  const platformRecord = recordOf(raw['platform']);
  const platform =
    textOf(recordOf(platformRecord?.['properties'])?.['displayName']) ??
    textOf(platformRecord?.['name']) ??
    platformName(platformOfUrn(urn));
  // In an entity, `lineage` is only ever its upstream neighbours (the LineageAdjacency fragment).
  const upstream = adjacencyOf(raw['lineage']);
  const downstream = adjacencyOf(raw['downstreamAdjacency']);
  const fineGrained = fineGrainedOf(raw['aspects']);
  return {
    urn,
    type,
    name,
    ...(qualifiedName === undefined ? {} : { qualifiedName }),
    ...(platform === undefined ? {} : { platform }),
    ...(upstream === undefined ? {} : { upstream }),
    ...(downstream === undefined ? {} : { downstream }),
    ...(fineGrained === undefined ? {} : { fineGrained }),
  };
}

function adjacencyOf(value: unknown): Adjacency | undefined {
  const lineage = recordOf(value);
  if (lineage === undefined) return undefined;
  const urns = listOf(lineage['relationships']).flatMap((item) => {
    const urn = textOf(recordOf(recordOf(item)?.['entity'])?.['urn']);
    return urn === undefined ? [] : [urn];
  });
  return { total: numberOf(lineage['total']) ?? urns.length, filtered: numberOf(lineage['filtered']) ?? 0, urns };
}

/** The `fineGrainedLineages` of raw aspects (undefined when they were not asked). */
export function fineGrainedOf(value: unknown): FineGrainedEntry[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.flatMap((item) => {
    const payload = textOf(recordOf(item)?.['payload']);
    if (payload === undefined) return [];
    let aspect: unknown;
    try {
      aspect = JSON.parse(payload);
    } catch {
      return [];
    }
    return listOf(recordOf(aspect)?.['fineGrainedLineages']).flatMap((entry) => {
      const record = recordOf(entry);
      if (record === undefined) return [];
      const transform = textOf(record['transformOperation']);
      return [
        {
          upstreams: listOf(record['upstreams']).filter((urn): urn is string => typeof urn === 'string'),
          downstreams: listOf(record['downstreams']).filter((urn): urn is string => typeof urn === 'string'),
          ...(transform === undefined ? {} : { transform }),
        },
      ];
    });
  });
}

function recordOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
