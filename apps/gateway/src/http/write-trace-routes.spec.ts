import type { RequestContext, RouteCall } from '@strata/http';
import { BadRequestError, ForbiddenError } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import type { Authorizer } from '../auth/authorizer';
import { requestedAspects, writeTraceRoutes, type WriteTraceRouteOptions } from './write-trace-routes';

const registry = testEntityRegistry();
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const topic = 'MetadataChangeLog_Versioned_v1';
const orders = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
const customers = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.customers,PROD)';

const context: RequestContext = {
  requestId: 'r',
  traceId: 'r',
  actor: 'urn:li:corpuser:jdoe',
  sourceIp: undefined,
  userAgent: undefined,
  eventSource: 'OPENAPI',
  url: `/openapi/v1/trace/write/${TRACE}`,
  header: () => undefined,
};

/** What the writer recorded, by `urn aspect`; unlisted keys are unseen. */
const RECORDED: Record<string, object> = {
  [`${orders} status`]: {
    seen: true,
    status: 'APPLIED',
    version: 1,
    errorCode: null,
    error: null,
    current: true,
    changeLogged: true,
    publishedBefore: [{ topic, partition: 0, end: '5' }],
  },
  [`${orders} datasetProperties`]: {
    seen: true,
    status: 'REJECTED',
    version: null,
    errorCode: 'validation',
    error: 'Could not deserialize "x" for aspect datasetProperties: expected a JSON object',
    current: false,
    changeLogged: false,
    publishedBefore: null,
  },
};

function routeWith(options: Partial<WriteTraceRouteOptions> & { position?: string } = {}) {
  const calls: RouteCall[] = [];
  const call = (routeCall: RouteCall) => {
    calls.push(routeCall);
    if (routeCall.resource === '/internal/write-traces') {
      const { keys } = routeCall.body as { keys: { urn: string; aspect: string }[] };
      return Promise.resolve({
        traces: keys.map(({ urn, aspect }) => ({ urn, aspect, ...(RECORDED[`${urn} ${aspect}`] ?? { seen: false }) })),
      });
    }
    return Promise.resolve({
      backlog: { partitions: [{ topic, partition: 0, position: options.position ?? '5', end: '9', pending: 4 }] },
    });
  };
  const [route] = writeTraceRoutes({
    registry,
    call,
    readModels: [{ name: 'search', topics: [topic] }],
    ...options,
  });
  return {
    calls,
    trace: (body: unknown, query: Record<string, string> = {}, traceId = TRACE) =>
      route!.invoke({ query, body, key: undefined, params: { traceId }, context }).then((answer) => answer.body),
  };
}

describe('POST /openapi/v1/trace/write/{traceId}', () => {
  it('answers per urn and aspect the state of the write in the primary store and the search index', async () => {
    const { trace, calls } = routeWith();
    const body = { [orders]: ['status', 'datasetProperties'], [customers]: ['Status'] };

    expect(await trace(body, { onlyIncludeErrors: 'false', detailed: 'true' })).toEqual({
      [orders]: {
        status: {
          success: true,
          primaryStorage: { writeStatus: 'ACTIVE_STATE' },
          searchStorage: { writeStatus: 'ACTIVE_STATE' },
        },
        datasetProperties: {
          success: false,
          primaryStorage: {
            writeStatus: 'ERROR',
            writeMessage: 'Could not deserialize "x" for aspect datasetProperties: expected a JSON object',
            writeExceptions: [
              { message: 'Could not deserialize "x" for aspect datasetProperties: expected a JSON object' },
            ],
          },
          searchStorage: { writeStatus: 'ERROR', writeMessage: 'Primary storage write failed.' },
        },
      },
      // Aspect names resolve ignoring case, as DataHub resolves them.
      [customers]: {
        status: {
          success: true,
          primaryStorage: { writeStatus: 'PENDING', writeMessage: 'Not applied yet.' },
          searchStorage: { writeStatus: 'PENDING', writeMessage: 'Pending primary storage write.' },
        },
      },
    });
    expect(calls[0]).toEqual({
      method: 'POST',
      resource: '/internal/write-traces',
      body: {
        traceId: TRACE,
        keys: [
          { urn: orders, aspect: 'status' },
          { urn: orders, aspect: 'datasetProperties' },
          { urn: customers, aspect: 'status' },
        ],
      },
    });
  });

  it('leaves out, by default, every aspect without an error, and every URN left with none', async () => {
    const { trace } = routeWith({ position: '4' });
    expect(await trace({ [orders]: ['status', 'datasetProperties'], [customers]: ['status'] })).toEqual({
      [orders]: {
        datasetProperties: expect.objectContaining({ success: false }) as unknown,
      },
    });
    // Not yet indexed: the indexer has not passed where the log ended at publication.
    expect(await trace({ [orders]: ['status'] }, { onlyIncludeErrors: 'false' })).toMatchObject({
      [orders]: { status: { searchStorage: { writeStatus: 'PENDING' } } },
    });
  });

  it('takes a whole traceparent as the trace id, drops unknown aspect names, and reads every aspect for an empty list', async () => {
    const { trace, calls } = routeWith();
    await trace({ [orders]: ['status', 'noSuchAspect'] }, {}, `00-${TRACE}-00f067aa0ba902b7-01`);
    expect(calls[0]?.body).toEqual({ traceId: TRACE, keys: [{ urn: orders, aspect: 'status' }] });
    expect(requestedAspects(registry, { [orders]: [] }).get(orders)?.aspects).toEqual(
      registry.entity('dataset')?.aspects.map((aspect) => aspect.name),
    );
  });

  it('refuses bad input with a 400: a trace id, a URN, an unknown entity type, a body that is not URNs to lists', async () => {
    const { trace } = routeWith();
    await expect(trace({ [orders]: ['status'] }, {}, 'not-a-trace')).rejects.toThrow(BadRequestError);
    await expect(trace({ 'not a urn': ['status'] })).rejects.toThrow(BadRequestError);
    await expect(trace({ 'urn:li:noSuchEntity:x': ['status'] })).rejects.toThrow('Unknown entity type noSuchEntity');
    await expect(trace({ [orders]: 'status' })).rejects.toThrow(BadRequestError);
    await expect(trace([orders])).rejects.toThrow(BadRequestError);
    await expect(trace({ [orders]: ['status'] }, { detailed: 'maybe' })).rejects.toThrow(BadRequestError);
  });

  it('needs ENTITY READ on every URN, with authentication on, refused as DataHub refuses it', async () => {
    const refusing = {
      enabled: true,
      denied: (_context: RequestContext, _requirement: unknown, resources: readonly { urn?: string }[]) =>
        Promise.resolve(resources.filter((resource) => resource.urn === customers)),
    } as unknown as Authorizer;
    const { trace, calls } = routeWith({ authorizer: refusing });
    await expect(trace({ [orders]: ['status'], [customers]: ['status'] })).rejects.toThrow(
      new ForbiddenError('urn:li:corpuser:jdoe is unauthorized to READ as least one of the requested URNs.'),
    );
    expect(calls).toEqual([]);
    await expect(trace({ [orders]: ['status'] })).resolves.toEqual({});
  });

  it('says the search index is not traced in a deployment without one, and unknown when its progress is unreadable', async () => {
    const absent = routeWith({ readModels: [] });
    expect(await absent.trace({ [orders]: ['status'] }, { onlyIncludeErrors: 'false' })).toMatchObject({
      [orders]: { status: { searchStorage: { writeStatus: 'TRACE_NOT_IMPLEMENTED' } } },
    });
    const unreadable = routeWith({
      call: (routeCall: RouteCall) =>
        routeCall.resource === '/internal/write-traces'
          ? Promise.resolve({ traces: [{ urn: orders, aspect: 'status', ...RECORDED[`${orders} status`] }] })
          : Promise.reject(new Error('search indexer unavailable')),
    });
    expect(await unreadable.trace({ [orders]: ['status'] }, { onlyIncludeErrors: 'false' })).toMatchObject({
      [orders]: {
        status: {
          success: true,
          searchStorage: {
            writeStatus: 'UNKNOWN',
            writeMessage: "The search indexer's progress could not be read: search indexer unavailable",
          },
        },
      },
    });
  });
});
