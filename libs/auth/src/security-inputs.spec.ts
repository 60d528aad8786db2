import { PLATFORM_PRIVILEGES } from './privileges';
import {
  creationGuardOf,
  PRINCIPAL_READS,
  SECURITY_INPUTS,
  securityInputOf,
  securityMarksOf,
  writeGuardOf,
} from './security-inputs';

describe('the security inputs', () => {
  it('are each guarded by a platform privilege that exists, with a reason', () => {
    for (const [type, entity] of Object.entries(SECURITY_INPUTS)) {
      const inputs = [entity.existence, ...(entity.aspects === '*' ? [] : Object.values(entity.aspects))];
      for (const input of inputs) {
        expect({ type, guard: input.guard, known: PLATFORM_PRIVILEGES.includes(input.guard) }).toMatchObject({
          known: true,
        });
        expect(input.readBy.length).toBeGreaterThan(10);
      }
    }
  });

  it('include what a principal is read from', () => {
    for (const aspect of PRINCIPAL_READS.user) expect(securityInputOf('corpuser', aspect)).toBeDefined();
    for (const aspect of PRINCIPAL_READS.group) expect(securityInputOf('corpGroup', aspect)).toBeDefined();
  });
});

describe('writeGuardOf', () => {
  it.each([
    // The three lock-outs of the issue that made this list: an Admin role, a suspended root, root deleted.
    ['corpuser', 'roleMembership', 'UPSERT', 'MANAGE_POLICIES'],
    ['corpuser', 'corpUserStatus', 'UPSERT', 'MANAGE_USERS_AND_GROUPS'],
    ['corpuser', 'corpUserKey', 'DELETE', 'MANAGE_USERS_AND_GROUPS'],
    ['corpuser', 'status', 'PATCH', 'MANAGE_USERS_AND_GROUPS'],
    ['corpuser', 'corpUserCredentials', 'UPSERT', 'MANAGE_USER_CREDENTIALS'],
    ['corpuser', 'groupMembership', 'UPSERT', 'MANAGE_USERS_AND_GROUPS'],
    ['corpuser', 'nativeGroupMembership', 'DELETE', 'MANAGE_USERS_AND_GROUPS'],
    ['corpuser', 'corpUserKey', 'UPSERT', 'MANAGE_USERS_AND_GROUPS'],
    ['corpuser', 'corpUserInfo', 'CREATE_ENTITY', 'MANAGE_USERS_AND_GROUPS'],
    ['corpGroup', 'corpGroupInfo', 'UPSERT', 'MANAGE_USERS_AND_GROUPS'],
    ['corpGroup', 'roleMembership', 'UPSERT', 'MANAGE_POLICIES'],
    ['corpGroup', 'corpGroupKey', 'DELETE', 'MANAGE_USERS_AND_GROUPS'],
    ['dataHubPolicy', 'dataHubPolicyInfo', 'UPSERT', 'MANAGE_POLICIES'],
    ['dataHubPolicy', 'status', 'UPSERT', 'MANAGE_POLICIES'],
    ['dataHubRole', 'dataHubRoleInfo', 'UPSERT', 'MANAGE_POLICIES'],
    ['dataHubAccessToken', 'dataHubAccessTokenInfo', 'UPSERT', 'MANAGE_ACCESS_TOKENS'],
    ['dataHubAccessToken', 'dataHubAccessTokenKey', 'DELETE', 'MANAGE_ACCESS_TOKENS'],
    ['dataHubSecret', 'dataHubSecretValue', 'UPSERT', 'MANAGE_SECRETS'],
  ])('%s %s %s needs %s', (entityType, aspect, changeType, guard) => {
    expect(writeGuardOf({ entityType, aspect, changeType })).toBe(guard);
  });

  it.each([
    ['corpuser', 'corpUserInfo', 'UPSERT'],
    ['corpuser', 'corpUserEditableInfo', 'PATCH'],
    ['corpGroup', 'corpGroupEditableInfo', 'UPSERT'],
    // A group's existence is not read: creating one writes no input.
    ['corpGroup', 'corpGroupKey', 'UPSERT'],
    ['dataset', 'ownership', 'UPSERT'],
    ['dataset', 'datasetKey', 'DELETE'],
  ])('%s %s %s needs nothing', (entityType, aspect, changeType) => {
    expect(writeGuardOf({ entityType, aspect, changeType })).toBeUndefined();
  });

  it('guards the creation of the entities whose existence is read', () => {
    expect(creationGuardOf('corpuser')).toBe('MANAGE_USERS_AND_GROUPS');
    expect(creationGuardOf('corpGroup')).toBeUndefined();
    expect(creationGuardOf('dataset')).toBeUndefined();
  });
});

describe('securityMarksOf', () => {
  it.each([
    ['urn:li:dataHubPolicy:0', 'dataHubPolicyInfo', ['security.policies']],
    ['urn:li:dataHubPolicy:0', undefined, ['security.policies']],
    ['urn:li:dataHubAccessToken:abc', 'dataHubAccessTokenInfo', ['security.principals']],
    ['urn:li:dataHubAccessToken:abc', undefined, ['security.principals']],
    ['urn:li:dataHubRole:Admin', 'dataHubRoleInfo', ['security.principals']],
    ['urn:li:corpuser:jdoe', 'corpUserKey', ['security.principals']],
    ['urn:li:corpuser:jdoe', 'status', ['security.principals']],
    ['urn:li:corpuser:jdoe', 'corpUserStatus', ['security.principals']],
    ['urn:li:corpuser:jdoe', 'groupMembership', ['security.principals']],
    ['urn:li:corpuser:jdoe', 'nativeGroupMembership', ['security.principals']],
    ['urn:li:corpuser:jdoe', 'roleMembership', ['security.principals']],
    ['urn:li:corpuser:jdoe', undefined, ['security.principals']],
    ['urn:li:corpGroup:eng', 'roleMembership', ['security.principals']],
    ['urn:li:corpGroup:eng', undefined, ['security.principals']],
    // Read afresh by each login: nothing cached to mark.
    ['urn:li:corpuser:jdoe', 'corpUserCredentials', []],
    ['urn:li:corpuser:jdoe', 'corpUserInfo', []],
    ['urn:li:corpGroup:eng', 'corpGroupInfo', []],
    ['urn:li:dataHubSecret:s', 'dataHubSecretValue', []],
    ['urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)', 'ownership', []],
    ['not a urn', 'status', []],
  ])('%s %s → %j', (urn, aspect, marks) => {
    expect(securityMarksOf(urn, aspect)).toEqual(marks);
  });
});
