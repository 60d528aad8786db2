/**
 * Every app's composition root, built and started in this process on the embedded engines, as its `main.ts` builds it
 * from its configuration: the six services each alone on one data directory (the distributed topology, minus Kafka),
 * the gateway in front of them, and the standalone process. Each starts (so its wiring holds: every route declares
 * valid access, every privilege it names exists, every peer it needs is found), and on each service alone every route
 * of its table refuses anyone but the system client — the gateway's checks have no way around them.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAuditApp, loadAuditConfig } from '@strata/audit';
import { createGatewayApp, loadGatewayConfig } from '@strata/gateway';
import { fetchServiceTable, systemClientAuthorization, type RunnableService, type ServiceTable } from '@strata/http';
import { createMetadataWriterApp, loadMetadataWriterConfig } from '@strata/metadata-writer';
import { createOperationsApp, loadOperationsConfig } from '@strata/operations';
import { createSearchIndexerApp, loadSearchIndexerConfig } from '@strata/search-indexer';
import { createTimeseriesIndexerApp, loadTimeseriesIndexerConfig } from '@strata/timeseries-indexer';
import { freePorts, TestHttpClient } from '@strata/testing';
import { systemScheduler } from '@strata/timing';
import { createStandaloneApp } from './app';
import { loadStandaloneConfig } from './config';

const systemClient = { id: '__datahub_system', secret: randomBytes(24).toString('base64url') };
const secrets = {
  DATAHUB_SYSTEM_CLIENT_SECRET: systemClient.secret,
  DATAHUB_TOKEN_SERVICE_SIGNING_KEY: randomBytes(32).toString('base64url'),
  STRATA_ROOT_PASSWORD: randomBytes(12).toString('base64url'),
};

describe('every app’s composition root, started from its configuration', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'strata-wiring-'));
  const started: RunnableService[] = [];
  let ports: Record<string, number>;
  const url = (service: string) => `http://127.0.0.1:${ports[service] ?? 0}`;
  const environment = (service: string, more: Record<string, string> = {}) => ({
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(ports[service]),
    LOG_LEVEL: 'silent',
    ...secrets,
    ...more,
  });
  const start = async (app: RunnableService) => {
    started.push(app);
    await app.start();
  };

  beforeAll(async () => {
    const names = ['writer', 'search', 'audit', 'timeseries', 'operations', 'gateway', 'standalone'];
    const free = await freePorts(names.length);
    ports = Object.fromEntries(names.map((name, index) => [name, free[index] ?? 0]));
  });

  afterAll(async () => {
    for (const app of started.reverse()) await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const tables = new Map<string, ServiceTable>();
  const table = async (service: string) => {
    const found = await fetchServiceTable(url(service), {
      timeoutMs: 5_000,
      scheduler: systemScheduler,
      authorization: systemClientAuthorization(systemClient),
    });
    tables.set(service, found);
    return found;
  };

  it.each([
    ['metadata-writer', 'writer', () => createMetadataWriterApp(loadMetadataWriterConfig(environment('writer')))],
    ['search-indexer', 'search', () => createSearchIndexerApp(loadSearchIndexerConfig(environment('search')))],
    ['audit', 'audit', () => createAuditApp(loadAuditConfig(environment('audit')))],
    [
      'timeseries-indexer',
      'timeseries',
      () => createTimeseriesIndexerApp(loadTimeseriesIndexerConfig(environment('timeseries'))),
    ],
    [
      'operations',
      'operations',
      () =>
        createOperationsApp(
          loadOperationsConfig(
            environment('operations', {
              OPERATIONS_SERVICE_URLS: [url('writer'), url('search'), url('timeseries')].join(','),
            }),
          ),
        ),
    ],
  ] as const)(
    'builds and starts %s alone, whose table declares the access of every route',
    async (service, port, app) => {
      await start(app());
      const found = await table(port);
      expect(found.service).toBe(service);
      expect(found.routes.length).toBeGreaterThan(0);
      // The table's schema refuses a route without a declaration; internal routes are declared internal.
      for (const route of found.routes) {
        expect({ route: route.resource, internal: route.access.kind === 'internal' }).toEqual({
          route: route.resource,
          internal: route.resource.startsWith('/internal/'),
        });
      }
    },
  );

  it('leaves no way around the gateway: each service alone answers every route to the system client only', async () => {
    const refused: string[] = [];
    for (const [service, found] of tables) {
      const direct = new TestHttpClient(url(service));
      expect((await direct.get('/internal/service')).status).toBe(401);
      for (const route of found.routes) {
        const path = `${route.resource.replace(/:[A-Za-z0-9_]+/g, 'x')}${route.key ? '/urn%3Ali%3Acorpuser%3Ax' : ''}${
          route.action ? `?action=${route.action}` : ''
        }`;
        for (const authorization of [undefined, 'Bearer a.user.token', `Basic ${systemClient.id}:not-the-secret`]) {
          const response = await direct.send(route.method, path, route.method === 'GET' ? undefined : '{', {
            'Content-Type': 'application/json',
            ...(authorization === undefined ? {} : { Authorization: authorization }),
          });
          if (response.status !== 401) refused.push(`${service} ${route.method} ${path}: ${response.status}`);
        }
      }
    }
    expect(tables.size).toBe(5);
    expect(refused).toEqual([]);
  });

  it('builds and starts the gateway in front of them, with authentication on, and it answers only credentials', async () => {
    await start(
      createGatewayApp(
        loadGatewayConfig(
          environment('gateway', {
            SERVICE_URLS: ['writer', 'search', 'audit', 'timeseries', 'operations'].map(url).join(','),
            METADATA_SERVICE_AUTH_ENABLED: 'true',
          }),
        ),
      ),
    );
    const gateway = new TestHttpClient(url('gateway'));
    expect((await gateway.get('/health')).status).toBe(200);
    expect((await gateway.get(`/entitiesV2/${encodeURIComponent('urn:li:corpuser:datahub')}`)).status).toBe(401);
    const system = { Authorization: systemClientAuthorization(systemClient) };
    expect((await gateway.get(`/entitiesV2/${encodeURIComponent('urn:li:corpuser:datahub')}`, system)).status).toBe(
      200,
    );
  });

  it('builds and starts the standalone process', async () => {
    const standaloneData = mkdtempSync(join(tmpdir(), 'strata-wiring-standalone-'));
    try {
      const app = createStandaloneApp(loadStandaloneConfig({ ...environment('standalone'), DATA_DIR: standaloneData }));
      await app.start();
      try {
        const http = new TestHttpClient(url('standalone'));
        expect((await http.get('/health')).status).toBe(200);
        expect((await http.get('/config')).json).toMatchObject({ noCode: 'true' });
      } finally {
        await app.stop();
      }
    } finally {
      rmSync(standaloneData, { recursive: true, force: true });
    }
  });
});
