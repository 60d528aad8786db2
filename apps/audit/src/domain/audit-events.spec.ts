import {
  auditedAspectsOf,
  auditEventOfChange,
  auditEventOfLogin,
  eventTypeOf,
  loginSourceName,
  usageEventResult,
  type Change,
} from './audit-events';

const change = (fields: Partial<Change>): Change => ({
  id: 'proposal-1/0',
  entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)',
  entityType: 'dataset',
  aspectName: 'status',
  changeType: 'UPSERT',
  time: 1_700_000_000_000,
  actor: 'urn:li:corpuser:jdoe',
  ...fields,
});

describe('the audit event of a change', () => {
  it.each([
    ['dataHubAccessTokenKey', 'UPSERT', 'CreateAccessTokenEvent'],
    ['dataHubAccessTokenKey', 'DELETE', 'RevokeAccessTokenEvent'],
    ['dataHubPolicyKey', 'CREATE', 'CreatePolicyEvent'],
    ['dataHubPolicyInfo', 'PATCH', 'UpdatePolicyEvent'],
    ['dataHubPolicyKey', 'DELETE', 'DeletePolicyEvent'],
    ['dataHubIngestionSourceKey', 'UPSERT', 'CreateIngestionSourceEvent'],
    ['dataHubIngestionSourceInfo', 'UPSERT', 'UpdateIngestionSourceEvent'],
    ['corpUserKey', 'UPSERT', 'CreateUserEvent'],
    ['corpUserCredentials', 'UPSERT', 'UpdateUserEvent'],
    ['corpUserStatus', 'UPSERT', 'UpdateUserEvent'],
    ['groupMembership', 'UPDATE', 'UpdateUserEvent'],
    ['nativeGroupMembership', 'CREATE_ENTITY', 'UpdateUserEvent'],
    ['ownership', 'UPSERT', 'UpdateAspectEvent'],
    ['ownership', 'DELETE', 'DeleteEntityEvent'],
    ['datasetKey', 'DELETE', 'DeleteEntityEvent'],
    ['corpUserKey', 'DELETE', 'DeleteEntityEvent'],
  ])('types a change of %s by %s as %s, as DataHub does', (aspectName, changeType, expected) => {
    expect(eventTypeOf({ aspectName, changeType }, 'all')).toBe(expected);
  });

  it('records no event for a restatement: a replay of the primary store is not a change', () => {
    for (const aspectName of ['status', 'dataHubPolicyInfo', 'dataHubAccessTokenKey']) {
      expect(eventTypeOf({ aspectName, changeType: 'RESTATE' }, 'all')).toBeUndefined();
    }
  });

  it('records other change types as EntityEvent', () => {
    expect(eventTypeOf({ aspectName: 'status', changeType: 'UNKNOWN_TYPE' }, 'all')).toBe('EntityEvent');
  });

  it('records generic events only for the configured aspects, and the dedicated ones always', () => {
    const audited = auditedAspectsOf(' ownership , globalTags ,');
    expect(eventTypeOf({ aspectName: 'ownership', changeType: 'UPSERT' }, audited)).toBe('UpdateAspectEvent');
    expect(eventTypeOf({ aspectName: 'status', changeType: 'UPSERT' }, audited)).toBeUndefined();
    expect(eventTypeOf({ aspectName: 'status', changeType: 'DELETE' }, audited)).toBeUndefined();
    expect(eventTypeOf({ aspectName: 'dataHubPolicyInfo', changeType: 'UPSERT' }, audited)).toBe('UpdatePolicyEvent');
    expect(eventTypeOf({ aspectName: 'corpUserKey', changeType: 'UPSERT' }, new Set())).toBe('CreateUserEvent');
    expect(auditedAspectsOf('*')).toBe('all');
    expect(auditedAspectsOf('status,*')).toBe('all');
  });

  it('carries the actor, time, entity and origin, and never a value', () => {
    const event = auditEventOfChange(
      change({ sourceIp: '10.0.0.7', userAgent: 'acryl-datahub/0.15', eventSource: 'RESTLI', traceId: 't-1' }),
      'all',
    );
    expect(event).toEqual({
      id: 'proposal-1/0',
      type: 'UpdateAspectEvent',
      timestamp: 1_700_000_000_000,
      actorUrn: 'urn:li:corpuser:jdoe',
      entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)',
      entityType: 'dataset',
      aspectName: 'status',
      changeType: 'UPSERT',
      sourceIP: '10.0.0.7',
      userAgent: 'acryl-datahub/0.15',
      eventSource: 'RESTLI',
      traceId: 't-1',
    });
    expect(auditEventOfChange(change({ changeType: 'RESTATE' }), 'all')).toBeUndefined();
  });
});

describe('the audit event of a login', () => {
  it('is a LogInEvent or a FailedLogInEvent with its source and, refused, its reason', () => {
    const login = {
      id: 'login/r-1',
      time: 5,
      actor: 'urn:li:corpuser:datahub',
      loginSource: 'passwordLogin',
      eventSource: 'RESTLI',
    };
    expect(auditEventOfLogin({ ...login, succeeded: true })).toEqual({
      id: 'login/r-1',
      type: 'LogInEvent',
      timestamp: 5,
      actorUrn: 'urn:li:corpuser:datahub',
      loginSource: 'passwordLogin',
      eventSource: 'RESTLI',
    });
    expect(auditEventOfLogin({ ...login, succeeded: false, denialReason: 'SUSPENDED' })).toMatchObject({
      type: 'FailedLogInEvent',
      loginDenialReason: 'SUSPENDED',
    });
  });
});

describe('the search result of an event', () => {
  it("is DataHub's UsageEventResult: entity fields for a change, the login source by its API name for a login", () => {
    const entity = auditEventOfChange(change({ eventSource: 'OPENAPI' }), 'all');
    if (entity === undefined) throw new Error('no event');
    expect(usageEventResult(entity, false)).toEqual({
      eventType: 'UpdateAspectEvent',
      timestamp: 1_700_000_000_000,
      actorUrn: 'urn:li:corpuser:jdoe',
      sourceIP: null,
      eventSource: 'OPENAPI',
      userAgent: null,
      telemetryTraceId: null,
      entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)',
      entityType: 'dataset',
      aspectName: 'status',
    });
    const login = auditEventOfLogin({
      id: 'login/r-2',
      succeeded: false,
      time: 9,
      actor: 'urn:li:corpuser:x',
      loginSource: 'passwordLogin',
      denialReason: 'INVALID_CREDENTIALS',
    });
    expect(usageEventResult(login, true)).toMatchObject({
      eventType: 'FailedLogInEvent',
      loginSource: 'PASSWORD_LOGIN',
      rawUsageEvent: {
        type: 'FailedLogInEvent',
        loginSource: 'passwordLogin',
        loginDenialReason: 'INVALID_CREDENTIALS',
        eventId: 'login/r-2',
        usageSource: 'backend',
      },
    });
    expect(usageEventResult(login, true)).not.toHaveProperty('entityUrn');
  });

  it('names login sources as DataHub does, whatever their case', () => {
    expect(loginSourceName('ssoLogin')).toBe('SSO_LOGIN');
    expect(loginSourceName('PASSWORDRESET')).toBe('PASSWORD_RESET');
    expect(loginSourceName('somethingElse')).toBe('somethingElse');
  });
});
