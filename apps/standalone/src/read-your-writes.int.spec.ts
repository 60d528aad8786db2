/**
 * Read-your-writes across the services, composed in one process on the embedded engines as the standalone process
 * composes them: a write sent with `X-DataHub-Sync-Index-Update: true` is answered once every read model consuming its
 * change logs has acknowledged them — at once, saying so, when one skipped a change log it can never apply, and at once
 * when the deployment has no read model at all.
 */
import { readSchemas } from '@strata/schemas';
import { createEntityRegistry, UNKNOWN_ACTOR_URN, type EntityRegistry, type EntitySpec } from '@strata/model';
import { createEventSerde, defaultTopicNames } from '@strata/events';
import { SqliteMessageLog } from '@strata/log';
import { SqliteAspectStore } from '@strata/store';
import { createSearchSchema, SqliteGraphIndex, SqliteSearchIndex } from '@strata/indices';
import { createHttpApp, listen, type RunningServer } from '@strata/http';
import { STRATA_VERSION, type StrataService } from '@strata/runtime';
import { systemScheduler } from '@strata/timing';
import { datasetUrn, ingestProposalBody, proposalOf, TestHttpClient } from '@strata/testing';
import { createGatewayService, STRATA_CAPABILITIES } from '@strata/gateway';
import { createMetadataWriterService } from '@strata/metadata-writer';
import { createSearchIndexerService } from '@strata/search-indexer';

const schemas = readSchemas();
const registry = createEntityRegistry(schemas);
const serde = createEventSerde(schemas);
const topics = defaultTopicNames;
const quiet = { warn: () => undefined, error: () => undefined };
const syncIndex = { 'X-DataHub-Sync-Index-Update': 'true' };

/** The registry as a consumer of an older version would have it: without one aspect of one entity. */
function registryWithout(entityName: string, aspectName: string): EntityRegistry {
  const hide = (entity: EntitySpec): EntitySpec =>
    entity.name !== entityName
      ? entity
      : {
          ...entity,
          aspects: entity.aspects.filter((aspect) => aspect.name !== aspectName),
          aspect: (name) => (name === aspectName ? undefined : entity.aspect(name)),
          aspectByRecordName: (name) => entity.aspectByRecordName(name),
          keyFromUrn: (urn) => entity.keyFromUrn(urn),
        };
  return {
    entity: (name) => {
      const entity = registry.entity(name);
      return entity === undefined ? undefined : hide(entity);
    },
    entities: () => registry.entities().map(hide),
    entityBySnapshot: (name) => registry.entityBySnapshot(name),
  };
}

/** A deployment in one process: the writer, optionally the search indexer, and the gateway in front. */
async function deploy(options: { indexerRegistry?: EntityRegistry; withIndexer: boolean }) {
  const log = new SqliteMessageLog({ path: ':memory:', pollIntervalMs: 20 });
  const store = new SqliteAspectStore({ path: ':memory:' });
  const search = new SqliteSearchIndex({ path: ':memory:', schema: createSearchSchema(registry) });
  const graph = new SqliteGraphIndex({ path: ':memory:' });
  const writer = createMetadataWriterService({
    log,
    store,
    registry,
    serde,
    topics,
    scheduler: systemScheduler,
    logger: quiet,
    groupId: 'writer',
    systemActor: 'urn:li:corpuser:__datahub_system',
    maxAspectBytes: 16_000_000,
    maxBatchSize: 100,
  });
  const indexer = options.withIndexer
    ? createSearchIndexerService({
        log,
        search,
        graph,
        registry: options.indexerRegistry ?? registry,
        serde,
        topics,
        scheduler: systemScheduler,
        logger: quiet,
        groupId: 'indexer',
        maxBatchSize: 100,
        defaultShape: 'interface',
      })
    : undefined;
  const behind: StrataService[] = indexer === undefined ? [writer] : [writer, indexer];
  const gateway = createGatewayService({
    log,
    registry,
    serde,
    topics,
    ownedElsewhere: behind.flatMap((service) => service.routes),
    readModels: behind.flatMap((service) => service.readModels),
    instanceId: () => 'read-your-writes-test',
    logger: quiet,
    scheduler: systemScheduler,
    asyncIngestByDefault: false,
    // Longer than jest's test timeout: a request that waited for it would fail the test rather than answer.
    outcomeTimeoutMs: 60_000,
    maxAspectBytes: 16_000_000,
    maxBatchProposals: 100,
    capabilities: STRATA_CAPABILITIES,
    strataVersion: STRATA_VERSION,
  });
  const services = [...behind, gateway];
  for (const service of services) await service.start();
  const server: RunningServer = await listen(
    createHttpApp({
      routes: gateway.routes,
      newId: (() => {
        let id = 0;
        return () => `request-${(id += 1)}`;
      })(),
      anonymousActor: UNKNOWN_ACTOR_URN,
      maxBodyBytes: 1024 * 1024,
      logger: quiet,
      isReady: () => true,
    }),
    '127.0.0.1',
    0,
  );
  return {
    http: new TestHttpClient(`http://127.0.0.1:${server.port}`),
    stop: async () => {
      await server.close(0);
      for (const service of [...services].reverse()) await service.stop();
      await log.close();
      await Promise.all([store.close(), search.close(), graph.close()]);
    },
  };
}

describe('read-your-writes over the read models', () => {
  it('answers once search and graph hold the write, and the write shows in both at once', async () => {
    const deployment = await deploy({ withIndexer: true });
    try {
      const urn = datasetUrn('ryw_orders');
      const answer = await deployment.http.post(
        '/aspects?action=ingestProposal',
        ingestProposalBody(
          proposalOf(urn, 'ownership', { owners: [{ owner: 'urn:li:corpuser:ann', type: 'DATAOWNER' }] }),
        ),
        syncIndex,
      );
      expect({ status: answer.status, indexing: answer.headers.get('x-strata-indexing') }).toEqual({
        status: 200,
        indexing: 'applied',
      });
      expect(answer.headers.get('warning')).toBeNull();
      const search = await deployment.http.post('/entities?action=search', {
        input: 'ryw_orders',
        entity: 'dataset',
        start: 0,
        count: 10,
      });
      expect((search.json as { value: { numEntities: number } }).value.numEntities).toBe(1);
      const owned = await deployment.http.get(
        `/relationships?direction=INCOMING&urn=${encodeURIComponent('urn:li:corpuser:ann')}&types=OwnedBy`,
      );
      expect((owned.json as { total: number }).total).toBe(1);
    } finally {
      await deployment.stop();
    }
  });

  it('answers at once, saying so, when a read model skipped the change log as one it can never apply', async () => {
    const deployment = await deploy({ withIndexer: true, indexerRegistry: registryWithout('dataset', 'globalTags') });
    try {
      const urn = datasetUrn('ryw_tagged');
      const answer = await deployment.http.post(
        '/aspects?action=ingestProposal',
        ingestProposalBody(proposalOf(urn, 'globalTags', { tags: [{ tag: 'urn:li:tag:pii' }] })),
        syncIndex,
      );
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ value: 'success' });
      expect(answer.headers.get('x-strata-outcome')).toBe('APPLIED');
      expect(answer.headers.get('x-strata-indexing')).toBe('skipped');
      const warning = answer.headers.get('warning') ?? '';
      expect(warning).toMatch(/^199 strata "The write was stored but not indexed: /);
      expect(warning).toContain('search: search-indexer skipped the change log at MetadataChangeLog_Versioned_v1/0@');
      expect(warning).toContain('graph: search-indexer skipped');
      expect(warning).toContain('Unknown aspect globalTags for entity dataset');
      // The write itself is stored.
      const read = await deployment.http.get(`/aspects/${encodeURIComponent(urn)}?aspect=globalTags`);
      expect(read.status).toBe(200);
    } finally {
      await deployment.stop();
    }
  });

  it('answers at once in a deployment without a read model', async () => {
    const deployment = await deploy({ withIndexer: false });
    try {
      const answer = await deployment.http.post(
        '/aspects?action=ingestProposal&wait=indexed',
        ingestProposalBody(proposalOf(datasetUrn('ryw_alone'), 'status', { removed: false })),
      );
      expect({ status: answer.status, indexing: answer.headers.get('x-strata-indexing') }).toEqual({
        status: 200,
        indexing: 'applied',
      });
    } finally {
      await deployment.stop();
    }
  });
});
