import { DEFAULT_POLICIES, SYSTEM_ACTOR, type Policy } from '@strata/auth';
import { defineRoute, type RequestContext, type RouteAccess } from '@strata/http';
import { ForbiddenError, UnauthorizedError } from '@strata/model';
import { Authorizer } from './authorizer';
import { assertKnownPrivileges, createRouteGuard } from './route-guard';

const anonymous = 'urn:li:corpuser:UNKNOWN';
const root = 'urn:li:corpuser:datahub';
const dataset = 'urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)';
/** jdoe may read datasets (a type filter), and nothing else; ann holds only what every user holds by default. */
const readDatasets: Policy = {
  urn: 'urn:li:dataHubPolicy:read-datasets',
  info: {
    type: 'METADATA',
    state: 'ACTIVE',
    privileges: ['VIEW_ENTITY_PAGE', 'SEARCH_PRIVILEGE'],
    actors: { users: ['urn:li:corpuser:jdoe'] },
    resources: { filter: { criteria: [{ field: 'TYPE', values: ['dataset'], condition: 'EQUALS' }] } },
  },
};
const policies = DEFAULT_POLICIES.filter((policy) => !policy.info.privileges.includes('VIEW_ENTITY_PAGE'));

function guardOf(enabled: boolean) {
  const authorizer = new Authorizer({
    enabled,
    anonymousActor: anonymous,
    security: {
      snapshotFor: () =>
        Promise.resolve({
          principal: (actor: string) =>
            Promise.resolve({ actor, exists: true, removed: false, suspended: false, groups: [], roles: [] }),
          policies: () => Promise.resolve([...policies, readDatasets]),
        }),
    },
  });
  return { guard: createRouteGuard(authorizer) };
}

const route = (access: RouteAccess, resource = '/somewhere') =>
  defineRoute({
    method: 'POST',
    resource,
    family: 'restli',
    access,
    summary: 'a route',
    handle: () => Promise.resolve({}),
  });

/** Calls the guard as the HTTP layer does, counting the reads of the body. */
async function check(
  guard: ReturnType<typeof guardOf>['guard'],
  access: RouteAccess,
  actor: string,
  input: { key?: string; query?: Record<string, unknown>; body?: unknown } = {},
) {
  const reads = { body: 0 };
  await guard.check(route(access), {
    query: input.query ?? {},
    key: input.key,
    context: { actor } as RequestContext,
    body: () => {
      reads.body += 1;
      return Promise.resolve(input.body);
    },
  });
  return reads;
}

const operations: RouteAccess = {
  kind: 'privilege',
  anyOf: [['RESTORE_INDICES_PRIVILEGE']],
  message: '{actor} may not restore.',
  always: true,
};
const read: RouteAccess = {
  kind: 'resource',
  group: 'ENTITY',
  operations: ['READ'],
  resource: { in: 'key' },
  message: 'User is unauthorized to get entity {resource}',
};
const search: RouteAccess = {
  kind: 'resource',
  group: 'ENTITY',
  operations: ['READ'],
  resource: { in: 'bodyTypes', names: ['entity', 'entities'] },
  message: 'User is unauthorized to search.',
};

describe('the route guard, generic over access declarations', () => {
  it('lets anyone call an open route, credentials or not, authentication on or off', async () => {
    for (const enabled of [true, false]) {
      await expect(check(guardOf(enabled).guard, { kind: 'open' }, anonymous)).resolves.toEqual({ body: 0 });
    }
  });

  it('asks a caller for credentials with authentication on, and always where the route says so', async () => {
    const on = guardOf(true).guard;
    const off = guardOf(false).guard;
    for (const kind of ['caller', 'writes'] as const) {
      await expect(check(on, { kind }, anonymous)).rejects.toThrow(UnauthorizedError);
      await expect(check(on, { kind }, 'urn:li:corpuser:ann')).resolves.toBeDefined();
      await expect(check(off, { kind }, anonymous)).resolves.toBeDefined();
    }
    await expect(check(off, { kind: 'caller', always: true }, anonymous)).rejects.toThrow(UnauthorizedError);
  });

  it('refuses a privileged route anonymously with 401 and without the privilege with 403 in its words, on or off', async () => {
    for (const enabled of [true, false]) {
      const { guard } = guardOf(enabled);
      await expect(check(guard, operations, anonymous)).rejects.toThrow(UnauthorizedError);
      await expect(check(guard, operations, 'urn:li:corpuser:ann')).rejects.toThrow(
        new ForbiddenError('urn:li:corpuser:ann may not restore.'),
      );
      await expect(check(guard, operations, root)).resolves.toBeDefined();
      await expect(check(guard, operations, SYSTEM_ACTOR)).resolves.toBeDefined();
    }
    // Without `always`, only with authentication on.
    const { always: _always, ...sometimes } = operations;
    await expect(check(guardOf(false).guard, sometimes, anonymous)).resolves.toBeDefined();
  });

  it('checks the privilege on the resource the request names, and names it in the refusal', async () => {
    const { guard } = guardOf(true);
    await expect(check(guard, read, 'urn:li:corpuser:jdoe', { key: dataset })).resolves.toBeDefined();
    await expect(check(guard, read, 'urn:li:corpuser:jdoe', { key: 'urn:li:corpuser:ann' })).rejects.toThrow(
      new ForbiddenError('User is unauthorized to get entity urn:li:corpuser:ann'),
    );
    await expect(check(guard, read, anonymous, { key: dataset })).rejects.toThrow(UnauthorizedError);
    // With authentication off, nothing is asked of a resource.
    await expect(check(guardOf(false).guard, read, anonymous, { key: dataset })).resolves.toBeDefined();
  });

  it('checks a privilege on the resource the body names, for a privilege declared on a resource', async () => {
    const { guard } = guardOf(true);
    const usage: RouteAccess = {
      kind: 'privilege',
      anyOf: [['SEARCH_PRIVILEGE']],
      resource: { in: 'body', name: 'resource' },
      message: 'User is unauthorized to query usage.',
    };
    // jdoe holds it on datasets only (a METADATA policy with a type filter).
    const jdoe = 'urn:li:corpuser:jdoe';
    await expect(check(guard, usage, jdoe, { body: { resource: dataset } })).resolves.toEqual({ body: 1 });
    await expect(check(guard, usage, jdoe, { body: { resource: 'urn:li:corpuser:ann' } })).rejects.toThrow(
      new ForbiddenError('User is unauthorized to query usage.'),
    );
    await expect(check(guard, usage, anonymous, { body: { resource: dataset } })).rejects.toThrow(UnauthorizedError);
    await expect(check(guardOf(false).guard, usage, anonymous, { body: { resource: dataset } })).resolves.toEqual({
      body: 0,
    });
    // A metadata privilege, which no platform policy lists: not refused as unknown.
    expect(() => {
      assertKnownPrivileges([route(usage)]);
    }).not.toThrow();
  });

  it('finds URNs in query lists, leaving those that do not parse to the route', async () => {
    const { guard } = guardOf(true);
    const batch: RouteAccess = { ...read, resource: { in: 'query', name: 'ids', list: true } };
    await expect(
      check(guard, batch, 'urn:li:corpuser:jdoe', { query: { ids: `List(${dataset},not-a-urn)` } }),
    ).resolves.toBeDefined();
    await expect(
      check(guard, batch, 'urn:li:corpuser:jdoe', { query: { ids: [dataset, 'urn:li:corpuser:ann'] } }),
    ).rejects.toThrow(ForbiddenError);
  });

  it('checks the URN of each versioned key, leaving keys of another shape to the route', async () => {
    const { guard } = guardOf(true);
    const batch: RouteAccess = { ...read, resource: { in: 'query', name: 'ids', list: true, versioned: true } };
    await expect(
      check(guard, batch, 'urn:li:corpuser:jdoe', { query: { ids: `List((${dataset} , status:1),garbage)` } }),
    ).resolves.toBeDefined();
    await expect(
      check(guard, batch, 'urn:li:corpuser:jdoe', {
        query: { ids: `List((${dataset} , ),(urn:li:corpuser:ann , status:0))` },
      }),
    ).rejects.toThrow(ForbiddenError);
  });

  it('reads the body only for a declaration that finds the resource there, and only once credentials hold', async () => {
    const { guard } = guardOf(true);
    expect(await check(guard, search, 'urn:li:corpuser:jdoe', { body: { entity: 'dataset' } })).toEqual({ body: 1 });
    await expect(
      check(guard, search, 'urn:li:corpuser:jdoe', { body: { entities: ['dataset', 'chart'] } }),
    ).rejects.toThrow(new ForbiddenError('User is unauthorized to search.'));
    // A search over every type needs the privilege no type narrows.
    await expect(check(guard, search, 'urn:li:corpuser:jdoe', { body: { input: '*' } })).rejects.toThrow(
      ForbiddenError,
    );
    expect(await check(guard, read, 'urn:li:corpuser:jdoe', { key: dataset })).toEqual({ body: 0 });
    let reads = 0;
    await expect(
      guard.check(route(search), {
        query: {},
        key: undefined,
        context: { actor: anonymous } as RequestContext,
        body: () => {
          reads += 1;
          return Promise.resolve('not even an object');
        },
      }),
    ).rejects.toThrow(UnauthorizedError);
    expect(reads).toBe(0);
  });

  it('asks for every operation a route declares, on a fixed entity type', async () => {
    const { guard } = guardOf(true);
    const rollback: RouteAccess = {
      kind: 'resource',
      group: 'ENTITY',
      operations: ['UPDATE', 'DELETE'],
      resource: { in: 'type', type: 'dataHubIngestionSource' },
      message: 'User is unauthorized to update entity',
    };
    await expect(check(guard, rollback, 'urn:li:corpuser:jdoe')).rejects.toThrow(
      new ForbiddenError('User is unauthorized to update entity'),
    );
    await expect(check(guard, rollback, root)).resolves.toBeDefined();
  });

  it('refuses to serve an internal route publicly', async () => {
    await expect(check(guardOf(true).guard, { kind: 'internal' }, SYSTEM_ACTOR)).rejects.toThrow('internal');
  });
});

describe('assertKnownPrivileges', () => {
  it('refuses a declaration naming a privilege that does not exist', () => {
    expect(() => {
      assertKnownPrivileges([route({ ...operations, anyOf: [['RESTORE_INDICES_PRIVILEDGE']] })]);
    }).toThrow('RESTORE_INDICES_PRIVILEDGE');
    expect(() => {
      assertKnownPrivileges([route(operations)]);
    }).not.toThrow();
  });
});

describe('admitting a caller before a route of a path is chosen', () => {
  const ofPath = [route(operations), route({ kind: 'writes' })];
  const as = (actor: string) => ({ actor }) as RequestContext;

  it('refuses an anonymous caller when no route of the path would take one', () => {
    expect(() => {
      guardOf(true).guard.admit(ofPath, as(anonymous));
    }).toThrow(UnauthorizedError);
    expect(() => {
      guardOf(true).guard.admit(ofPath, as('urn:li:corpuser:ann'));
    }).not.toThrow();
    // With authentication off, the writes take one: the action decides.
    expect(() => {
      guardOf(false).guard.admit(ofPath, as(anonymous));
    }).not.toThrow();
    expect(() => {
      guardOf(false).guard.admit([route(operations)], as(anonymous));
    }).toThrow(UnauthorizedError);
    expect(() => {
      guardOf(true).guard.admit([...ofPath, route({ kind: 'open' })], as(anonymous));
    }).not.toThrow();
  });
});
