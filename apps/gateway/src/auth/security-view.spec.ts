import type { RouteCall } from '@strata/http';
import { SecurityView, systemContext } from './security-view';

/** The writer's security routes, in memory, counting the reads. */
function writer() {
  const state = {
    marks: { policies: null as string | null, principals: 'p1' as string | null },
    failNext: false,
    reads: [] as string[],
  };
  const call = (request: RouteCall) => {
    state.reads.push(request.resource);
    if (request.resource === '/internal/security/marks') return Promise.resolve(state.marks);
    if (state.failNext) {
      state.failNext = false;
      return Promise.reject(new Error('writer unavailable'));
    }
    if (request.resource === '/internal/security/policies') {
      return Promise.resolve({ policies: [{ urn: 'urn:li:dataHubPolicy:0', info: { marks: state.marks.policies } }] });
    }
    const actor = request.query?.['actor'] as string;
    return Promise.resolve({
      actor,
      exists: true,
      removed: false,
      suspended: state.marks.principals === 'p2',
      groups: [],
      roles: [],
    });
  };
  return { state, view: new SecurityView(call, systemContext('__datahub_system', 'secret')) };
}

describe('SecurityView', () => {
  it('reads the marks on every snapshot, and principals and policies again only when their mark moved', async () => {
    const { state, view } = writer();
    const jdoe = 'urn:li:corpuser:jdoe';
    expect((await (await view.snapshot()).principal(jdoe)).suspended).toBe(false);
    await (await view.snapshot()).principal(jdoe);
    await (await view.snapshot()).policies();
    await (await view.snapshot()).policies();
    expect(state.reads).toEqual([
      '/internal/security/marks',
      '/internal/security/principal',
      '/internal/security/marks',
      '/internal/security/marks',
      '/internal/security/policies',
      '/internal/security/marks',
    ]);

    state.marks = { policies: 'q1', principals: 'p2' };
    state.reads = [];
    const snapshot = await view.snapshot();
    expect((await snapshot.principal(jdoe)).suspended).toBe(true);
    expect((await snapshot.policies())[0]?.info).toEqual({ marks: 'q1' });
    expect(state.reads).toEqual([
      '/internal/security/marks',
      '/internal/security/principal',
      '/internal/security/policies',
    ]);
  });

  it('does not remember a failed read', async () => {
    const { state, view } = writer();
    state.failNext = true;
    await expect((await view.snapshot()).principal('urn:li:corpuser:jdoe')).rejects.toThrow('writer unavailable');
    expect((await (await view.snapshot()).principal('urn:li:corpuser:jdoe')).exists).toBe(true);
  });

  it('reads as the system actor, with the system client’s credentials', () => {
    const context = systemContext('__datahub_system', 'secret');
    expect(context.actor).toBe('urn:li:corpuser:__datahub_system');
    expect(context.header('Authorization')).toBe('Basic __datahub_system:secret');
  });
});
