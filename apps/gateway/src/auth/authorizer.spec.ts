import { DEFAULT_POLICIES, SYSTEM_ACTOR } from '@strata/auth';
import type { RequestContext } from '@strata/http';
import { ForbiddenError, UnauthorizedError } from '@strata/model';
import { Authorizer } from './authorizer';

const anonymous = 'urn:li:corpuser:UNKNOWN';
const security = {
  snapshot: () =>
    Promise.resolve({
      principal: (actor: string) =>
        Promise.resolve({ actor, exists: true, removed: false, suspended: false, groups: [], roles: [] }),
      policies: () => Promise.resolve(DEFAULT_POLICIES),
    }),
};
const as = (actor: string) => ({ actor }) as RequestContext;
const manage = { requirement: [['MANAGE_POLICIES']], message: 'User is unauthorized to manage policies.' };

describe('Authorizer', () => {
  it('with authentication on: the system actor and root pass, anonymous is a 401, another user a 403', async () => {
    const authorizer = new Authorizer({ enabled: true, anonymousActor: anonymous, security });
    await expect(authorizer.require(as(SYSTEM_ACTOR), manage)).resolves.toBeUndefined();
    await expect(authorizer.require(as('urn:li:corpuser:datahub'), manage)).resolves.toBeUndefined();
    await expect(authorizer.require(as(anonymous), manage)).rejects.toThrow(UnauthorizedError);
    await expect(authorizer.require(as('urn:li:corpuser:jdoe'), manage)).rejects.toThrow(
      new ForbiddenError('User is unauthorized to manage policies.'),
    );
  });

  it('with authentication off: only the checks marked always apply', async () => {
    const authorizer = new Authorizer({ enabled: false, anonymousActor: anonymous, security });
    await expect(authorizer.require(as(anonymous), manage)).resolves.toBeUndefined();
    await expect(authorizer.require(as('urn:li:corpuser:jdoe'), manage)).resolves.toBeUndefined();
    await expect(authorizer.require(as(anonymous), { ...manage, always: true })).rejects.toThrow(UnauthorizedError);
    await expect(authorizer.require(as('urn:li:corpuser:jdoe'), { ...manage, always: true })).rejects.toThrow(
      ForbiddenError,
    );
  });
});

describe('Authorizer.requireWrites', () => {
  const dataset = 'urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)';
  const proposal = (changeType: string) =>
    ({
      urn: { toString: () => dataset },
      entity: { name: 'dataset' },
      aspect: { name: 'status' },
      changeType,
    }) as unknown as import('@strata/model').ValidatedProposal;

  it('lets an owner edit, read from the entity only when the policies depend on it, and not delete', async () => {
    const asked: string[][] = [];
    const authorizer = new Authorizer({
      enabled: true,
      anonymousActor: anonymous,
      security,
      facts: (urns) => {
        asked.push([...urns]);
        return Promise.resolve(
          new Map([[dataset, { type: 'dataset', urn: dataset, owners: [{ owner: 'urn:li:corpuser:jdoe' }] }]]),
        );
      },
    });
    await expect(authorizer.requireWrites(as('urn:li:corpuser:jdoe'), [proposal('UPSERT')])).resolves.toBeUndefined();
    expect(asked).toEqual([[dataset]]);
    await expect(authorizer.requireWrites(as('urn:li:corpuser:jdoe'), [proposal('DELETE')])).rejects.toThrow(
      new ForbiddenError(`User urn:li:corpuser:jdoe is unauthorized to modify entity: HttpStatus: 403 Urn: ${dataset}`),
    );
    await expect(authorizer.requireWrites(as('urn:li:corpuser:ann'), [proposal('UPSERT')])).rejects.toThrow(
      ForbiddenError,
    );
    // Root needs nothing read: its policies do not depend on the entity.
    asked.length = 0;
    await expect(
      authorizer.requireWrites(as('urn:li:corpuser:datahub'), [proposal('DELETE')]),
    ).resolves.toBeUndefined();
    expect(asked).toEqual([]);
  });
});
