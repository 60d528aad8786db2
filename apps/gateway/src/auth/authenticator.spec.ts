import { SYSTEM_ACTOR, TokenService } from '@strata/auth';
import { ForbiddenError, UnauthorizedError } from '@strata/model';
import { accessTokenUrn, createAuthenticator } from './authenticator';
import type { Principal } from './security-view';

const now = Date.UTC(2026, 10, 24);
const tokens = new TokenService({ signingKey: 'k'.repeat(32), now: () => now });
const anonymous = 'urn:li:corpuser:UNKNOWN';
const systemClient = { id: '__datahub_system', secret: 'a-system-client-secret' };

/** The catalog as the test sets it: users (all active unless told otherwise) and stored tokens. */
const catalog = {
  missing: new Set<string>(),
  removed: new Set<string>(),
  suspended: new Set<string>(),
  revoked: new Set<string>(),
  asked: [] as (string | undefined)[],
};
const security = {
  snapshot: () =>
    Promise.resolve({
      principal: (actor: string, tokenUrn?: string): Promise<Principal> => {
        catalog.asked.push(tokenUrn);
        return Promise.resolve({
          actor,
          exists: !catalog.missing.has(actor),
          removed: catalog.removed.has(actor),
          suspended: catalog.suspended.has(actor),
          groups: [],
          roles: [],
          ...(tokenUrn === undefined ? {} : { tokenExists: !catalog.revoked.has(tokenUrn) }),
        });
      },
      policies: () => Promise.resolve([]),
    }),
};

function authenticator() {
  const refused: string[] = [];
  const authenticate = createAuthenticator({
    tokens,
    systemClient,
    anonymousActor: anonymous,
    onRefused: (reason) => refused.push(reason),
    security,
  });
  const as = async (path: string, authorization?: string, open = false) => {
    const caller = await authenticate({
      method: 'POST',
      path,
      open,
      header: (name) => (name.toLowerCase() === 'authorization' ? authorization : undefined),
    });
    return typeof caller === 'string' ? caller : caller.actor;
  };
  return { as, authenticate, refused };
}

describe('createAuthenticator', () => {
  it('gives a valid token its user and the system client the system actor', async () => {
    const { token } = await tokens.mint('jdoe', 'PERSONAL', 3_600_000);
    const { as } = authenticator();
    expect(await as('/aspects', `Bearer ${token}`)).toBe('urn:li:corpuser:jdoe');
    expect(await as('/config', `bearer ${token}`, true)).toBe('urn:li:corpuser:jdoe');
    expect(await as('/aspects', 'Basic __datahub_system:a-system-client-secret')).toBe(SYSTEM_ACTOR);
  });

  it('keeps the security state it read to check a token as the request’s session, for its authorization', async () => {
    const { token } = await tokens.mint('jdoe', 'PERSONAL', 3_600_000);
    const { authenticate } = authenticator();
    const caller = await authenticate({
      method: 'POST',
      path: '/aspects',
      open: false,
      header: (name) => (name === 'authorization' ? `Bearer ${token}` : undefined),
    });
    expect(caller).toMatchObject({ actor: 'urn:li:corpuser:jdoe', session: expect.anything() });
  });

  it('makes a request without credentials anonymous: whether it may go on is its route’s to say', async () => {
    const { as, refused } = authenticator();
    expect(await as('/aspects')).toBe(anonymous);
    expect(await as('/aspects', '  ')).toBe(anonymous);
    expect(refused).toEqual([]);
  });

  // Every case of DataHub's authentication smoke test, and a few more: refused whether authentication is on or off.
  it.each([
    ['a malformed token', 'Bearer invalid.jwt.token'],
    ['Bearer with nothing', 'Bearer'],
    ['Bearer and a space', 'Bearer '],
    ['a lower-case bearer with junk', 'bearer invalid-token'],
    ['base64 Basic credentials', 'Basic dXNlcjpwYXNz'],
    ['the wrong system secret', 'Basic __datahub_system:JohnSnowKnowsNothing'],
    ['another client id', 'Basic someone:a-system-client-secret'],
    ['an unknown prefix', 'InvalidPrefix token'],
  ])('refuses %s with DataHub’s 401, and ignores it on an open route', async (_case, header) => {
    const { as, refused } = authenticator();
    await expect(as('/aspects', header)).rejects.toThrow(new UnauthorizedError('Unauthorized to perform this action.'));
    expect(refused).toHaveLength(1);
    expect(refused[0]).not.toContain('a-system-client-secret');
    expect(await as('/health', header, true)).toBe(anonymous);
  });

  it('refuses the token of a user who does not exist, is soft-deleted or suspended, and a revoked personal token', async () => {
    const { as, refused } = authenticator();
    const personal = await tokens.mint('ann', 'PERSONAL', 3_600_000);
    const session = await tokens.mint('ann', 'SESSION', 3_600_000);
    expect(await as('/aspects', `Bearer ${personal.token}`)).toBe('urn:li:corpuser:ann');
    expect(await as('/aspects', `Bearer ${session.token}`)).toBe('urn:li:corpuser:ann');
    // A personal token is looked up by its id; a session token is not stored.
    expect(catalog.asked.slice(-2)).toEqual([accessTokenUrn(personal.claims.jti), undefined]);

    for (const set of [catalog.missing, catalog.removed, catalog.suspended]) {
      set.add('urn:li:corpuser:ann');
      await expect(as('/aspects', `Bearer ${personal.token}`)).rejects.toThrow(UnauthorizedError);
      await expect(as('/aspects', `Bearer ${session.token}`)).rejects.toThrow(UnauthorizedError);
      set.clear();
    }
    catalog.revoked.add(accessTokenUrn(personal.claims.jti));
    await expect(as('/aspects', `Bearer ${personal.token}`)).rejects.toThrow(UnauthorizedError);
    expect(await as('/aspects', `Bearer ${session.token}`)).toBe('urn:li:corpuser:ann');
    catalog.revoked.clear();
    expect(refused).toEqual([
      'Actor is not active',
      'Actor is not active',
      'Actor is not active',
      'Actor is not active',
      'Actor is not active',
      'Actor is not active',
      'Token has been revoked',
    ]);
  });

  it('refuses an expired token and one signed with another key', async () => {
    const { as } = authenticator();
    const expired = await new TokenService({ signingKey: 'k'.repeat(32), now: () => now - 7_200_000 }).mint(
      'jdoe',
      'PERSONAL',
      3_600_000,
    );
    await expect(as('/aspects', `Bearer ${expired.token}`)).rejects.toThrow(UnauthorizedError);
    const foreign = await new TokenService({ signingKey: 'x'.repeat(32), now: () => now }).mint('jdoe', 'PERSONAL', 1);
    await expect(as('/aspects', `Bearer ${foreign.token}`)).rejects.toThrow(UnauthorizedError);
  });
});

describe('the console session cookie', () => {
  const request = (method: string, headers: Record<string, string>, open = false) => ({
    method,
    path: '/api/graphql',
    open,
    header: (name: string) => headers[name.toLowerCase()],
  });
  const actorOf = (caller: Awaited<ReturnType<ReturnType<typeof authenticator>['authenticate']>>) =>
    typeof caller === 'string' ? caller : caller.actor;

  it('acts as its token’s user when no Authorization header is sent', async () => {
    const { token } = await tokens.mint('jdoe', 'PERSONAL', 3_600_000);
    const { authenticate } = authenticator();
    const cookie = `theme=dark; strata_session=${token}`;
    expect(actorOf(await authenticate(request('GET', { cookie })))).toBe('urn:li:corpuser:jdoe');
    expect(
      actorOf(await authenticate(request('POST', { cookie, origin: 'http://strata:8080', host: 'strata:8080' }))),
    ).toBe('urn:li:corpuser:jdoe');
    // A client holding the cookie outside a browser sends neither Origin nor Sec-Fetch-Site.
    expect(actorOf(await authenticate(request('POST', { cookie })))).toBe('urn:li:corpuser:jdoe');
  });

  it('refuses a write carried by the cookie from another site, and lets a read from anywhere through', async () => {
    const { token } = await tokens.mint('jdoe', 'PERSONAL', 3_600_000);
    const { authenticate } = authenticator();
    const cookie = `strata_session=${token}`;
    await expect(
      authenticate(request('POST', { cookie, origin: 'https://evil.example', host: 'strata:8080' })),
    ).rejects.toThrow(ForbiddenError);
    await expect(
      authenticate(request('DELETE', { cookie, 'sec-fetch-site': 'cross-site', host: 'strata:8080' })),
    ).rejects.toThrow(ForbiddenError);
    await expect(authenticate(request('POST', { cookie, origin: 'null', host: 'strata:8080' }))).rejects.toThrow(
      ForbiddenError,
    );
    expect(
      actorOf(await authenticate(request('GET', { cookie, origin: 'https://evil.example', host: 'strata:8080' }))),
    ).toBe('urn:li:corpuser:jdoe');
    // Behind a proxy, the host the browser asked for is the forwarded one.
    expect(
      actorOf(
        await authenticate(
          request('POST', {
            cookie,
            origin: 'https://catalog.example',
            host: 'strata:8080',
            'x-forwarded-host': 'catalog.example',
          }),
        ),
      ),
    ).toBe('urn:li:corpuser:jdoe');
  });

  it('leaves an Authorization header in charge, and refuses a cookie whose token does not verify', async () => {
    const { token } = await tokens.mint('jdoe', 'PERSONAL', 3_600_000);
    const { token: other } = await tokens.mint('asmith', 'PERSONAL', 3_600_000);
    const { authenticate } = authenticator();
    expect(
      actorOf(
        await authenticate(request('POST', { cookie: `strata_session=${token}`, authorization: `Bearer ${other}` })),
      ),
    ).toBe('urn:li:corpuser:asmith');
    await expect(authenticate(request('GET', { cookie: 'strata_session=not-a-token' }))).rejects.toThrow(
      UnauthorizedError,
    );
  });
});
