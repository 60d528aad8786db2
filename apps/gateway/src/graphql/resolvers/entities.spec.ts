/**
 * The entity types and root queries of the GraphQL API, run through the executable schema against entities held in
 * memory: the entity loader answers as `GET /entitiesV2` does (every aspect stored, the key derived for an entity
 * never written), and the routes the fields call answer as their owners do. Each test states the stored aspects and
 * what a query answers of them.
 */
import DataLoader from 'dataloader';
import { execute, isInterfaceType, isObjectType, parse, type ExecutionResult } from 'graphql';
import type { RequestContext, RouteCall } from '@strata/http';
import { ForbiddenError, parseUrn, type JsonObject } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import { readGraphqlSchema } from '@strata/schemas';
import type { Authorizer } from '../../auth/authorizer';
import type { GraphqlContext, LoadedAspect, LoadedEntity } from '../context';
import { adaptingFieldResolver, executableSchema } from '../schema';
import { entitiesResolvers } from './entities';
import { ENTITY_FIELDS } from './entities-fields';

const registry = testEntityRegistry();
const schema = executableSchema(
  readGraphqlSchema().map((file) => file.text),
  [entitiesResolvers],
);
const NOW = 1_700_000_000_000;

const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
const MISSING = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.nothing,PROD)';
const INNER = 'urn:li:container:inner';
const OUTER = 'urn:li:container:outer';
const PII = 'urn:li:tag:pii';
const LEGACY = 'urn:li:tag:legacy';
const TERM = 'urn:li:glossaryTerm:Classification.PII';
const DOMAIN = 'urn:li:domain:finance';
const GONE_DOMAIN = 'urn:li:domain:gone';
const JDOE = 'urn:li:corpuser:jdoe';
const GROUP = 'urn:li:corpGroup:analysts';

type Aspects = Record<string, JsonObject>;

/** An aspect as the writer answers it, written by an ingestion run at `observed`. */
function stored(value: JsonObject, observed = 1_000, runId = 'run-1'): LoadedAspect {
  return { value, version: 0, systemMetadata: { runId, lastObserved: observed } };
}

/** A catalog in memory: what `GET /entitiesV2` and the writer's internal read answer, and the routes' fakes. */
class Catalog {
  readonly entities = new Map<string, Record<string, LoadedAspect>>();
  readonly batches: string[][] = [];
  readonly calls: RouteCall[] = [];
  readonly refused = new Set<string>();
  readonly routes = new Map<string, (call: RouteCall) => unknown>();
  authorizer: Authorizer | undefined;

  put(urn: string, aspects: Aspects, observed?: number): this {
    const entityType = parseUrn(urn).entityType;
    const spec = registry.entity(entityType);
    if (spec === undefined) throw new Error(`No entity type ${entityType}`);
    const all: Record<string, LoadedAspect> = {
      [spec.keyAspect.name]: stored(spec.keyFromUrn(parseUrn(urn)), observed),
    };
    for (const [name, value] of Object.entries(aspects)) all[name] = stored(value, observed);
    this.entities.set(urn, all);
    return this;
  }

  /** The entity as the loader reads it: its stored aspects, or its derived key alone; null for an unknown type. */
  read(urn: string): LoadedEntity | Error | null {
    if (this.refused.has(urn)) return new ForbiddenError(`User is unauthorized to get entity ${urn}`);
    const entityType = parseUrn(urn).entityType;
    const spec = registry.entity(entityType);
    if (spec === undefined) return null;
    const aspects = this.entities.get(urn) ?? {
      [spec.keyAspect.name]: { value: spec.keyFromUrn(parseUrn(urn)), version: 0 },
    };
    return { urn, entityName: entityType, aspects };
  }

  route(method: string, resource: string, action: string | undefined, answer: (call: RouteCall) => unknown): this {
    this.routes.set(`${method} ${resource}${action === undefined ? '' : `?action=${action}`}`, answer);
    return this;
  }

  private answer(call: RouteCall): Promise<unknown> {
    this.calls.push(call);
    if (call.method === 'POST' && call.resource === '/internal/entities/latest') {
      const body = call.body as { urns: string[]; aspects: string[] };
      return Promise.resolve({
        entities: body.urns.flatMap((urn) => {
          const aspects = Object.fromEntries(
            Object.entries(this.entities.get(urn) ?? {}).filter(([name]) => body.aspects.includes(name)),
          );
          return Object.keys(aspects).length === 0 ? [] : [{ urn, aspects }];
        }),
      });
    }
    const handler = this.routes.get(
      `${call.method} ${call.resource}${call.action === undefined ? '' : `?action=${call.action}`}`,
    );
    if (handler === undefined) return Promise.reject(new Error(`No fake for ${call.method} ${call.resource}`));
    return Promise.resolve(handler(call));
  }

  context(): GraphqlContext {
    const request: RequestContext = {
      requestId: 'r',
      traceId: 't',
      actor: JDOE,
      sourceIp: undefined,
      userAgent: undefined,
      eventSource: 'GRAPHQL' as RequestContext['eventSource'],
      url: '/api/graphql',
      header: () => undefined,
    };
    return {
      request,
      call: (call) => this.answer(call),
      system: (call) => this.answer(call),
      entities: new DataLoader<string, LoadedEntity | null>((urns) => {
        this.batches.push([...urns]);
        return Promise.resolve(urns.map((urn) => this.read(urn)));
      }),
      registry,
      authorizer: this.authorizer,
      submitter: undefined as unknown as GraphqlContext['submitter'],
      now: () => NOW,
      deadline: Number.MAX_SAFE_INTEGER,
    };
  }

  async run(query: string, variables?: Record<string, unknown>): Promise<ExecutionResult> {
    return execute({
      schema,
      document: parse(query),
      contextValue: this.context(),
      variableValues: variables,
      fieldResolver: adaptingFieldResolver,
    });
  }
}

/** A dataset with every aspect an entity page shows. */
function richCatalog(): Catalog {
  return new Catalog()
    .put(
      DATASET,
      {
        datasetProperties: { description: 'All orders', customProperties: { owner_team: 'sales', tier: '1' } },
        schemaMetadata: {
          schemaName: 'orders',
          platform: 'urn:li:dataPlatform:hive',
          version: 0,
          hash: 'h',
          platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
          fields: [
            {
              fieldPath: 'id',
              nativeDataType: 'bigint',
              type: { type: { 'com.linkedin.schema.NumberType': {} } },
              globalTags: { tags: [{ tag: PII }] },
              glossaryTerms: { terms: [{ urn: TERM }], auditStamp: { time: 1, actor: JDOE } },
            },
            {
              fieldPath: 'address',
              nativeDataType: 'struct<a,b>',
              nullable: true,
              type: { type: { 'com.linkedin.schema.RecordType': {} } },
            },
          ],
        },
        editableSchemaMetadata: {
          editableSchemaFieldInfo: [
            { fieldPath: 'id', description: 'The key', globalTags: { tags: [{ tag: LEGACY }] } },
          ],
        },
        ownership: {
          owners: [
            { owner: JDOE, type: 'TECHNICAL_OWNER' },
            { owner: GROUP, type: 'BUSINESS_OWNER' },
          ],
        },
        globalTags: { tags: [{ tag: PII }, { tag: LEGACY }] },
        glossaryTerms: { terms: [{ urn: TERM, actor: JDOE }], auditStamp: { time: 1, actor: JDOE } },
        domains: { domains: [DOMAIN] },
        status: {},
        subTypes: { typeNames: ['Table'] },
        container: { container: INNER },
        institutionalMemory: {
          elements: [{ url: 'https://wiki/orders', description: 'Runbook', createStamp: { time: 7, actor: JDOE } }],
        },
        browsePathsV2: { path: [{ id: 'prod' }, { id: INNER, urn: INNER }] },
      },
      2_000,
    )
    .put(INNER, { containerProperties: { name: 'inner' }, container: { container: OUTER } })
    .put(OUTER, {
      containerProperties: { name: 'outer' },
      dataPlatformInstance: { platform: 'urn:li:dataPlatform:hive' },
    })
    .put(PII, { tagProperties: { name: 'Personal data', colorHex: '#f00' } })
    .put(TERM, { glossaryTermInfo: { definition: 'Personal data', termSource: 'INTERNAL' } })
    .put(DOMAIN, { domainProperties: { name: 'Finance' } })
    .put(JDOE, { corpUserInfo: { active: true, displayName: 'J. Doe', managerUrn: 'urn:li:corpuser:boss' } });
}

describe('a dataset', () => {
  it('answers its key fields, its properties (name from the key, custom properties as entries) and its ingestion time', async () => {
    const result = await richCatalog().run(`{
      dataset(urn: "${DATASET}") {
        urn type name origin exists lastIngested description
        platform { urn name }
        properties { name description customProperties { key value associatedUrn } lastModified { time actor } }
        status { removed }
        subTypes { typeNames }
      }
    }`);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      dataset: {
        urn: DATASET,
        type: 'DATASET',
        name: 'db.orders',
        origin: 'PROD',
        exists: true,
        lastIngested: 2_000,
        description: 'All orders',
        platform: { urn: 'urn:li:dataPlatform:hive', name: 'hive' },
        properties: {
          name: 'db.orders',
          description: 'All orders',
          customProperties: [
            { key: 'owner_team', value: 'sales', associatedUrn: DATASET },
            { key: 'tier', value: '1', associatedUrn: DATASET },
          ],
          lastModified: { time: 0, actor: null },
        },
        status: { removed: false },
        subTypes: { typeNames: ['Table'] },
      },
    });
  });

  it('answers its schema: each field’s type from the union, non-null flags, tags and terms with their names', async () => {
    const result = await richCatalog().run(`{
      dataset(urn: "${DATASET}") {
        schemaMetadata(version: 0) {
          name platformUrn version hash aspectVersion
          fields {
            fieldPath type nativeDataType nullable recursive isPartOfKey isPartitioningKey
            schemaFieldEntity { urn fieldPath parent { urn } }
            tags { tags { associatedUrn tag { urn name properties { name colorHex } } } }
            glossaryTerms { terms { associatedUrn term { urn name hierarchicalName properties { name definition } } } }
          }
        }
        editableSchemaMetadata { editableSchemaFieldInfo { fieldPath description tags { tags { tag { name properties { name } } } } } }
      }
    }`);
    expect(result.errors).toBeUndefined();
    const dataset = (result.data as { dataset: Record<string, unknown> }).dataset;
    expect(dataset['schemaMetadata']).toEqual({
      name: 'orders',
      platformUrn: 'urn:li:dataPlatform:hive',
      version: 0,
      hash: 'h',
      aspectVersion: 0,
      fields: [
        {
          fieldPath: 'id',
          type: 'NUMBER',
          nativeDataType: 'bigint',
          nullable: false,
          recursive: false,
          isPartOfKey: false,
          isPartitioningKey: null,
          schemaFieldEntity: { urn: `urn:li:schemaField:(${DATASET},id)`, fieldPath: 'id', parent: { urn: DATASET } },
          tags: {
            tags: [
              {
                associatedUrn: DATASET,
                tag: { urn: PII, name: 'pii', properties: { name: 'Personal data', colorHex: '#f00' } },
              },
            ],
          },
          glossaryTerms: {
            terms: [
              {
                associatedUrn: DATASET,
                term: {
                  urn: TERM,
                  name: 'PII',
                  hierarchicalName: 'Classification.PII',
                  properties: { name: 'PII', definition: 'Personal data' },
                },
              },
            ],
          },
        },
        {
          fieldPath: 'address',
          type: 'STRUCT',
          nativeDataType: 'struct<a,b>',
          nullable: true,
          recursive: false,
          isPartOfKey: false,
          isPartitioningKey: null,
          schemaFieldEntity: {
            urn: `urn:li:schemaField:(${DATASET},address)`,
            fieldPath: 'address',
            parent: { urn: DATASET },
          },
          tags: null,
          glossaryTerms: null,
        },
      ],
    });
    // A tag without properties still has its name: the key's.
    expect(dataset['editableSchemaMetadata']).toEqual({
      editableSchemaFieldInfo: [
        { fieldPath: 'id', description: 'The key', tags: { tags: [{ tag: { name: 'legacy', properties: null } }] } },
      ],
    });
  });

  it('answers its ownership, tags, terms, domain, links, containers and browse path', async () => {
    const result = await richCatalog().run(`{
      dataset(urn: "${DATASET}") {
        ownership {
          lastModified { time }
          owners {
            type associatedUrn
            ownershipType { urn }
            owner { __typename ... on CorpUser { urn username properties { displayName manager { urn } } } ... on CorpGroup { urn name } }
          }
        }
        globalTags { tags { tag { name } } }
        glossaryTerms { terms { actor { urn } term { name } } }
        domain { associatedUrn domain { urn id properties { name } } }
        institutionalMemory { elements { url label description author { urn } created { time actor } associatedUrn } }
        container { urn properties { name } platform { urn } container { urn platform { urn } } }
        parentContainers { count containers { urn properties { name } } }
        browsePathV2 { path { name entity { urn } } }
      }
    }`);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      dataset: {
        ownership: {
          lastModified: { time: 0 },
          owners: [
            {
              type: 'TECHNICAL_OWNER',
              associatedUrn: DATASET,
              ownershipType: { urn: 'urn:li:ownershipType:__system__technical_owner' },
              owner: {
                __typename: 'CorpUser',
                urn: JDOE,
                username: 'jdoe',
                properties: { displayName: 'J. Doe', manager: { urn: 'urn:li:corpuser:boss' } },
              },
            },
            {
              type: 'BUSINESS_OWNER',
              associatedUrn: DATASET,
              ownershipType: { urn: 'urn:li:ownershipType:__system__business_owner' },
              owner: { __typename: 'CorpGroup', urn: GROUP, name: 'analysts' },
            },
          ],
        },
        globalTags: { tags: [{ tag: { name: 'pii' } }, { tag: { name: 'legacy' } }] },
        glossaryTerms: { terms: [{ actor: { urn: JDOE }, term: { name: 'PII' } }] },
        domain: { associatedUrn: DATASET, domain: { urn: DOMAIN, id: 'finance', properties: { name: 'Finance' } } },
        institutionalMemory: {
          elements: [
            {
              url: 'https://wiki/orders',
              label: 'Runbook',
              description: 'Runbook',
              author: { urn: JDOE },
              created: { time: 7, actor: JDOE },
              associatedUrn: DATASET,
            },
          ],
        },
        container: {
          urn: INNER,
          properties: { name: 'inner' },
          platform: { urn: 'urn:li:dataPlatform:unknown' },
          container: { urn: OUTER, platform: { urn: 'urn:li:dataPlatform:hive' } },
        },
        parentContainers: {
          count: 2,
          containers: [
            { urn: INNER, properties: { name: 'inner' } },
            { urn: OUTER, properties: { name: 'outer' } },
          ],
        },
        browsePathV2: {
          path: [
            { name: 'prod', entity: null },
            { name: INNER, entity: { urn: INNER } },
          ],
        },
      },
    });
  });

  it('answers no domain association for a domain that is gone', async () => {
    const catalog = richCatalog();
    catalog.put(DATASET, { domains: { domains: [GONE_DOMAIN] } });
    const result = await catalog.run(`{ dataset(urn: "${DATASET}") { domain { domain { urn } } } }`);
    expect(result).toEqual({ data: { dataset: { domain: null } } });
  });

  it('stops a chain of containers at a cycle', async () => {
    const catalog = new Catalog()
      .put(DATASET, { container: { container: INNER } })
      .put(INNER, { container: { container: OUTER } })
      .put(OUTER, { container: { container: INNER } });
    const result = await catalog.run(
      `{ dataset(urn: "${DATASET}") { parentContainers { count containers { urn } } } }`,
    );
    expect(result.data).toEqual({
      dataset: { parentContainers: { count: 2, containers: [{ urn: INNER }, { urn: OUTER }] } },
    });
  });

  it('answers its raw aspects, those named, in the registry’s order, as JSON text', async () => {
    const result = await richCatalog().run(`{
      dataset(urn: "${DATASET}") { aspects(input: {aspectNames: ["status", "subTypes", "datasetProfile", "viewProperties"]}) { aspectName payload } }
    }`);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      dataset: {
        aspects: [
          { aspectName: 'subTypes', payload: '{"typeNames":["Table"]}' },
          { aspectName: 'status', payload: '{}' },
        ],
      },
    });
  });
});

describe('an entity that was never written, and URNs of another type', () => {
  it('answers a dataset nothing was stored for, as DataHub does: its key fields, no aspect, exists false', async () => {
    const result = await richCatalog().run(`{
      dataset(urn: "${MISSING}") { urn name origin platform { name } exists lastIngested properties { name } ownership { owners { type } } }
    }`);
    expect(result).toEqual({
      data: {
        dataset: {
          urn: MISSING,
          name: 'db.nothing',
          origin: 'PROD',
          platform: { name: 'hive' },
          exists: false,
          lastIngested: null,
          properties: null,
          ownership: null,
        },
      },
    });
  });

  it('answers null for a URN of another entity type, and a 400 for a text that is no URN', async () => {
    const catalog = richCatalog();
    expect(await catalog.run(`{ dataset(urn: "${JDOE}") { urn } chart(urn: "${DATASET}") { urn } }`)).toEqual({
      data: { dataset: null, chart: null },
    });
    const result = await catalog.run('{ dataset(urn: "orders") { urn } }');
    expect(result.data).toEqual({ dataset: null });
    expect(result.errors?.[0]?.message).toBe('Invalid URN "orders": must start with "urn:li:"');
    expect(result.errors?.[0]?.originalError?.name).toBe('BadRequestError');
  });

  it('answers entity(urn) as the object type of its entity, and refuses an entity type the API does not serve', async () => {
    const result = await richCatalog().run(`{
      a: entity(urn: "${DATASET}") { __typename urn type ... on Dataset { name } }
      b: entity(urn: "${PII}") { __typename ... on Tag { name description } }
      c: entity(urn: "${JDOE}") { __typename ... on CorpUser { username info { active displayName } } }
      d: entity(urn: "urn:li:dataHubSecret:s") { urn }
    }`);
    expect(result.data).toEqual({
      a: { __typename: 'Dataset', urn: DATASET, type: 'DATASET', name: 'db.orders' },
      b: { __typename: 'Tag', name: 'pii', description: null },
      c: { __typename: 'CorpUser', username: 'jdoe', info: { active: true, displayName: 'J. Doe' } },
      d: null,
    });
    expect(result.errors?.map((error) => error.message)).toEqual([
      'Entities of type dataHubSecret are not served by the GraphQL API (urn:li:dataHubSecret:s)',
    ]);
  });

  it('answers entities(urns) in order, leaving out the ones that do not exist when asked to check', async () => {
    const catalog = richCatalog();
    const all = await catalog.run(`{ entities(urns: ["${MISSING}", "${DATASET}"]) { urn } }`);
    expect(all.data).toEqual({ entities: [{ urn: MISSING }, { urn: DATASET }] });
    const checked = await catalog.run(
      `{ entities(urns: ["${MISSING}", "${DATASET}"], checkForExistence: true) { urn } }`,
    );
    expect(checked.data).toEqual({ entities: [{ urn: DATASET }] });
  });

  it('fails only the fields of an entity the caller may not read', async () => {
    const catalog = richCatalog();
    catalog.refused.add(DATASET);
    const result = await catalog.run(`{ tag(urn: "${PII}") { name } dataset(urn: "${DATASET}") { name } }`);
    expect(result.data).toEqual({ tag: { name: 'pii' }, dataset: null });
    expect(result.errors?.map((error) => [error.path, error.message])).toEqual([
      [['dataset'], `User is unauthorized to get entity ${DATASET}`],
    ]);
  });

  it('asks the exists route whether an entity exists, as the caller', async () => {
    const catalog = richCatalog().route('POST', '/entities', 'exists', (call) => ({
      value: (call.body as { urn: string }).urn === DATASET,
    }));
    expect(await catalog.run(`{ a: entityExists(urn: "${DATASET}") b: entityExists(urn: "${MISSING}") }`)).toEqual({
      data: { a: true, b: false },
    });
  });
});

describe('reading a page of entities', () => {
  it('reads a hundred datasets with their properties, platforms and tags in two batched reads: the datasets, then the platforms and tags they name', async () => {
    const catalog = new Catalog().put(PII, { tagProperties: { name: 'PII' } });
    const urns = Array.from(
      { length: 100 },
      (_, index) => `urn:li:dataset:(urn:li:dataPlatform:p${index % 3},t${index},PROD)`,
    );
    for (const urn of urns)
      catalog.put(urn, { datasetProperties: { name: urn }, globalTags: { tags: [{ tag: PII }] } });
    const result = await catalog.run(
      `query($urns: [String!]!) { entities(urns: $urns) { ... on Dataset { name properties { name } platform { name } tags { tags { tag { name properties { name } } } } } } }`,
      { urns },
    );
    expect(result.errors).toBeUndefined();
    expect((result.data as { entities: unknown[] }).entities).toHaveLength(100);
    expect(catalog.batches.map((batch) => batch.length)).toEqual([100, 4]);
  });
});

describe('other entity types', () => {
  it('derives chart, dashboard, flow and job fields from their keys, and their platforms from the tool', async () => {
    const chart = 'urn:li:chart:(looker,c1)';
    const flow = 'urn:li:dataFlow:(airflow,daily,prod)';
    const job = `urn:li:dataJob:(${flow},load)`;
    const catalog = new Catalog()
      .put(chart, {
        chartInfo: {
          title: 'Revenue',
          description: 'By month',
          chartUrl: 'https://looker/c1',
          lastModified: { created: { time: 3, actor: JDOE }, lastModified: { time: 4, actor: JDOE } },
          type: 'BAR',
        },
      })
      .put(job, { dataJobInfo: { name: 'load', type: { string: 'COMMAND' }, customProperties: { k: 'v' } } });
    const result = await catalog.run(`{
      chart(urn: "${chart}") { chartId tool platform { urn name } properties { name description externalUrl type created { time } lastModified { time actor } } }
      dashboard(urn: "urn:li:dashboard:(tableau,d1)") { dashboardId tool platform { urn } properties { name } }
      dataFlow(urn: "${flow}") { flowId cluster orchestrator platform { urn } }
      dataJob(urn: "${job}") { jobId dataFlow { flowId } platform { urn } properties { name customProperties { key value } } }
    }`);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      chart: {
        chartId: 'c1',
        tool: 'looker',
        platform: { urn: 'urn:li:dataPlatform:looker', name: 'looker' },
        properties: {
          name: 'Revenue',
          description: 'By month',
          externalUrl: 'https://looker/c1',
          type: 'BAR',
          created: { time: 3 },
          lastModified: { time: 4, actor: JDOE },
        },
      },
      dashboard: {
        dashboardId: 'd1',
        tool: 'tableau',
        platform: { urn: 'urn:li:dataPlatform:tableau' },
        properties: null,
      },
      dataFlow: {
        flowId: 'daily',
        cluster: 'prod',
        orchestrator: 'airflow',
        platform: { urn: 'urn:li:dataPlatform:airflow' },
      },
      dataJob: {
        jobId: 'load',
        dataFlow: { flowId: 'daily' },
        platform: { urn: 'urn:li:dataPlatform:airflow' },
        properties: { name: 'load', customProperties: [{ key: 'k', value: 'v' }] },
      },
    });
  });

  it('answers a glossary node’s and a tag’s name from the key when no aspect names them, and the chain of nodes', async () => {
    const catalog = new Catalog()
      .put('urn:li:glossaryNode:child', {
        glossaryNodeInfo: { definition: 'd', parentNode: 'urn:li:glossaryNode:root' },
      })
      .put('urn:li:glossaryTerm:t', {
        glossaryTermInfo: { definition: 'x', termSource: 'INTERNAL', parentNode: 'urn:li:glossaryNode:child' },
      });
    const result = await catalog.run(`{
      glossaryNode(urn: "urn:li:glossaryNode:child") { properties { name description } parentNodes { count nodes { urn properties { name } } } }
      glossaryTerm(urn: "urn:li:glossaryTerm:t") { parentNodes { count nodes { urn } } }
      tag(urn: "${LEGACY}") { name properties { name } }
    }`);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      glossaryNode: {
        properties: { name: 'child', description: 'd' },
        parentNodes: { count: 1, nodes: [{ urn: 'urn:li:glossaryNode:root', properties: { name: 'root' } }] },
      },
      glossaryTerm: {
        parentNodes: { count: 2, nodes: [{ urn: 'urn:li:glossaryNode:child' }, { urn: 'urn:li:glossaryNode:root' }] },
      },
      tag: { name: 'legacy', properties: null },
    });
  });

  it('answers ML and platform types from their keys', async () => {
    const model = 'urn:li:mlModel:(urn:li:dataPlatform:sagemaker,churn,PROD)';
    const catalog = new Catalog()
      .put(model, { mlModelProperties: { description: 'Churn', version: { versionTag: '3' }, customProperties: {} } })
      .put('urn:li:dataPlatform:hive', {
        dataPlatformInfo: { name: 'hive', displayName: 'Hive', type: 'FILE_SYSTEM', datasetNameDelimiter: '.' },
      });
    const result = await catalog.run(`{
      mlModel(urn: "${model}") { name origin platform { name displayName properties { type datasetNameDelimiter } } description properties { name version } }
      mlFeature(urn: "urn:li:mlFeature:(ns,f)") { name featureNamespace }
      dataPlatformInstance(urn: "urn:li:dataPlatformInstance:(urn:li:dataPlatform:hive,eu)") { instanceId platform { name } }
      corpGroup(urn: "${GROUP}") { name info { displayName } }
      domain(urn: "${DOMAIN}") { id }
      dataProduct(urn: "urn:li:dataProduct:p") { properties { name } }
    }`);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      mlModel: {
        name: 'churn',
        origin: 'PROD',
        platform: { name: 'sagemaker', displayName: null, properties: null },
        description: 'Churn',
        properties: { name: 'churn', version: '3' },
      },
      mlFeature: { name: 'f', featureNamespace: 'ns' },
      dataPlatformInstance: { instanceId: 'eu', platform: { name: 'hive' } },
      corpGroup: { name: 'analysts', info: null },
      domain: { id: 'finance' },
      dataProduct: { properties: null },
    });
  });

  it('answers what an entity handed on already holds (a token of the token routes) without reading it', async () => {
    const catalog = new Catalog();
    const token = {
      urn: 'urn:li:dataHubAccessToken:t1',
      entityName: 'dataHubAccessToken',
      type: 'ACCESS_TOKEN',
      name: 'cli',
      ownerUrn: JDOE,
    };
    const result = await execute({
      schema,
      document: parse('{ entity(urn: "urn:li:dataHubAccessToken:t1") { ... on AccessTokenMetadata { id } } }'),
      contextValue: catalog.context(),
      fieldResolver: adaptingFieldResolver,
    });
    expect(result.data).toEqual({ entity: { id: 't1' } });
    const field = schema.getType('AccessTokenMetadata');
    if (!isObjectType(field)) throw new Error('no AccessTokenMetadata');
    const resolve = field.getFields()['name']?.resolve;
    expect(
      await resolve?.(token, {}, catalog.context(), {
        fieldName: 'name',
        returnType: field.getFields()['name']?.type,
      } as never),
    ).toBe('cli');
  });
});

describe('reads beyond the entity', () => {
  it('answers relationships through GET /relationships, each with the direction asked', async () => {
    const catalog = richCatalog().route('GET', '/relationships', undefined, () => ({
      start: 0,
      count: 2,
      total: 2,
      relationships: [
        { type: 'OwnedBy', entity: JDOE, created: { time: 5, actor: JDOE } },
        { type: 'OwnedBy', entity: GROUP },
      ],
    }));
    const result = await catalog.run(`{
      dataset(urn: "${DATASET}") { relationships(input: {types: ["OwnedBy"], direction: OUTGOING, count: 10}) {
        start count total relationships { type direction created { time } entity { urn } }
      } }
    }`);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      dataset: {
        relationships: {
          start: 0,
          count: 2,
          total: 2,
          relationships: [
            { type: 'OwnedBy', direction: 'OUTGOING', created: { time: 5 }, entity: { urn: JDOE } },
            { type: 'OwnedBy', direction: 'OUTGOING', created: null, entity: { urn: GROUP } },
          ],
        },
      },
    });
    expect(catalog.calls.find((call) => call.resource === '/relationships')?.query).toEqual({
      urn: DATASET,
      direction: 'OUTGOING',
      types: ['OwnedBy'],
      start: '0',
      count: '10',
    });
  });

  it('leaves out a group’s members that are gone when soft-deleted ones are not asked for', async () => {
    const catalog = richCatalog().route('GET', '/relationships', undefined, () => ({
      start: 0,
      count: 2,
      total: 2,
      relationships: [
        { type: 'IsMemberOfGroup', entity: JDOE },
        { type: 'IsMemberOfGroup', entity: 'urn:li:corpuser:left' },
      ],
    }));
    const query = (soft: string) =>
      `{ corpGroup(urn: "${GROUP}") { relationships(input: {types: ["IsMemberOfGroup"], direction: INCOMING${soft}}) { count total relationships { entity { urn } } } } }`;
    expect(await catalog.run(query(', includeSoftDelete: false'))).toEqual({
      data: { corpGroup: { relationships: { count: 1, total: 1, relationships: [{ entity: { urn: JDOE } }] } } },
    });
    // DataHub's default is to include them.
    for (const soft of ['', ', includeSoftDelete: true']) {
      const answer = (await catalog.run(query(soft))).data as { corpGroup: { relationships: { count: number } } };
      expect(answer.corpGroup.relationships.count).toBe(2);
    }
  });

  it('answers lineage one hop away through getLineage, leaving out entities that do not exist unless asked', async () => {
    const upstream = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.raw,PROD)';
    const catalog = richCatalog()
      .put(upstream, { status: { removed: false } })
      .route('POST', '/relationships', 'getLineage', () => ({
        value: {
          start: 0,
          count: 2,
          total: 2,
          filtered: 0,
          relationships: [
            {
              type: 'DownstreamOf',
              entity: upstream,
              degree: 1,
              paths: [[DATASET, upstream]],
              createdOn: 9,
              isManual: false,
            },
            { type: 'DownstreamOf', entity: MISSING, degree: 1, paths: [[DATASET, MISSING]] },
          ],
        },
      }));
    const query = (ghosts: boolean) => `{ dataset(urn: "${DATASET}") {
      lineage(input: {direction: UPSTREAM, includeGhostEntities: ${ghosts}}) {
        count total filtered relationships { type degree createdOn isManual entity { urn } paths { path { urn } } }
      } } }`;
    const result = await catalog.run(query(false));
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      dataset: {
        lineage: {
          count: 2,
          total: 2,
          filtered: 1,
          relationships: [
            {
              type: 'DownstreamOf',
              degree: 1,
              createdOn: 9,
              isManual: false,
              entity: { urn: upstream },
              paths: [{ path: [{ urn: DATASET }, { urn: upstream }] }],
            },
          ],
        },
      },
    });
    expect(catalog.calls.find((call) => call.action === 'getLineage')?.body).toEqual({
      urn: DATASET,
      direction: 'UPSTREAM',
      start: 0,
      count: 100,
      maxHops: 1,
    });
    const ghosts = (await catalog.run(query(true))).data as {
      dataset: { lineage: { filtered: number; relationships: unknown[] } };
    };
    expect(ghosts.dataset.lineage.filtered).toBe(0);
    expect(ghosts.dataset.lineage.relationships).toHaveLength(2);
  });

  it('answers dataset profiles from the timeseries read, and none to a caller without VIEW_DATASET_PROFILE', async () => {
    const profile = {
      timestampMillis: 10,
      rowCount: 5,
      columnCount: 2,
      fieldProfiles: [{ fieldPath: 'id', nullCount: 0, sampleValues: ['1'] }],
    };
    const catalog = richCatalog().route('POST', '/aspects', 'getTimeseriesAspectValues', () => ({
      value: { values: [{ aspect: { value: JSON.stringify(profile), contentType: 'application/json' } }] },
    }));
    const query = `{ dataset(urn: "${DATASET}") { datasetProfiles(limit: 1, filter: {and: [{field: "partitionSpec.partition", values: ["FULL_TABLE_SNAPSHOT"]}]}) {
      timestampMillis rowCount columnCount sizeInBytes fieldProfiles { fieldPath nullCount sampleValues } } } }`;
    expect(await catalog.run(query)).toEqual({
      data: {
        dataset: {
          datasetProfiles: [
            {
              timestampMillis: 10,
              rowCount: 5,
              columnCount: 2,
              sizeInBytes: null,
              fieldProfiles: [{ fieldPath: 'id', nullCount: 0, sampleValues: ['1'] }],
            },
          ],
        },
      },
    });
    expect(catalog.calls.find((call) => call.action === 'getTimeseriesAspectValues')?.body).toEqual({
      urn: DATASET,
      entity: 'dataset',
      aspect: 'datasetProfile',
      limit: 1,
      filter: {
        or: [
          {
            and: [
              {
                field: 'partitionSpec.partition',
                values: ['FULL_TABLE_SNAPSHOT'],
                value: 'FULL_TABLE_SNAPSHOT',
                condition: 'EQUAL',
                negated: false,
              },
            ],
          },
        ],
      },
    });
    catalog.authorizer = { enabled: true, allows: () => Promise.resolve(false) } as unknown as Authorizer;
    expect(await catalog.run(query)).toEqual({ data: { dataset: { datasetProfiles: [] } } });
  });

  it('answers usage statistics over a range back from now, by day', async () => {
    const catalog = richCatalog().route('POST', '/usageStats', 'queryRange', () => ({
      value: {
        buckets: [
          {
            bucket: 86_400_000,
            duration: 'DAY',
            resource: DATASET,
            metrics: { uniqueUserCount: 1, totalSqlQueries: 3 },
          },
        ],
        aggregations: {
          uniqueUserCount: 1,
          totalSqlQueries: 3,
          users: [{ user: JDOE, count: 3 }],
          fields: [{ fieldName: 'id', count: 2 }],
        },
      },
    }));
    const result = await catalog.run(`{ dataset(urn: "${DATASET}") { usageStats(range: MONTH) {
      buckets { bucket duration metrics { totalSqlQueries } }
      aggregations { uniqueUserCount totalSqlQueries users { count user { username } } fields { fieldName count } } } } }`);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      dataset: {
        usageStats: {
          buckets: [{ bucket: 86_400_000, duration: 'DAY', metrics: { totalSqlQueries: 3 } }],
          aggregations: {
            uniqueUserCount: 1,
            totalSqlQueries: 3,
            users: [{ count: 3, user: { username: 'jdoe' } }],
            fields: [{ fieldName: 'id', count: 2 }],
          },
        },
      },
    });
    expect(catalog.calls.find((call) => call.resource === '/usageStats')?.body).toEqual({
      resource: DATASET,
      duration: 'DAY',
      rangeFromEnd: 'MONTH',
    });
  });

  it('reads a schema at an earlier version through GET /aspects', async () => {
    const catalog = richCatalog().route('GET', '/aspects', undefined, () => ({
      version: 2,
      aspect: {
        'com.linkedin.schema.SchemaMetadata': {
          schemaName: 'old',
          platform: 'urn:li:dataPlatform:hive',
          version: 1,
          hash: 'x',
          platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
          fields: [],
        },
      },
    }));
    const result = await catalog.run(
      `{ dataset(urn: "${DATASET}") { schemaMetadata(version: 2) { name aspectVersion fields { fieldPath } } } }`,
    );
    expect(result.data).toEqual({ dataset: { schemaMetadata: { name: 'old', aspectVersion: 2, fields: [] } } });
    expect(catalog.calls.find((call) => call.resource === '/aspects')).toMatchObject({
      key: DATASET,
      query: { aspect: 'schemaMetadata', version: '2' },
    });
  });

  it('answers a dataset at the versions a stamp names, through GET /entitiesVersionedV2', async () => {
    const catalog = richCatalog().route('GET', '/entitiesVersionedV2', undefined, (call) => ({
      results: {
        [DATASET]: {
          urn: DATASET,
          entityName: 'dataset',
          aspects: {
            datasetKey: {
              value: { platform: 'urn:li:dataPlatform:hive', name: 'db.orders', origin: 'PROD' },
              version: 0,
            },
            datasetProperties: { value: { name: 'Orders v1' }, version: 1 },
          },
        },
      },
      echoed: call.query,
    }));
    const result = await catalog.run(`{
      versionedDataset(urn: "${DATASET}", versionStamp: "datasetProperties:1") { urn type name properties { name } tags { tags { tag { urn } } } relationships(input: {types: [], direction: INCOMING}) { count } }
    }`);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      versionedDataset: {
        urn: DATASET,
        type: 'DATASET',
        name: 'db.orders',
        properties: { name: 'Orders v1' },
        tags: null,
        relationships: null,
      },
    });
    expect(catalog.calls.find((call) => call.resource === '/entitiesVersionedV2')?.query).toEqual({
      ids: [`(${DATASET} , datasetProperties:1)`],
      entityType: 'dataset',
    });
    expect((await catalog.run(`{ versionedDataset(urn: "${JDOE}") { urn } }`)).data).toEqual({
      versionedDataset: null,
    });
  });
});

describe('the table of entity fields', () => {
  it('resolves every field of every entity type served, but urn and type, which come with the entity', () => {
    const unresolved: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || !type.getInterfaces().some((face) => isInterfaceType(face) && face.name === 'Entity'))
        continue;
      for (const field of Object.values(type.getFields())) {
        if (field.name !== 'urn' && field.name !== 'type' && field.resolve === undefined) {
          unresolved.push(`${type.name}.${field.name}`);
        }
      }
    }
    expect(unresolved).toEqual([]);
    expect(Object.keys(ENTITY_FIELDS).length).toBeGreaterThan(40);
  });
});
