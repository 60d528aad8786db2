import type { RequestContext } from '@strata/http';
import { BadRequestError, GATEWAY_WRITE_SWITCH_MARK } from '@strata/model';
import { SqliteAspectStore } from '@strata/store';
import { storeReadRoutes } from './store-read-routes';

const context: RequestContext = {
  requestId: 'r',
  traceId: 'r',
  actor: 'urn:li:corpuser:__datahub_system',
  sourceIp: undefined,
  userAgent: undefined,
  eventSource: 'OPENAPI',
  url: '/internal/marks',
  header: () => undefined,
};

let store: SqliteAspectStore;

beforeEach(() => {
  store = new SqliteAspectStore({ path: ':memory:' });
});

afterEach(async () => {
  await store.close();
});

function route(method: string) {
  const found = storeReadRoutes(store).find((each) => each.method === method && each.resource === '/internal/marks');
  if (found === undefined) throw new Error(`no ${method} /internal/marks`);
  return found;
}

const invoke = (method: string, request: { query?: Record<string, unknown>; body?: unknown }) =>
  route(method).invoke({ query: request.query ?? {}, body: request.body, key: undefined, params: {}, context });

describe('/internal/marks', () => {
  it('sets a switch, which reads back; a mark never set reads null', async () => {
    await invoke('POST', { body: { name: GATEWAY_WRITE_SWITCH_MARK, value: 'false' } });
    expect((await invoke('GET', { query: { name: [GATEWAY_WRITE_SWITCH_MARK, 'security.policies'] } })).body).toEqual({
      marks: { [GATEWAY_WRITE_SWITCH_MARK]: 'false', 'security.policies': null },
    });
  });

  it('sets no mark but a switch: the security marks are the writer’s own', async () => {
    const refused = await invoke('POST', { body: { name: 'security.policies', value: 'stale' } }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(BadRequestError);
    expect(await store.getMarks(['security.policies'])).toEqual(new Map());
  });
});
