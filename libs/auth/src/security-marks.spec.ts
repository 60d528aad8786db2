import { securityMarkOf } from './security-marks';

describe('securityMarkOf', () => {
  it.each([
    ['urn:li:dataHubPolicy:0', 'dataHubPolicyInfo', 'security.policies'],
    ['urn:li:dataHubPolicy:0', undefined, 'security.policies'],
    ['urn:li:dataHubAccessToken:abc', 'dataHubAccessTokenInfo', 'security.principals'],
    ['urn:li:dataHubAccessToken:abc', undefined, 'security.principals'],
    ['urn:li:dataHubRole:Admin', 'dataHubRoleInfo', 'security.principals'],
    ['urn:li:corpuser:jdoe', 'corpUserKey', 'security.principals'],
    ['urn:li:corpuser:jdoe', 'status', 'security.principals'],
    ['urn:li:corpuser:jdoe', 'corpUserStatus', 'security.principals'],
    ['urn:li:corpuser:jdoe', 'groupMembership', 'security.principals'],
    ['urn:li:corpuser:jdoe', 'nativeGroupMembership', 'security.principals'],
    ['urn:li:corpuser:jdoe', 'roleMembership', 'security.principals'],
    ['urn:li:corpuser:jdoe', undefined, 'security.principals'],
    ['urn:li:corpGroup:eng', 'roleMembership', 'security.principals'],
    ['urn:li:corpuser:jdoe', 'corpUserInfo', undefined],
    ['urn:li:corpuser:jdoe', 'corpUserEditableInfo', undefined],
    ['urn:li:corpGroup:eng', 'corpGroupInfo', undefined],
    ['urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)', 'ownership', undefined],
    ['not a urn', 'status', undefined],
  ])('%s %s → %s', (urn, aspect, mark) => {
    expect(securityMarkOf(urn, aspect)).toBe(mark);
  });
});
