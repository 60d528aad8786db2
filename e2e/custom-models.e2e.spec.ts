/**
 * An operator's own models without a build (docs/custom-models.md): schema files dropped into CUSTOM_MODELS_DIR are
 * loaded at start by every service, then written, read, searched and related like DataHub's own aspects; a bad model
 * stops the start with the reason. Over HTTP only, on the embedded engines and split into processes over Kafka.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  datasetUrn,
  startDeployment,
  startKafkaTestBroker,
  startStandalone,
  TestHttpClient,
  type KafkaTestBroker,
  type RunningDeployment,
} from '@strata/testing';

const syncIndex = { 'X-DataHub-Sync-Index-Update': 'true' };

const costCentre = {
  type: 'record',
  name: 'CostCentre',
  namespace: 'com.example.finance',
  Aspect: { name: 'costCentre' },
  fields: [
    { name: 'code', type: 'string', Searchable: { fieldType: 'KEYWORD', addToFilters: true } },
    {
      name: 'payer',
      type: ['null', { type: 'string', java: { class: 'com.linkedin.common.urn.CorpGroupUrn' } }],
      default: null,
      Relationship: { name: 'PaidBy', entityTypes: ['corpGroup'] },
    },
  ],
};

let broker: KafkaTestBroker;
let modelsDir: string;

beforeAll(async () => {
  broker = await startKafkaTestBroker();
  modelsDir = mkdtempSync(join(tmpdir(), 'strata-models-'));
  writeFileSync(join(modelsDir, 'CostCentre.avsc'), JSON.stringify(costCentre));
  writeFileSync(
    join(modelsDir, 'entity-registry.json'),
    JSON.stringify({ entities: [{ name: 'dataset', aspects: ['costCentre'] }] }),
  );
});

afterAll(async () => {
  await broker.stop();
  rmSync(modelsDir, { recursive: true, force: true });
});

describe.each(['standalone', 'distributed'] as const)('%s with CUSTOM_MODELS_DIR', (deployment) => {
  let strata: RunningDeployment;
  let http: TestHttpClient;
  const orders = datasetUrn(`orders_${deployment}`);

  beforeAll(async () => {
    strata = await startDeployment(deployment, { kafkaBrokers: broker.brokers, env: { CUSTOM_MODELS_DIR: modelsDir } });
    http = new TestHttpClient(strata.baseUrl);
  });

  afterAll(async () => {
    await strata.stop();
    strata.cleanUp();
  });

  it('writes, reads, searches and relates the operator’s aspect like a built-in one, and validates it', async () => {
    const proposal = (value: unknown) => ({
      proposal: {
        entityType: 'dataset',
        entityUrn: orders,
        changeType: 'UPSERT',
        aspectName: 'costCentre',
        aspect: { value: JSON.stringify(value), contentType: 'application/json' },
      },
    });
    const written = await http.post(
      '/aspects?action=ingestProposal',
      proposal({ code: 'CC-7', payer: 'urn:li:corpGroup:finance' }),
      syncIndex,
    );
    expect(written.status).toBe(200);
    const read = await http.get(`/aspects/${encodeURIComponent(orders)}?aspect=costCentre&version=0`);
    expect(read.json).toMatchObject({ aspect: { 'com.example.finance.CostCentre': { code: 'CC-7' } } });
    const search = await http.post('/entities?action=search', {
      entity: 'dataset',
      input: '*',
      filter: { or: [{ and: [{ field: 'code', value: 'CC-7', condition: 'EQUAL' }] }] },
      start: 0,
      count: 10,
    });
    expect((search.json as { value: { entities: string[] } }).value.entities).toEqual([orders]);
    const related = await http.get(
      `/relationships?urn=${encodeURIComponent('urn:li:corpGroup:finance')}&types=List(PaidBy)&direction=INCOMING`,
    );
    expect((related.json as { entities: string[] }).entities).toEqual([orders]);
    const wrong = await http.post('/aspects?action=ingestProposal', proposal({ code: 7 }));
    expect(wrong.status).toBe(422);
    expect((wrong.json as { message: string }).message).toMatch(/Invalid format for aspect: costCentre[\s\S]*\/code/);
  });
});

describe('a bad custom model', () => {
  it('stops the start, naming the directory, the file and the fault', async () => {
    const badDir = mkdtempSync(join(tmpdir(), 'strata-bad-models-'));
    const dataDir = mkdtempSync(join(tmpdir(), 'strata-bad-models-data-'));
    try {
      const status = {
        type: 'record',
        name: 'Status',
        namespace: 'com.linkedin.common',
        Aspect: { name: 'status' },
        fields: [{ name: 'removed', type: 'string' }],
      };
      writeFileSync(join(badDir, 'Status.avsc'), JSON.stringify(status));
      const error = await startStandalone({ dataDir, env: { CUSTOM_MODELS_DIR: badDir } }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain(
        `Custom models in ${badDir}: custom/Status.avsc changes com.linkedin.common.Status incompatibly`,
      );
    } finally {
      rmSync(badDir, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
