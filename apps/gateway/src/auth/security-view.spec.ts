import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { securityInputOf } from '@strata/auth';
import type { RequestContext, RouteCall } from '@strata/http';
import { SecurityView, systemContext } from './security-view';

const jdoe = 'urn:li:corpuser:jdoe';
const token = 'urn:li:dataHubAccessToken:t1';

/**
 * The writer's generic reads, in memory: latest values by URN and aspect, marks, listed aspects. Records every read
 * as (entity type, aspect), and every call.
 */
function writer() {
  const aspects = new Map<string, Record<string, unknown>>([
    [`${jdoe} corpUserKey`, { username: 'jdoe' }],
    [`${jdoe} corpUserStatus`, { status: 'ACTIVE' }],
    [`${jdoe} groupMembership`, { groups: ['urn:li:corpGroup:eng'] }],
    [`${jdoe} corpUserCredentials`, { salt: 's', hashedPassword: 'h' }],
    [`${jdoe} corpUserInfo`, { active: true }],
    ['urn:li:corpGroup:eng roleMembership', { roles: ['urn:li:dataHubRole:Editor'] }],
    [`${token} dataHubAccessTokenKey`, { id: 't1' }],
    [`${token} dataHubAccessTokenInfo`, { name: 'ci', actorUrn: jdoe, ownerUrn: jdoe, createdAt: 1 }],
    ['urn:li:dataHubPolicy:0 dataHubPolicyInfo', { state: 'ACTIVE' }],
  ]);
  const state = {
    marks: { 'security.policies': null as string | null, 'security.principals': 'p1' as string | null },
    failNext: false,
    calls: [] as string[],
    reads: [] as [string, string][],
  };
  const typeOf = (urn: string) => /^urn:li:([^:]+):/.exec(urn)?.[1] ?? urn;
  const call = (request: RouteCall) => {
    state.calls.push(request.resource);
    if (request.resource === '/internal/marks') return Promise.resolve({ marks: state.marks });
    if (state.failNext) {
      state.failNext = false;
      return Promise.reject(new Error('writer unavailable'));
    }
    if (request.resource === '/internal/listed') {
      const aspect = request.query?.['aspect'] as string;
      const values = [...aspects]
        .filter(([key]) => key.endsWith(` ${aspect}`))
        .map(([key, value]) => ({ urn: key.split(' ')[0], value }));
      for (const { urn } of values) state.reads.push([typeOf(urn ?? ''), aspect]);
      if (values.length === 0) state.reads.push(['*', aspect]);
      return Promise.resolve({ values });
    }
    if (request.resource === '/internal/entities/latest') {
      const body = request.body as { urns: string[]; aspects: string[] };
      const entities = body.urns.flatMap((urn) => {
        const found: Record<string, { value: unknown }> = {};
        for (const aspect of body.aspects) {
          state.reads.push([typeOf(urn), aspect]);
          const value = aspects.get(`${urn} ${aspect}`);
          if (value !== undefined) found[aspect] = { value };
        }
        return Object.keys(found).length === 0 ? [] : [{ urn, aspects: found }];
      });
      return Promise.resolve({ entities });
    }
    return Promise.reject(new Error(`not a read of the writer: ${request.resource}`));
  };
  return { state, aspects, view: new SecurityView(call, systemContext('__datahub_system', 'secret')) };
}

describe('SecurityView', () => {
  it('knows a principal: existence, status, groups, and roles of its own and of its groups', async () => {
    const { view, aspects } = writer();
    expect(await (await view.snapshot()).principal(jdoe, token)).toEqual({
      actor: jdoe,
      exists: true,
      removed: false,
      suspended: false,
      groups: ['urn:li:corpGroup:eng'],
      roles: ['urn:li:dataHubRole:Editor'],
      tokenExists: true,
    });
    aspects.set(`${jdoe} corpUserStatus`, { status: 'SUSPENDED' });
    aspects.delete(`${token} dataHubAccessTokenKey`);
    expect(await (await view.snapshot()).principal(jdoe, token)).toMatchObject({ suspended: false }); // cached
    const fresh = writer();
    fresh.aspects.set(`${jdoe} corpUserStatus`, { status: 'SUSPENDED' });
    fresh.aspects.delete(`${token} dataHubAccessTokenKey`);
    expect(await (await fresh.view.snapshot()).principal(jdoe, token)).toMatchObject({
      suspended: true,
      tokenExists: false,
    });
    expect(await (await fresh.view.snapshot()).principal('urn:li:corpuser:nobody')).toMatchObject({ exists: false });
  });

  it('reads the marks on every snapshot, and principals and policies again only when their mark moved', async () => {
    const { state, view } = writer();
    await (await view.snapshot()).principal(jdoe);
    await (await view.snapshot()).principal(jdoe);
    await (await view.snapshot()).policies();
    await (await view.snapshot()).policies();
    expect(state.calls).toEqual([
      '/internal/marks',
      '/internal/entities/latest', // the user
      '/internal/entities/latest', // its groups
      '/internal/marks',
      '/internal/marks',
      '/internal/listed',
      '/internal/marks',
    ]);
    state.marks = { 'security.policies': 'q1', 'security.principals': 'p2' };
    state.calls = [];
    const snapshot = await view.snapshot();
    await snapshot.principal(jdoe);
    await snapshot.policies();
    expect(state.calls).toEqual([
      '/internal/marks',
      '/internal/entities/latest',
      '/internal/entities/latest',
      '/internal/listed',
    ]);
  });

  it('reads the security state of one request once, however many checks it makes', async () => {
    const { state, view } = writer();
    const request = { actor: jdoe } as RequestContext;
    await (await view.snapshotFor(request)).policies();
    await (await view.snapshotFor(request)).principal(jdoe);
    await (await view.snapshotFor(request)).principal(jdoe);
    expect(state.calls.filter((call) => call === '/internal/marks')).toHaveLength(1);
    // A request authenticated with a snapshot asks no other.
    const authenticated = { actor: jdoe, session: await view.snapshot() } as RequestContext;
    state.calls = [];
    await (await view.snapshotFor(authenticated)).policies();
    expect(state.calls).toEqual([]);
    // Another request reads its own.
    await view.snapshotFor({ actor: jdoe } as RequestContext);
    expect(state.calls).toEqual(['/internal/marks']);
  });

  it('does not remember a failed read', async () => {
    const { state, view } = writer();
    state.failNext = true;
    await expect((await view.snapshot()).principal(jdoe)).rejects.toThrow('writer unavailable');
    expect((await (await view.snapshot()).principal(jdoe)).exists).toBe(true);
  });

  it('reads stored tokens and password hashes afresh', async () => {
    const { view } = writer();
    expect(await view.tokens('t1')).toEqual([
      {
        id: 't1',
        name: 'ci',
        actorUrn: jdoe,
        ownerUrn: jdoe,
        createdAt: 1,
        expiresAt: undefined,
        description: undefined,
      },
    ]);
    expect((await view.tokens()).map((found) => found.id)).toEqual(['t1']);
    expect(await view.tokens('nope')).toEqual([]);
    expect(await view.credentials(jdoe)).toEqual({ salt: 's', hashedPassword: 'h' });
    expect(await view.credentials('urn:li:corpuser:nobody')).toBeNull();
  });

  it('reads as the system actor, with the system client’s credentials', () => {
    const context = systemContext('__datahub_system', 'secret');
    expect(context.actor).toBe('urn:li:corpuser:__datahub_system');
    expect(context.header('Authorization')).toBe('Basic __datahub_system:secret');
  });
});

describe('what authentication and authorization read', () => {
  it('is nothing but security inputs, whose writes are guarded', async () => {
    const { state, view } = writer();
    const snapshot = await view.snapshot();
    await snapshot.principal(jdoe, token);
    await snapshot.policies();
    await view.credentials(jdoe);
    await view.tokens();
    await view.tokens('t1');
    const reads = [...new Set(state.reads.map(([type, aspect]) => `${type} ${aspect}`))].sort();
    expect(reads.length).toBeGreaterThan(8);
    const unguarded = state.reads.filter(
      ([type, aspect]) => type !== '*' && securityInputOf(type, aspect) === undefined,
    );
    expect(unguarded).toEqual([]);
  });

  it('is read through the security view only (policies’ facts about resources aside)', () => {
    const root = join(__dirname, '..');
    const files = (function walk(directory: string): string[] {
      return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory()
          ? walk(join(directory, entry.name))
          : entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')
            ? [join(directory, entry.name)]
            : [],
      );
    })(root);
    const readers = files
      .filter((file) => /'\/internal\/(marks|listed|entities\/latest)'/.test(readFileSync(file, 'utf8')))
      .map((file) => file.slice(root.length + 1))
      .sort();
    // (resource-facts.ts reads owners, tags, domains… through the public /entitiesV2: what policies select
    // resources by, metadata the policies themselves guard. The write switch reads one mark of its own, which no
    // security input sets, and no other.)
    expect(readers).toEqual(['auth/security-view.ts', 'graphql/resolvers/entities-view.ts', 'ingest/write-switch.ts']);
    // The GraphQL API reads whether entities exist (their key aspect and status), and nothing else, that way.
    const presence = readFileSync(join(root, 'graphql', 'resolvers', 'entities-view.ts'), 'utf8');
    expect(presence).toContain("[keyAspect, 'status']");
    expect(presence.match(/storedAspects\(/g)).toHaveLength(2);
    expect(presence).not.toMatch(/Credentials|dataHubPolicy|Secret|security\./);
    const writeSwitch = readFileSync(join(root, 'ingest', 'write-switch.ts'), 'utf8');
    expect(writeSwitch).not.toMatch(/'\/internal\/(listed|entities\/latest)'|security\./);
    expect(writeSwitch).toContain(`query: { name: [WRITABLE_MARK] }`);
  });
});
