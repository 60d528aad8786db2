import { randomUUID } from 'node:crypto';

import { describe, expect, it } from '@jest/globals';

import {
  AUDIT_TOTAL_LIMIT,
  compareAuditEvents,
  cursorOf,
  type AuditCursor,
  type AuditEvent,
  type AuditIndex,
  type AuditQuery,
} from './audit-index';
import { trackedIndices, type IndexUnderTest } from './contract-handles';

/** What {@link describeAuditIndexContract} needs from an adapter. */
export interface AuditIndexContractFactory {
  /**
   * Opens an index for one test; the suite closes it, then calls `dispose`. Every test's events carry an actor
   * unique to the test, and its searches filter on it, so a shared engine need not be emptied between tests.
   */
  create(): Promise<IndexUnderTest<AuditIndex>>;
}

/**
 * The audit-index contract (the invariants stated on {@link AuditIndex}), as one jest `describe` block to run against
 * every adapter. Every read goes through `search`.
 */
export function describeAuditIndexContract(name: string, factory: AuditIndexContractFactory): void {
  const open = trackedIndices(() => factory.create());
  const runId = randomUUID().slice(0, 8);
  let sequence = 0;
  const T0 = 1_700_000_000_000;

  /** A test's own actors and ids, so that its searches see only its events. */
  function scope() {
    sequence += 1;
    const actor = (name = 'jdoe') => `urn:li:corpuser:${name}-${runId}-${sequence}`;
    let ids = 0;
    const event = (fields: Partial<AuditEvent> & { timestamp: number }): AuditEvent => {
      ids += 1;
      return {
        id: `${runId}-${sequence}-${String(ids).padStart(6, '0')}`,
        type: 'UpdateAspectEvent',
        actorUrn: actor(),
        entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)',
        entityType: 'dataset',
        aspectName: 'status',
        ...fields,
      };
    };
    const query = (fields: Partial<AuditQuery> = {}): AuditQuery => ({
      startTime: T0 - 1_000_000,
      endTime: T0 + 1_000_000_000,
      eventTypes: [],
      entityTypes: [],
      aspectTypes: [],
      actorUrns: [actor(), actor('alice'), actor('bob')],
      size: 100,
      ...fields,
    });
    return { actor, event, query };
  }

  /** Every event of a query, page by page; fails on a page that repeats an event. */
  async function scrollAll(index: AuditIndex, query: AuditQuery, onPage?: () => Promise<void>): Promise<AuditEvent[]> {
    const seen: AuditEvent[] = [];
    let after: AuditCursor | undefined;
    for (;;) {
      const page = await index.search({ ...query, ...(after === undefined ? {} : { after }) });
      seen.push(...page.events);
      const last = page.events.at(-1);
      if (page.events.length < query.size || last === undefined) return seen;
      after = cursorOf(last);
      await onPage?.();
    }
  }

  describe(`${name} satisfies the AuditIndex contract`, () => {
    it('returns recorded events newest first, whole, with their total', async () => {
      const { index } = await open();
      const { event, query } = scope();
      const events = [
        event({ timestamp: T0 + 1, entityUrn: 'urn:li:corpuser:x', entityType: 'corpuser', aspectName: 'corpUserKey' }),
        event({
          timestamp: T0 + 3,
          type: 'LogInEvent',
          entityUrn: undefined,
          entityType: undefined,
          aspectName: undefined,
          loginSource: 'passwordLogin',
          eventSource: 'RESTLI',
          sourceIP: '127.0.0.1',
          userAgent: 'python-requests/2.31',
          traceId: 'trace-1',
        }),
        event({ timestamp: T0 + 2, changeType: 'UPSERT' }),
      ];
      await index.record(events);
      const page = await index.search(query());
      expect(page.total).toBe(3);
      expect(page.events).toEqual([...events].sort(compareAuditEvents).map(withoutUndefined));
      expect(page.events.map((found) => found.timestamp)).toEqual([T0 + 3, T0 + 2, T0 + 1]);
    });

    it('records an id once: recording it again keeps one event, the later copy', async () => {
      const { index } = await open();
      const { event, query } = scope();
      const first = event({ timestamp: T0 });
      await index.record([first]);
      await index.record([{ ...first, aspectName: 'ownership' }]);
      const page = await index.search(query());
      expect(page.total).toBe(1);
      expect(page.events).toEqual([{ ...withoutUndefined(first), aspectName: 'ownership' }]);
    });

    it('searches the window from its start (inclusive) to its end (exclusive)', async () => {
      const { index } = await open();
      const { event, query } = scope();
      await index.record([T0 - 1, T0, T0 + 5, T0 + 9, T0 + 10].map((timestamp) => event({ timestamp })));
      const page = await index.search(query({ startTime: T0, endTime: T0 + 10 }));
      expect(page.events.map((found) => found.timestamp)).toEqual([T0 + 9, T0 + 5, T0]);
      expect(page.total).toBe(3);
    });

    it('filters with OR within a list and AND across lists; an empty list does not narrow', async () => {
      const { index } = await open();
      const { actor, event, query } = scope();
      await index.record([
        event({ timestamp: T0 + 1, type: 'CreateAccessTokenEvent', actorUrn: actor('alice'), entityType: 'token' }),
        event({ timestamp: T0 + 2, type: 'RevokeAccessTokenEvent', actorUrn: actor('alice'), entityType: 'token' }),
        event({ timestamp: T0 + 3, type: 'CreateAccessTokenEvent', actorUrn: actor('bob'), entityType: 'token' }),
        event({ timestamp: T0 + 4, type: 'UpdateAspectEvent', actorUrn: actor('alice'), aspectName: 'ownership' }),
        event({
          timestamp: T0 + 5,
          type: 'LogInEvent',
          actorUrn: actor('alice'),
          entityUrn: undefined,
          entityType: undefined,
          aspectName: undefined,
        }),
      ]);
      const times = async (fields: Partial<AuditQuery>) =>
        (await index.search(query(fields))).events.map((found) => found.timestamp - T0);
      expect(
        await times({
          eventTypes: ['CreateAccessTokenEvent', 'RevokeAccessTokenEvent'],
          actorUrns: [actor('alice')],
        }),
      ).toEqual([2, 1]);
      expect(await times({ entityTypes: ['token', 'dataset'] })).toEqual([4, 3, 2, 1]);
      expect(await times({ entityTypes: ['token'], aspectTypes: ['status'] })).toEqual([3, 2, 1]);
      expect(await times({ aspectTypes: ['ownership'] })).toEqual([4]);
      expect(await times({ eventTypes: ['LogInEvent'] })).toEqual([5]);
      expect(await times({ eventTypes: ['NoSuchEvent'] })).toEqual([]);
      expect((await index.search(query({ actorUrns: [actor('bob')] }))).total).toBe(1);
    });

    it('breaks ties of time by type, then actor, then id', async () => {
      const { actor, event, query } = scope();
      const { index } = await open();
      const events = [
        event({ timestamp: T0, type: 'UpdateAspectEvent', actorUrn: actor('bob') }),
        event({ timestamp: T0, type: 'CreateUserEvent', actorUrn: actor('bob') }),
        event({ timestamp: T0, type: 'UpdateAspectEvent', actorUrn: actor('alice') }),
        event({ timestamp: T0, type: 'UpdateAspectEvent', actorUrn: actor('alice') }),
        event({ timestamp: T0 + 1, type: 'UpdateUserEvent', actorUrn: actor('bob') }),
      ];
      await index.record([...events].reverse());
      const page = await index.search(query());
      expect(page.events.map((found) => found.id)).toEqual([...events].sort(compareAuditEvents).map((e) => e.id));
      expect(page.events.map((found) => found.id)).toEqual([4, 1, 2, 3, 0].map((i) => events[i]?.id));
    });

    it('pages after a cursor: every event once, with events recorded meanwhile never twice', async () => {
      const { actor, event, query } = scope();
      const { index } = await open();
      // Many events share a time, so that pages end in the middle of ties.
      const events = Array.from({ length: 250 }, (_, i) =>
        event({
          timestamp: T0 + Math.floor(i / 7),
          type: i % 3 === 0 ? 'UpdateAspectEvent' : 'CreateUserEvent',
          actorUrn: actor(i % 2 === 0 ? 'alice' : 'bob'),
        }),
      );
      await index.record(events);
      const late: AuditEvent[] = [];
      const seen = await scrollAll(index, query({ size: 17 }), async () => {
        // Recorded while scrolling: one newer than everything (before the cursor), one older than everything.
        const newer = event({ timestamp: T0 + 10_000, actorUrn: actor('alice') });
        const older = event({ timestamp: T0 - 10, actorUrn: actor('alice') });
        late.push(newer, older);
        await index.record([newer, older]);
      });
      const ids = seen.map((found) => found.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.filter((id) => events.some((recorded) => recorded.id === id))).toEqual(
        [...events].sort(compareAuditEvents).map((recorded) => recorded.id),
      );
      const lateIds = new Set(late.map((recorded) => recorded.id));
      expect(late.filter((recorded) => recorded.timestamp > T0).some((recorded) => ids.includes(recorded.id))).toBe(
        false,
      );
      expect(ids.filter((id) => lateIds.has(id)).length).toBeGreaterThan(0);
    });

    it(`counts the total up to ${AUDIT_TOTAL_LIMIT}`, async () => {
      const { event, query } = scope();
      const { index } = await open();
      const events = Array.from({ length: AUDIT_TOTAL_LIMIT + 25 }, (_, i) => event({ timestamp: T0 + i }));
      for (let first = 0; first < events.length; first += 2_000) await index.record(events.slice(first, first + 2_000));
      const page = await index.search(query({ size: 5 }));
      expect(page.total).toBe(AUDIT_TOTAL_LIMIT);
      expect(page.events.map((found) => found.timestamp)).toEqual([4, 3, 2, 1, 0].map((i) => T0 + 10_020 + i));
      expect((await index.search(query({ size: 5, startTime: T0 + 10_000 }))).total).toBe(25);
      // Expiry reaches every old event, however many.
      expect(await index.expire(T0 + 10_010)).toBeGreaterThanOrEqual(10_010);
      expect((await index.search(query())).total).toBe(15);
    }, 60_000);

    it('expires events older than a time, and only those', async () => {
      const { event, query } = scope();
      const { index } = await open();
      await index.record([T0, T0 + 1, T0 + 2, T0 + 3].map((timestamp) => event({ timestamp })));
      expect(await index.expire(T0 + 2)).toBeGreaterThanOrEqual(2);
      const page = await index.search(query());
      expect(page.events.map((found) => found.timestamp)).toEqual([T0 + 3, T0 + 2]);
    });

    it('keeps what it recorded across a reopen', async () => {
      const { event, query } = scope();
      const { index, reopen } = await open();
      const recorded = event({ timestamp: T0, type: 'FailedLogInEvent', loginDenialReason: 'INVALID_CREDENTIALS' });
      await index.record([recorded]);
      await index.close();
      const again = await reopen();
      expect((await again.search(query())).events).toEqual([withoutUndefined(recorded)]);
    });
  });
}

/** An event as a search returns it: absent fields absent, not undefined. */
function withoutUndefined(event: AuditEvent): AuditEvent {
  return Object.fromEntries(Object.entries(event).filter(([, value]) => value !== undefined)) as unknown as AuditEvent;
}
