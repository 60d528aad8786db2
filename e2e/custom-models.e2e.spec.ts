/**
 * An operator's own models without a build (docs/custom-models.md): schema files dropped into CUSTOM_MODELS_DIR are
 * loaded at start by every service, then written, read, searched and related like DataHub's own aspects; a bad model
 * stops the start with the reason. Over HTTP only: on the standalone process, and split into processes over Kafka
 * (the shared distributed deployment loads the same models, from e2e/fixtures/custom-models, in every process).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenService } from '@strata/auth';
import {
  datasetUrn,
  SHARED_CUSTOM_MODELS_DIR,
  sharedDeployment,
  startDeployment,
  startStandalone,
  TestHttpClient,
  type RunningDeployment,
} from '@strata/testing';

const syncIndex = { 'X-DataHub-Sync-Index-Update': 'true' };

describe.each(['standalone', 'distributed'] as const)('%s with CUSTOM_MODELS_DIR', (deployment) => {
  let own: RunningDeployment | undefined;
  let http: TestHttpClient;
  /** Credentials: root's token on the distributed deployment, which runs with authentication on. */
  let headers: Record<string, string> = {};
  const orders = datasetUrn(`orders_${deployment}_${Date.now()}`);
  const payer = `urn:li:corpGroup:finance_${deployment}_${Date.now()}`;

  beforeAll(async () => {
    if (deployment === 'standalone') {
      own = await startDeployment('standalone', { env: { CUSTOM_MODELS_DIR: SHARED_CUSTOM_MODELS_DIR } });
      http = new TestHttpClient(own.baseUrl);
      return;
    }
    const shared = await sharedDeployment('distributed');
    http = new TestHttpClient(shared.baseUrl);
    const tokens = new TokenService({ signingKey: shared.signingKey, now: Date.now });
    headers = { Authorization: `Bearer ${(await tokens.mint('datahub', 'SESSION', 3_600_000)).token}` };
  });

  afterAll(async () => {
    await own?.stop();
    own?.cleanUp();
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
    const code = `CC-${Date.now()}`;
    const written = await http.post('/aspects?action=ingestProposal', proposal({ code, payer }), {
      ...syncIndex,
      ...headers,
    });
    expect(written.status).toBe(200);
    const read = await http.get(`/aspects/${encodeURIComponent(orders)}?aspect=costCentre&version=0`, headers);
    expect(read.json).toMatchObject({ aspect: { 'com.example.finance.CostCentre': { code } } });
    const search = await http.post(
      '/entities?action=search',
      {
        entity: 'dataset',
        input: '*',
        filter: { or: [{ and: [{ field: 'code', value: code, condition: 'EQUAL' }] }] },
        start: 0,
        count: 10,
      },
      headers,
    );
    expect((search.json as { value: { entities: string[] } }).value.entities).toEqual([orders]);
    const related = await http.get(
      `/relationships?urn=${encodeURIComponent(payer)}&types=List(PaidBy)&direction=INCOMING`,
      headers,
    );
    expect((related.json as { entities: string[] }).entities).toEqual([orders]);
    const wrong = await http.post('/aspects?action=ingestProposal', proposal({ code: 7 }), headers);
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
