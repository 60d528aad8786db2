import { testEntityRegistry } from '@strata/model/testing';
import { DEFAULT_POLICIES, ROOT_USER } from './default-policies';
import { decide, SYSTEM_ACTOR, type ActorIdentity, type Policy, type PolicyInfo } from './policy-engine';
import { apiPrivileges, operationsPrivileges, PlatformPrivilege } from './privileges';

const user = (id: string, groups: string[] = [], roles: string[] = []): ActorIdentity => ({
  urn: `urn:li:corpuser:${id}`,
  groups: groups.map((group) => `urn:li:corpGroup:${group}`),
  roles: roles.map((role) => `urn:li:dataHubRole:${role}`),
});
const root: ActorIdentity = { urn: ROOT_USER, groups: [], roles: [] };
const jdoe = user('jdoe');
const dataset = { type: 'dataset', urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)' };

const policy = (
  info: Partial<PolicyInfo> & Pick<PolicyInfo, 'privileges'>,
  urn = 'urn:li:dataHubPolicy:p',
): Policy => ({
  urn,
  info: { type: 'METADATA', state: 'ACTIVE', actors: {}, ...info },
});
const allowed = (...args: Parameters<typeof decide>) => decide(...args).allowed;

describe('decide, with DataHub’s default policies', () => {
  const analytics = operationsPrivileges(PlatformPrivilege.GET_ANALYTICS_PRIVILEGE);

  it('gives the root user every platform privilege and every entity operation', () => {
    for (const privilege of Object.values(PlatformPrivilege)) {
      expect(allowed(DEFAULT_POLICIES, root, [[privilege]])).toBe(true);
    }
    for (const operation of ['CREATE', 'READ', 'UPDATE', 'DELETE', 'EXISTS'] as const) {
      expect(allowed(DEFAULT_POLICIES, root, apiPrivileges('ENTITY', operation, 'dataset'), dataset)).toBe(true);
    }
    expect(allowed(DEFAULT_POLICIES, root, apiPrivileges('ENTITY', 'UPDATE', 'dataHubPolicy'))).toBe(true);
  });

  it('lets every user read and search, make personal tokens, and nothing more', () => {
    expect(allowed(DEFAULT_POLICIES, jdoe, apiPrivileges('ENTITY', 'READ', 'dataset'), dataset)).toBe(true);
    expect(allowed(DEFAULT_POLICIES, jdoe, apiPrivileges('ENTITY', 'READ', 'dataset'), { type: 'dataset' })).toBe(true);
    expect(allowed(DEFAULT_POLICIES, jdoe, [['GENERATE_PERSONAL_ACCESS_TOKENS']])).toBe(true);
    expect(allowed(DEFAULT_POLICIES, jdoe, apiPrivileges('ENTITY', 'UPDATE', 'dataset'), dataset)).toBe(false);
    expect(allowed(DEFAULT_POLICIES, jdoe, apiPrivileges('ENTITY', 'DELETE', 'dataset'), dataset)).toBe(false);
    expect(allowed(DEFAULT_POLICIES, jdoe, apiPrivileges('ENTITY', 'UPDATE', 'dataHubPolicy'))).toBe(false);
    expect(allowed(DEFAULT_POLICIES, jdoe, [['MANAGE_ACCESS_TOKENS']])).toBe(false);
    expect(allowed(DEFAULT_POLICIES, jdoe, analytics)).toBe(false);
  });

  it('lets the owners of an entity edit it, and nobody else', () => {
    const owned = { ...dataset, owners: [{ owner: jdoe.urn }] };
    expect(allowed(DEFAULT_POLICIES, jdoe, apiPrivileges('ENTITY', 'UPDATE', 'dataset'), owned)).toBe(true);
    expect(allowed(DEFAULT_POLICIES, user('ann'), apiPrivileges('ENTITY', 'UPDATE', 'dataset'), owned)).toBe(false);
    const byGroup = { ...dataset, owners: [{ owner: 'urn:li:corpGroup:eng' }] };
    expect(allowed(DEFAULT_POLICIES, user('ann', ['eng']), apiPrivileges('ENTITY', 'UPDATE', 'dataset'), byGroup)).toBe(
      true,
    );
    expect(allowed(DEFAULT_POLICIES, jdoe, apiPrivileges('ENTITY', 'DELETE', 'dataset'), owned)).toBe(false);
  });

  it('gives the Admin role what root has, the Reader role reading only', () => {
    expect(allowed(DEFAULT_POLICIES, user('a', [], ['Admin']), [['MANAGE_POLICIES']])).toBe(true);
    expect(
      allowed(DEFAULT_POLICIES, user('a', [], ['Admin']), apiPrivileges('ENTITY', 'DELETE', 'dataset'), dataset),
    ).toBe(true);
    expect(
      allowed(DEFAULT_POLICIES, user('r', [], ['Reader']), apiPrivileges('ENTITY', 'UPDATE', 'dataset'), dataset),
    ).toBe(false);
  });

  it('lets the system actor do anything, even with no policy at all', () => {
    expect(allowed([], { urn: SYSTEM_ACTOR, groups: [], roles: [] }, [['MANAGE_POLICIES']])).toBe(true);
    expect(allowed([], jdoe, [['MANAGE_POLICIES']])).toBe(false);
  });

  it('lets every user read its own entity, and no other user’s', () => {
    const read = apiPrivileges('ENTITY', 'READ', 'corpuser');
    expect(allowed([], jdoe, read, { type: 'corpuser', urn: jdoe.urn })).toBe(true);
    expect(allowed([], jdoe, read, { type: 'corpuser', urn: ROOT_USER })).toBe(false);
  });

  it('keeps the default policies valid dataHubPolicyInfo values', () => {
    const aspect = testEntityRegistry().entity('dataHubPolicy')!.aspect('dataHubPolicyInfo')!;
    for (const { info } of DEFAULT_POLICIES) expect(() => aspect.validate(info)).not.toThrow();
  });
});

describe('decide, policy by policy', () => {
  const edit = [['EDIT_ENTITY']];

  it('selects actors by user, all users, group, all groups (only with a group) and role', () => {
    expect(allowed([policy({ privileges: ['EDIT_ENTITY'], actors: { users: [jdoe.urn] } })], jdoe, edit)).toBe(true);
    expect(allowed([policy({ privileges: ['EDIT_ENTITY'], actors: { allUsers: true } })], jdoe, edit)).toBe(true);
    const groups = policy({ privileges: ['EDIT_ENTITY'], actors: { groups: ['urn:li:corpGroup:eng'] } });
    expect(allowed([groups], user('a', ['eng']), edit)).toBe(true);
    expect(allowed([groups], user('a', ['ops']), edit)).toBe(false);
    const allGroups = policy({ privileges: ['EDIT_ENTITY'], actors: { allGroups: true } });
    expect(allowed([allGroups], user('a', ['ops']), edit)).toBe(true);
    expect(allowed([allGroups], user('a'), edit)).toBe(false);
    const roles = policy({ privileges: ['EDIT_ENTITY'], actors: { roles: ['urn:li:dataHubRole:Editor'] } });
    expect(allowed([roles], user('a', [], ['Editor']), edit)).toBe(true);
    expect(allowed([roles], jdoe, edit)).toBe(false);
  });

  it('ignores an INACTIVE policy, and one that does not list the privilege', () => {
    expect(
      allowed([policy({ privileges: ['EDIT_ENTITY'], state: 'INACTIVE', actors: { allUsers: true } })], jdoe, edit),
    ).toBe(false);
    expect(allowed([policy({ privileges: ['VIEW_ENTITY_PAGE'], actors: { allUsers: true } })], jdoe, edit)).toBe(false);
  });

  it('selects resources by type, URN and resolved fields, with EQUALS, STARTS_WITH and NOT_EQUALS', () => {
    const filtered = (field: string, values: string[], condition?: 'EQUALS' | 'STARTS_WITH' | 'NOT_EQUALS') =>
      policy({
        privileges: ['EDIT_ENTITY'],
        actors: { allUsers: true },
        resources: { filter: { criteria: [{ field, values, ...(condition ? { condition } : {}) }] } },
      });
    expect(allowed([filtered('TYPE', ['dataset'])], jdoe, edit, dataset)).toBe(true);
    expect(allowed([filtered('RESOURCE_TYPE', ['chart'])], jdoe, edit, dataset)).toBe(false);
    expect(allowed([filtered('URN', [dataset.urn])], jdoe, edit, dataset)).toBe(true);
    expect(
      allowed([filtered('urn', ['urn:li:dataset:(urn:li:dataPlatform:hive', 'x'], 'STARTS_WITH')], jdoe, edit, dataset),
    ).toBe(true);
    expect(allowed([filtered('TYPE', ['chart'], 'NOT_EQUALS')], jdoe, edit, dataset)).toBe(true);
    const tagged = { ...dataset, fields: { TAG: ['urn:li:tag:pii'] } };
    expect(allowed([filtered('TAG', ['urn:li:tag:pii'])], jdoe, edit, tagged)).toBe(true);
    expect(allowed([filtered('TAG', ['urn:li:tag:pii'])], jdoe, edit, dataset)).toBe(false); // not resolved
    expect(allowed([filtered('NO_SUCH_FIELD', ['x'])], jdoe, edit, tagged)).toBe(false);
    // A filtered policy never matches a check without a resource; a type-level check has no URN.
    expect(allowed([filtered('TYPE', ['dataset'])], jdoe, edit)).toBe(false);
    expect(allowed([filtered('URN', [dataset.urn])], jdoe, edit, { type: 'dataset' })).toBe(false);
  });

  it('reads the deprecated type, resources and allResources as DataHub does', () => {
    const legacy = (resources: PolicyInfo['resources']) =>
      policy({ privileges: ['EDIT_ENTITY'], actors: { allUsers: true }, resources });
    expect(allowed([legacy({ type: 'dataset', allResources: true })], jdoe, edit, dataset)).toBe(true);
    expect(allowed([legacy({ type: 'chart', allResources: true })], jdoe, edit, dataset)).toBe(false);
    expect(allowed([legacy({ type: 'dataset', resources: ['urn:li:dataset:other'] })], jdoe, edit, dataset)).toBe(
      false,
    );
    expect(allowed([legacy({ type: 'dataset', resources: [dataset.urn] })], jdoe, edit, dataset)).toBe(true);
    expect(allowed([legacy({})], jdoe, edit, dataset)).toBe(true);
  });

  it('selects resource owners of the listed ownership types only', () => {
    const stewards = policy({
      privileges: ['EDIT_ENTITY'],
      actors: { resourceOwners: true, resourceOwnersTypes: ['urn:li:ownershipType:steward'] },
    });
    const as = (typeUrn?: string) => ({ ...dataset, owners: [{ owner: jdoe.urn, ...(typeUrn ? { typeUrn } : {}) }] });
    expect(allowed([stewards], jdoe, edit, as('urn:li:ownershipType:steward'))).toBe(true);
    expect(allowed([stewards], jdoe, edit, as('urn:li:ownershipType:other'))).toBe(false);
    expect(allowed([stewards], jdoe, edit, as())).toBe(false);
    expect(allowed([stewards], jdoe, edit)).toBe(false);
  });

  it('requires every privilege of a set, from any policies, and any one set', () => {
    const policies = [
      policy({ privileges: ['EDIT_ENTITY'], actors: { allUsers: true } }, 'urn:li:dataHubPolicy:a'),
      policy({ privileges: ['DELETE_ENTITY'], actors: { allUsers: true } }, 'urn:li:dataHubPolicy:b'),
    ];
    expect(decide(policies, jdoe, [['EDIT_ENTITY', 'DELETE_ENTITY']])).toEqual({
      allowed: true,
      reason: 'granted by urn:li:dataHubPolicy:a, urn:li:dataHubPolicy:b',
    });
    expect(allowed(policies, jdoe, [['EDIT_ENTITY', 'MANAGE_POLICIES']])).toBe(false);
    expect(allowed(policies, jdoe, [['MANAGE_POLICIES'], ['DELETE_ENTITY']])).toBe(true);
    expect(decide(policies, jdoe, [])).toEqual({ allowed: false, reason: 'no policy grants this' });
  });
});

describe('apiPrivileges', () => {
  it('maps DataHub’s API groups and operations, with the overrides of guarded entity types', () => {
    expect(apiPrivileges('ENTITY', 'UPDATE', 'dataset')).toEqual([['EDIT_ENTITY']]);
    expect(apiPrivileges('ENTITY', 'UPDATE', 'dataHubPolicy')).toEqual([['MANAGE_POLICIES']]);
    expect(apiPrivileges('ENTITY', 'READ', 'dataHubSecret')).toEqual([['MANAGE_SECRETS']]);
    expect(apiPrivileges('COUNTS', 'UPDATE')).toEqual([]);
    expect(apiPrivileges('ANALYTICS', 'EXECUTE')).toEqual([]);
    expect(operationsPrivileges('RESTORE_INDICES_PRIVILEGE')).toEqual([
      ['RESTORE_INDICES_PRIVILEGE'],
      ['MANAGE_SYSTEM_OPERATIONS'],
    ]);
  });
});
