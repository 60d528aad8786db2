import type { RequestContext } from '@strata/http';
import { BadRequestError } from '@strata/model';
import { SqliteAspectStore, type NewWriteTrace, type PutAspect } from '@strata/store';
import { writeTraceRoutes } from './write-trace-routes';

const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
const ENDS = [{ topic: 'MetadataChangeLog_Versioned_v1', partition: 0, end: '7' }];

const context: RequestContext = {
  requestId: 'r',
  traceId: 'r',
  actor: 'urn:li:corpuser:__datahub_system',
  sourceIp: undefined,
  userAgent: undefined,
  eventSource: 'OPENAPI',
  url: '/internal/write-traces',
  header: () => undefined,
};

let store: SqliteAspectStore;

beforeEach(() => {
  store = new SqliteAspectStore({ path: ':memory:' });
});

afterEach(async () => {
  await store.close();
});

function put(aspect: string, expectedVersion: number, version: number, createdOn: number): PutAspect {
  return {
    kind: 'put',
    urn,
    aspect,
    expectedVersion,
    row: { version, value: { v: version }, systemMetadata: {}, createdOn, createdBy: 'urn:li:corpuser:w' },
  };
}

function trace(traceId: string, aspect: string, fields: Partial<NewWriteTrace> = {}): NewWriteTrace {
  return {
    traceId,
    urn,
    aspect,
    proposalId: `${traceId}-${aspect}`,
    status: 'APPLIED',
    version: null,
    createdOn: null,
    errorCode: null,
    error: null,
    changeLogged: true,
    recordedAt: 1,
    ...fields,
  };
}

async function ask(traceId: string, aspects: readonly string[]): Promise<unknown> {
  const [route] = writeTraceRoutes(store);
  const answer = await route!.invoke({
    query: {},
    body: { traceId, keys: aspects.map((aspect) => ({ urn, aspect })) },
    key: undefined,
    params: {},
    context,
  });
  return answer.body;
}

describe('POST /internal/write-traces', () => {
  it('says of each (urn, aspect) whether the trace’s write is unseen, refused, unchanged, or applied and still current', async () => {
    await store.commit({
      mutations: [put('status', 0, 1, 100)],
      outbox: [{ topic: 'MetadataChangeLog_Versioned_v1', key: urn, value: Buffer.from('status'), headers: {} }],
      appliedProposalIds: [],
      writeTraces: [
        trace('first', 'status', { version: 1, createdOn: 100 }),
        trace('first', 'ownership', { status: 'REJECTED', errorCode: 'validation', error: 'bad', changeLogged: false }),
      ],
    });
    const [published] = await store.pendingOutbox(1);
    await store.recordPublication(published!.id, ENDS);
    await store.commit({
      mutations: [put('status', 1, 2, 200)],
      outbox: [],
      appliedProposalIds: [],
      writeTraces: [
        trace('second', 'status', { version: 2, createdOn: 200 }),
        trace('second', 'ownership', { status: 'UNCHANGED', version: 3, changeLogged: false }),
      ],
    });

    expect(await ask('first', ['status', 'ownership', 'globalTags'])).toEqual({
      traces: [
        {
          urn,
          aspect: 'status',
          seen: true,
          status: 'APPLIED',
          version: 1,
          errorCode: null,
          error: null,
          current: false,
          changeLogged: true,
          publishedBefore: ENDS,
        },
        {
          urn,
          aspect: 'ownership',
          seen: true,
          status: 'REJECTED',
          version: null,
          errorCode: 'validation',
          error: 'bad',
          current: false,
          changeLogged: false,
          publishedBefore: null,
        },
        { urn, aspect: 'globalTags', seen: false },
      ],
    });
    expect(await ask('second', ['status', 'ownership'])).toMatchObject({
      traces: [
        { aspect: 'status', status: 'APPLIED', version: 2, current: true, publishedBefore: null },
        { aspect: 'ownership', status: 'UNCHANGED', current: false },
      ],
    });
  });

  it('tells a version from a later one of the same ordinal (the entity deleted and written again) by when it was written', async () => {
    await store.commit({
      mutations: [put('status', 0, 1, 100)],
      outbox: [{ topic: 'MetadataChangeLog_Versioned_v1', key: urn, value: Buffer.from('status'), headers: {} }],
      appliedProposalIds: [],
      writeTraces: [trace('old', 'status', { version: 1, createdOn: 100 })],
    });
    await store.commit({
      mutations: [{ kind: 'deleteEntity', urn }, put('status', 0, 1, 300)],
      outbox: [],
      appliedProposalIds: [],
    });
    expect(await ask('old', ['status'])).toMatchObject({ traces: [{ version: 1, current: false }] });
  });

  it('keeps a delete current while the aspect stays absent, and a timeseries value current', async () => {
    await store.commit({
      mutations: [],
      outbox: [],
      appliedProposalIds: [],
      writeTraces: [trace('delete', 'status'), trace('point', 'datasetProfile', { changeLogged: false })],
    });
    expect(await ask('delete', ['status'])).toMatchObject({ traces: [{ current: true }] });
    expect(await ask('point', ['datasetProfile'])).toMatchObject({ traces: [{ current: true }] });

    await store.commit({ mutations: [put('status', 0, 1, 400)], outbox: [], appliedProposalIds: [] });
    expect(await ask('delete', ['status'])).toMatchObject({ traces: [{ current: false }] });
  });

  it('refuses a question without a trace id', async () => {
    const [route] = writeTraceRoutes(store);
    await expect(
      route!.invoke({ query: {}, body: { traceId: '', keys: [] }, key: undefined, params: {}, context }),
    ).rejects.toBeInstanceOf(BadRequestError);
  });
});
