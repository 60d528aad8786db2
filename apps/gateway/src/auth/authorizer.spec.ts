import { DEFAULT_POLICIES, SYSTEM_ACTOR } from '@strata/auth';
import type { RequestContext } from '@strata/http';
import { CREATION_REQUIRES_HEADER, ForbiddenError, UnauthorizedError, type ValidatedProposal } from '@strata/model';
import { Authorizer } from './authorizer';

const anonymous = 'urn:li:corpuser:UNKNOWN';
const security = {
  snapshotFor: () =>
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

describe('Authorizer.authorizeWrites', () => {
  const dataset = 'urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)';
  const proposal = (changeType: string, urn = dataset, aspect = 'status') =>
    ({
      urn: { toString: () => urn },
      entity: { name: /^urn:li:([^:]+):/.exec(urn)?.[1] },
      aspect: { name: aspect },
      changeType,
      headers: {},
    }) as unknown as ValidatedProposal;
  const caller = (actor: string) => ({ kind: 'caller', context: as(actor) }) as const;

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
    await expect(
      authorizer.authorizeWrites(caller('urn:li:corpuser:jdoe'), [proposal('UPSERT')]),
    ).resolves.toHaveLength(1);
    expect(asked).toEqual([[dataset]]);
    await expect(authorizer.authorizeWrites(caller('urn:li:corpuser:jdoe'), [proposal('DELETE')])).rejects.toThrow(
      new ForbiddenError(`User urn:li:corpuser:jdoe is unauthorized to modify entity: HttpStatus: 403 Urn: ${dataset}`),
    );
    await expect(authorizer.authorizeWrites(caller('urn:li:corpuser:ann'), [proposal('UPSERT')])).rejects.toThrow(
      ForbiddenError,
    );
    // Root needs nothing read: its policies do not depend on the entity.
    asked.length = 0;
    await expect(
      authorizer.authorizeWrites(caller('urn:li:corpuser:datahub'), [proposal('DELETE')]),
    ).resolves.toHaveLength(1);
    expect(asked).toEqual([]);
  });

  describe('the security inputs’ guards, with authentication on or off', () => {
    const root = 'urn:li:corpuser:datahub';
    const writes = [
      proposal('UPSERT', root, 'roleMembership'),
      proposal('UPSERT', root, 'corpUserStatus'),
      proposal('DELETE', root, 'corpUserKey'),
      proposal('UPSERT', 'urn:li:corpGroup:eng', 'corpGroupInfo'),
      proposal('UPSERT', 'urn:li:dataHubPolicy:p', 'dataHubPolicyInfo'),
    ];

    it.each([true, false])(
      'refuse them anonymously (401) and to a plain user (403) (authentication on: %s)',
      async (enabled) => {
        const authorizer = new Authorizer({ enabled, anonymousActor: anonymous, security });
        for (const write of writes) {
          for (const kind of ['caller', 'guards'] as const) {
            await expect(authorizer.authorizeWrites({ kind, context: as(anonymous) }, [write])).rejects.toThrow(
              UnauthorizedError,
            );
            await expect(
              authorizer.authorizeWrites({ kind, context: as('urn:li:corpuser:ann') }, [write]),
            ).rejects.toThrow(ForbiddenError);
          }
          await expect(authorizer.authorizeWrites(caller(root), [write])).resolves.toHaveLength(1);
        }
        await expect(
          authorizer.authorizeWrites(caller('urn:li:corpuser:ann'), [proposal('UPSERT', root, 'roleMembership')]),
        ).rejects.toThrow(
          new ForbiddenError(
            `User urn:li:corpuser:ann is unauthorized to modify entity: HttpStatus: 403 Urn: ${root} (roleMembership needs MANAGE_POLICIES)`,
          ),
        );
      },
    );

    it('let a caller who may not create users change users but not create one: the writer checks at the write', async () => {
      const authorizer = new Authorizer({ enabled: false, anonymousActor: anonymous, security });
      const [info] = await authorizer.authorizeWrites(caller(anonymous), [
        proposal('UPSERT', 'urn:li:corpuser:new', 'corpUserInfo'),
      ]);
      expect(info?.headers).toEqual({ [CREATION_REQUIRES_HEADER]: 'MANAGE_USERS_AND_GROUPS' });
      const [byRoot] = await authorizer.authorizeWrites(caller(root), [
        proposal('UPSERT', 'urn:li:corpuser:new', 'corpUserInfo'),
      ]);
      expect(byRoot?.headers).toEqual({});
      const [other] = await authorizer.authorizeWrites(caller(anonymous), [proposal('UPSERT')]);
      expect(other?.headers).toEqual({});
    });

    it('are the routes’ to answer for when they say they checked', async () => {
      const authorizer = new Authorizer({ enabled: true, anonymousActor: anonymous, security });
      await expect(authorizer.authorizeWrites({ kind: 'route', because: 'test' }, writes)).resolves.toHaveLength(5);
      await expect(authorizer.authorizeWrites({ kind: 'system' }, writes)).resolves.toHaveLength(5);
    });
  });
});
