import { BadRequestError } from '@strata/model';
import { SqliteAuditIndex, type AuditEvent } from '@strata/indices';
import type { RequestContext } from '@strata/http';
import { auditRoutes, decodeScrollId, encodeScrollId } from './audit-routes';

const context: RequestContext = {
  requestId: 'r',
  traceId: 't',
  actor: 'urn:li:corpuser:datahub',
  sourceIp: undefined,
  userAgent: undefined,
  eventSource: 'OPENAPI',
  url: '/openapi/v1/events/audit/search',
  header: () => undefined,
};

const DAY = 24 * 60 * 60 * 1000;

describe('the audit search route', () => {
  let now = 10 * DAY;
  const index = new SqliteAuditIndex({ path: ':memory:' });
  const [route] = auditRoutes(index, () => now);
  if (route === undefined) throw new Error('no route');
  const call = async (query: Record<string, unknown>, body: unknown = {}) =>
    (await route.invoke({ query, body, key: undefined, params: {}, context })).body as {
      nextScrollId: string | null;
      count: number;
      total: number;
      usageEvents: { timestamp: number }[];
    };
  const event = (timestamp: number, id: string): AuditEvent => ({
    id,
    type: 'UpdateAspectEvent',
    timestamp,
    actorUrn: 'urn:li:corpuser:jdoe',
  });

  afterAll(() => index.close());

  it('searches the day before now by default, end exclusive, and gives a scroll id only for a full page', async () => {
    await index.record([
      event(now - DAY - 1, 'too-old'),
      event(now - DAY, 'first'),
      event(now - 1, 'last'),
      event(now, 'now'),
    ]);
    const all = await call({});
    expect(all.usageEvents.map((found) => found.timestamp)).toEqual([now - 1, now - DAY]);
    expect(all).toMatchObject({ count: 2, total: 2, nextScrollId: null });
    const full = await call({ size: '2' });
    expect(full.nextScrollId).not.toBeNull();
  });

  it('keeps the window of the first page for the whole scroll, though now moves on', async () => {
    const first = await call({ size: '1' });
    expect(first.usageEvents.map((found) => found.timestamp)).toEqual([now - 1]);
    now += 2 * DAY; // the default window would no longer hold the rest
    const second = await call({ size: '1', scrollId: first.nextScrollId });
    expect(second.usageEvents.map((found) => found.timestamp)).toEqual([now - 2 * DAY - DAY]);
    now -= 2 * DAY;
  });

  it('answers an empty page for an empty window', async () => {
    expect(await call({ startTime: '5', endTime: '5' })).toMatchObject({ count: 0, total: 0, nextScrollId: null });
  });

  it('reads back the scroll ids it writes, and refuses any other with a 400', () => {
    const id = encodeScrollId({ sort: [5, 'LogInEvent', 'urn:li:corpuser:x', 'login/1'], window: [1, 9] });
    expect(JSON.parse(Buffer.from(id, 'base64').toString('utf8'))).toEqual({
      sort: [5, 'LogInEvent', 'urn:li:corpuser:x', 'login/1'],
      pitId: null,
      expirationTime: 0,
      window: [1, 9],
    });
    expect(decodeScrollId(id)).toEqual({ sort: [5, 'LogInEvent', 'urn:li:corpuser:x', 'login/1'], window: [1, 9] });
    for (const bad of [
      'junk',
      Buffer.from('{"sort":[1,2]}').toString('base64'),
      Buffer.from('[]').toString('base64'),
    ]) {
      expect(() => decodeScrollId(bad)).toThrow(BadRequestError);
      expect(() => decodeScrollId(bad)).toThrow(`Invalid scroll Id cannot be mapped: ${bad}`);
    }
  });
});
