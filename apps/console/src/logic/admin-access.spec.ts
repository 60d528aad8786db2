import { ADMIN_PAGES, adminPage, allowanceOf, probeAllowance, refusalSentence } from './admin-access';

describe('allowanceOf', () => {
  const all = { viewAnalytics: true, manageTokens: true, generatePersonalAccessTokens: true, viewTests: true };

  it('lets a signed-in user with a page privilege in, and leaves probed pages to their route', () => {
    expect(allowanceOf(adminPage('tokens'), all, true)).toEqual({ kind: 'allowed' });
    expect(allowanceOf(adminPage('tests'), { viewTests: true }, true)).toEqual({ kind: 'allowed' });
    expect(allowanceOf(adminPage('tests'), { manageTests: true }, true)).toEqual({ kind: 'allowed' });
    expect(allowanceOf(adminPage('audit'), all, true)).toEqual({ kind: 'unknown' });
    expect(allowanceOf(adminPage('operations'), {}, true)).toEqual({ kind: 'unknown' });
    expect(allowanceOf(adminPage('runs'), {}, true)).toEqual({ kind: 'unknown' });
  });

  it('refuses a page whose privileges the user lacks, naming the privilege', () => {
    const refused = allowanceOf(adminPage('audit'), { viewAnalytics: false }, true);
    expect(refused).toEqual({ kind: 'refused', reason: refusalSentence(adminPage('audit').needs) });
    expect(refusalSentence('Get Analytics')).toBe(
      'You need the Get Analytics privilege; ask an administrator to grant it to you with a policy.',
    );
    expect(allowanceOf(adminPage('tokens'), { viewAnalytics: true }, true).kind).toBe('refused');
  });

  it('refuses the pages whose routes need credentials to the anonymous user, even holding every privilege', () => {
    for (const id of ['audit', 'operations', 'tokens'] as const) {
      const allowance = allowanceOf(adminPage(id), all, false);
      expect(allowance.kind).toBe('refused');
      expect(allowance.kind === 'refused' && allowance.reason).toMatch(/signed-in user/);
    }
    expect(allowanceOf(adminPage('runs'), all, false).kind).toBe('unknown');
    expect(allowanceOf(adminPage('tests'), all, false).kind).toBe('allowed');
  });

  it('knows every page of the routes', () => {
    expect(ADMIN_PAGES.map((page) => page.path)).toEqual([
      '/admin/runs',
      '/admin/audit',
      '/admin/operations',
      '/admin/tests',
      '/admin/tokens',
    ]);
    expect(() => adminPage('nope' as never)).toThrow('No administration page nope');
  });
});

describe('probeAllowance', () => {
  const audit = adminPage('audit');
  it('reads an answer as allowed, 401 and 403 as refused, and any other failure as no answer', () => {
    expect(probeAllowance(audit, 'ok')).toEqual({ kind: 'allowed' });
    expect(probeAllowance(audit, 403)).toEqual({ kind: 'refused', reason: refusalSentence(audit.needs) });
    expect(probeAllowance(audit, 401).kind).toBe('refused');
    expect(probeAllowance(audit, 500)).toEqual({ kind: 'unknown' });
    expect(probeAllowance(audit, 0)).toEqual({ kind: 'unknown' });
  });
});
