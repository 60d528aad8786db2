import {
  actorUrnOf,
  AUDIT_PAGE_SIZE,
  AUDIT_SCAN_PAGE_SIZE,
  auditFilterProblem,
  auditFiltersOf,
  auditParams,
  auditRequest,
  auditRowOf,
  DEFAULT_AUDIT_FILTERS,
  eventTypeLabel,
  isFiltered,
  keptEvents,
  listOf,
  localInputOf,
  millisOfLocalInput,
  shouldScanOn,
  windowOf,
  type AuditEvent,
} from './admin-audit';

const orders = 'urn:li:dataset:(urn:li:dataPlatform:hive,shop.orders,PROD)';
const NOW = 1_800_000_000_000;

describe('audit filters in the URL', () => {
  it('reads every filter, making user names URNs and dropping unknown kinds', () => {
    const filters = auditFiltersOf(
      new URLSearchParams({
        actor: 'jdoe, urn:li:corpuser:datahub,jdoe',
        entity: ` ${orders} `,
        type: 'UpdateAspectEvent,Nonsense,LogInEvent',
        entityType: 'dataset',
        aspect: 'ownership,globalTags',
        range: '7d',
      }),
    );
    expect(filters).toEqual({
      actors: ['urn:li:corpuser:jdoe', 'urn:li:corpuser:datahub'],
      entity: orders,
      eventTypes: ['UpdateAspectEvent', 'LogInEvent'],
      entityTypes: ['dataset'],
      aspects: ['ownership', 'globalTags'],
      range: '7d',
      from: undefined,
      to: undefined,
    });
  });

  it('round-trips, writing only what differs from the defaults', () => {
    expect(auditParams(DEFAULT_AUDIT_FILTERS).toString()).toBe('');
    expect(isFiltered(DEFAULT_AUDIT_FILTERS)).toBe(false);
    const custom = {
      ...DEFAULT_AUDIT_FILTERS,
      actors: ['urn:li:corpuser:jdoe'],
      eventTypes: ['DeleteEntityEvent'],
      range: 'custom' as const,
      from: 1000,
      to: 2000,
    };
    const params = auditParams(custom);
    expect(params.toString()).toBe(
      'actor=urn%3Ali%3Acorpuser%3Ajdoe&type=DeleteEntityEvent&range=custom&from=1000&to=2000',
    );
    expect(auditFiltersOf(params)).toEqual(custom);
    expect(isFiltered(custom)).toBe(true);
  });

  it('falls back to the day before now for an unknown range, and ignores bounds outside the custom range', () => {
    expect(auditFiltersOf(new URLSearchParams('range=forever')).range).toBe('24h');
    expect(auditParams({ ...DEFAULT_AUDIT_FILTERS, range: '1h', from: 5 }).toString()).toBe('range=1h');
    expect(auditFiltersOf(new URLSearchParams('range=custom&from=abc')).from).toBeUndefined();
  });

  it('splits lists and names actors', () => {
    expect(listOf(' a, ,b,a ')).toEqual(['a', 'b']);
    expect(listOf(null)).toEqual([]);
    expect(actorUrnOf(' jdoe ')).toBe('urn:li:corpuser:jdoe');
    expect(actorUrnOf('urn:li:corpGroup:eng')).toBe('urn:li:corpGroup:eng');
    expect(actorUrnOf('  ')).toBe('');
  });
});

describe('the search request', () => {
  it('asks for the window before now, the filters in the body', () => {
    const filters = {
      ...DEFAULT_AUDIT_FILTERS,
      actors: ['urn:li:corpuser:jdoe'],
      aspects: ['ownership'],
      range: '1h' as const,
    };
    const request = auditRequest(filters, NOW, undefined);
    expect(request.path).toBe(
      `/openapi/v1/events/audit/search?startTime=${NOW - 3_600_000}&endTime=${NOW}&size=${AUDIT_PAGE_SIZE}&includeRaw=true`,
    );
    expect(request.body).toEqual({ aspectTypes: ['ownership'], actorUrns: ['urn:li:corpuser:jdoe'] });
  });

  it('continues a scroll, and narrows an entity filter to its type with larger pages', () => {
    const filters = { ...DEFAULT_AUDIT_FILTERS, entity: orders, entityTypes: ['chart'] };
    const request = auditRequest(filters, NOW, 'abc=');
    const query = new URLSearchParams(request.path.split('?')[1]);
    expect(query.get('scrollId')).toBe('abc=');
    expect(query.get('size')).toBe(String(AUDIT_SCAN_PAGE_SIZE));
    expect(request.body).toEqual({ entityTypes: ['dataset'] });
  });

  it('uses the custom bounds, open ends meaning the beginning and now', () => {
    const custom = { ...DEFAULT_AUDIT_FILTERS, range: 'custom' as const, from: 1000, to: undefined };
    expect(windowOf(custom, NOW)).toEqual({ startTime: 1000, endTime: NOW });
    expect(windowOf({ ...custom, from: undefined }, NOW)).toEqual({ startTime: 0, endTime: NOW });
    expect(windowOf({ ...DEFAULT_AUDIT_FILTERS, range: '30d' }, NOW).startTime).toBe(NOW - 30 * 86_400_000);
  });

  it('says what is wrong before asking', () => {
    expect(auditFilterProblem({ ...DEFAULT_AUDIT_FILTERS, entity: 'orders' })).toMatch(/not an entity URN/);
    expect(auditFilterProblem({ ...DEFAULT_AUDIT_FILTERS, range: 'custom', from: 2000, to: 1000 })).toBe(
      'The start of the time range must be before its end.',
    );
    expect(auditFilterProblem({ ...DEFAULT_AUDIT_FILTERS, entity: orders })).toBeUndefined();
  });
});

describe('events', () => {
  const change: AuditEvent = {
    eventType: 'UpdateAspectEvent',
    timestamp: 5,
    actorUrn: 'urn:li:corpuser:jdoe',
    sourceIP: '127.0.0.1',
    eventSource: 'RESTLI',
    userAgent: 'curl/8',
    telemetryTraceId: 'trace-1',
    entityUrn: orders,
    entityType: 'dataset',
    aspectName: 'ownership',
    rawUsageEvent: { changeType: 'UPSERT', eventId: 'req-1/0' },
  };

  it('shapes a change: who, what, from which request', () => {
    expect(auditRowOf(change, 0)).toEqual({
      key: 'req-1/0',
      timestamp: 5,
      actorUrn: 'urn:li:corpuser:jdoe',
      eventType: 'UpdateAspectEvent',
      kindLabel: 'Aspect written',
      entityUrn: orders,
      aspectName: 'ownership',
      changeType: 'UPSERT',
      login: undefined,
      traceId: 'trace-1',
      sourceIp: '127.0.0.1',
      eventSource: 'RESTLI',
      userAgent: 'curl/8',
    });
  });

  it('shapes a refused login with its reason, and keys rows without an event id', () => {
    const row = auditRowOf(
      {
        eventType: 'FailedLogInEvent',
        timestamp: 9,
        actorUrn: 'urn:li:corpuser:x',
        loginSource: 'PASSWORD_LOGIN',
        rawUsageEvent: { loginDenialReason: 'INVALID_CREDENTIALS' },
      },
      3,
    );
    expect(row.login).toEqual({ source: 'PASSWORD_LOGIN', denial: 'INVALID_CREDENTIALS' });
    expect(row.key).toBe('9-FailedLogInEvent-3');
    expect(row.kindLabel).toBe('Sign-in refused');
    expect(eventTypeLabel('SomethingNew')).toBe('SomethingNew');
  });

  it('keeps the events of the entity filtered on, and scans on until a page is found', () => {
    const other = { ...change, entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,other,PROD)' };
    expect(keptEvents({ ...DEFAULT_AUDIT_FILTERS, entity: orders }, [change, other])).toEqual([change]);
    expect(keptEvents(DEFAULT_AUDIT_FILTERS, [change, other])).toHaveLength(2);
    expect(shouldScanOn(3, 1, true)).toBe(true);
    expect(shouldScanOn(AUDIT_PAGE_SIZE, 1, true)).toBe(false);
    expect(shouldScanOn(3, 4, true)).toBe(false);
    expect(shouldScanOn(3, 1, false)).toBe(false);
  });
});

describe('datetime-local inputs', () => {
  it('round-trip local times to the minute', () => {
    const millis = new Date(2026, 10, 23, 9, 5).getTime();
    expect(localInputOf(millis)).toBe('2026-11-23T09:05');
    expect(millisOfLocalInput('2026-11-23T09:05')).toBe(millis);
    expect(millisOfLocalInput('yesterday')).toBeUndefined();
    expect(localInputOf(undefined)).toBe('');
  });
});
