/**
 * How Strata's processes start, share a machine, and stop, run as a user runs them: one instance per service on its
 * embedded data, a start that fails halfway leaving nothing behind, one outcome group per gateway, and a deployment
 * that lacks a read model still answering writes that wait for indexing.
 */
import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  datasetUrn,
  ingestProposalBody,
  gatewaySecrets,
  kafkaEnvironment,
  proposalOf,
  startKafkaTestBroker,
  startServiceProcess,
  startStandalone,
  TestHttpClient,
  type KafkaTestBroker,
  type ServiceProcess,
} from '@strata/testing';

let dataDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'strata-processes-'));
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** The output of a start expected to fail, from the harness's error. */
async function failedStart(start: Promise<unknown>): Promise<string> {
  const error = await start.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(Error);
  return (error as Error).message;
}

describe('one instance per service on embedded data', () => {
  it('refuses a second standalone process on the same data directory, saying why, and keeps the first working', async () => {
    const first = await startStandalone({ dataDir });
    try {
      const output = await failedStart(startStandalone({ dataDir }));
      expect(output).toContain('exited before it was ready');
      expect(output).toContain(`Another metadata-writer is running on the data directory ${dataDir}`);
      const health = await new TestHttpClient(first.baseUrl).get('/health');
      expect(health.status).toBe(200);
    } finally {
      await first.stop();
    }
  });

  it('refuses a second search indexer on the same data directory, while other services share it', async () => {
    const env = { DATA_DIR: dataDir, ...gatewaySecrets() };
    const writer = await startServiceProcess({
      entry: 'apps/metadata-writer/dist/main.js',
      name: 'metadata-writer',
      env,
    });
    const indexer = await startServiceProcess({
      entry: 'apps/search-indexer/dist/main.js',
      name: 'search-indexer',
      env,
    });
    try {
      const output = await failedStart(
        startServiceProcess({ entry: 'apps/search-indexer/dist/main.js', name: 'search-indexer', env }),
      );
      expect(output).toContain(`Another search-indexer is running on the data directory ${dataDir}`);
      expect(output).toContain('ELASTICSEARCH_URL');
    } finally {
      await indexer.stop();
      await writer.stop();
    }
  });
});

describe('a start that fails halfway', () => {
  let blocker: Server;
  let port: number;

  beforeEach(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    port = (blocker.address() as { port: number }).port;
  });

  afterEach(async () => {
    await new Promise<void>((resolve) => {
      blocker.close(() => {
        resolve();
      });
    });
  });

  it('exits with the reason and leaves nothing locked: the next start on the same data works', async () => {
    const output = await failedStart(
      startServiceProcess({ entry: 'apps/standalone/dist/main.js', name: 'Strata', env: { DATA_DIR: dataDir }, port }),
    );
    expect(output).toMatch(/Strata failed to start:[\s\S]*EADDRINUSE/);
    const next = await startStandalone({ dataDir });
    try {
      const write = await new TestHttpClient(next.baseUrl).post(
        '/aspects?action=ingestProposal',
        ingestProposalBody(proposalOf(datasetUrn('after_failed_start'), 'status', { removed: false })),
      );
      expect(write.status).toBe(200);
    } finally {
      await next.stop();
    }
  });
});

describe('gateways and the services behind them, over Kafka', () => {
  let broker: KafkaTestBroker;

  beforeAll(async () => {
    broker = await startKafkaTestBroker();
  });

  afterAll(async () => {
    await broker.stop();
  });

  it('refuses a second gateway with the same instance id: each reads its own outcomes', async () => {
    // A writer and a gateway are all it takes (not the whole distributed deployment).
    const namespace = `sameid${Date.now()}`;
    const env = {
      ...kafkaEnvironment(broker.brokers, namespace),
      ...gatewaySecrets(),
      DATA_DIR: dataDir,
      GATEWAY_INSTANCE_ID: 'gateway-under-test',
    };
    const writer = await startServiceProcess({
      entry: 'apps/metadata-writer/dist/main.js',
      name: 'metadata-writer',
      env,
    });
    let gateway: ServiceProcess | undefined;
    try {
      const gatewayEnv = { ...env, SERVICE_URLS: writer.baseUrl };
      gateway = await startServiceProcess({ entry: 'apps/gateway/dist/main.js', name: 'gateway', env: gatewayEnv });
      const output = await failedStart(
        startServiceProcess({
          entry: 'apps/gateway/dist/main.js',
          name: 'gateway',
          env: gatewayEnv,
          startTimeoutMs: 30_000,
        }),
      );
      expect(output).toContain('Consumer group gateway-outcomes-gateway-under-test has another member');
      // The first gateway still answers its writes.
      const write = await new TestHttpClient(gateway.baseUrl).post(
        '/aspects?action=ingestProposal',
        ingestProposalBody(proposalOf(datasetUrn('one_gateway'), 'status', { removed: false })),
      );
      expect(write.status).toBe(200);
    } finally {
      await gateway?.stop();
      await writer.stop();
    }
  }, 90_000);

  it('answers a write waiting for indexing at once when no service behind the gateway keeps a read model', async () => {
    const namespace = `noindexer${Date.now()}`;
    const env = { ...kafkaEnvironment(broker.brokers, namespace), ...gatewaySecrets(), DATA_DIR: dataDir };
    const writer = await startServiceProcess({
      entry: 'apps/metadata-writer/dist/main.js',
      name: 'metadata-writer',
      env,
    });
    let gateway: ServiceProcess | undefined;
    try {
      gateway = await startServiceProcess({
        entry: 'apps/gateway/dist/main.js',
        name: 'gateway',
        // Longer than jest's test timeout: a request waiting for an indexer that is not there would fail the test.
        env: { ...env, SERVICE_URLS: writer.baseUrl, INGEST_TIMEOUT_MS: '120000' },
      });
      const http = new TestHttpClient(gateway.baseUrl);
      const write = await http.post(
        '/aspects?action=ingestProposal',
        ingestProposalBody(proposalOf(datasetUrn('no_indexer'), 'status', { removed: false })),
        { 'X-DataHub-Sync-Index-Update': 'true' },
      );
      expect({ status: write.status, indexing: write.headers.get('x-strata-indexing') }).toEqual({
        status: 200,
        indexing: 'applied',
      });
      // The search routes are not there: nobody owns them in this deployment.
      const search = await http.post('/entities?action=search', { input: '*', entity: 'dataset' });
      expect(search.status).toBe(400);
      expect((search.json as { message: string }).message).toMatch(/Unknown action 'search'/);
    } finally {
      // The writer too when the gateway did not start: nothing outlives the test.
      await gateway?.stop();
      await writer.stop();
    }
  });
});
