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
