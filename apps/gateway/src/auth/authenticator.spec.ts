import { SYSTEM_ACTOR, TokenService } from '@strata/auth';
import { UnauthorizedError } from '@strata/model';
import { createAuthenticator } from './authenticator';

const now = Date.UTC(2026, 10, 24);
const tokens = new TokenService({ signingKey: 'k'.repeat(32), now: () => now });
const anonymous = 'urn:li:corpuser:UNKNOWN';
const systemClient = { id: '__datahub_system', secret: 'a-system-client-secret' };

function authenticator(enabled: boolean) {
  const refused: string[] = [];
  const authenticate = createAuthenticator({
    enabled,
    tokens,
    systemClient,
    anonymousActor: anonymous,
    onRefused: (reason) => refused.push(reason),
  });
  const as = (path: string, authorization?: string) =>
    authenticate({ path, header: (name) => (name.toLowerCase() === 'authorization' ? authorization : undefined) });
  return { as, refused };
}

describe('createAuthenticator', () => {
  it('gives a valid token its user and the system client the system actor, with authentication on or off', async () => {
    const { token } = await tokens.mint('jdoe', 'PERSONAL', 3_600_000);
    for (const enabled of [true, false]) {
      const { as } = authenticator(enabled);
      expect(await as('/aspects', `Bearer ${token}`)).toBe('urn:li:corpuser:jdoe');
      expect(await as('/config', `bearer ${token}`)).toBe('urn:li:corpuser:jdoe');
      expect(await as('/aspects', 'Basic __datahub_system:a-system-client-secret')).toBe(SYSTEM_ACTOR);
    }
  });

  // Every case of DataHub's authentication smoke test, and a few more.
  it.each([
    ['no header', undefined],
    ['a malformed token', 'Bearer invalid.jwt.token'],
    ['Bearer with nothing', 'Bearer'],
    ['Bearer and a space', 'Bearer '],
    ['a lower-case bearer with junk', 'bearer invalid-token'],
    ['base64 Basic credentials', 'Basic dXNlcjpwYXNz'],
    ['the wrong system secret', 'Basic __datahub_system:JohnSnowKnowsNothing'],
    ['another client id', 'Basic someone:a-system-client-secret'],
    ['an unknown prefix', 'InvalidPrefix token'],
  ])('with authentication on, refuses %s with DataHub’s 401 on a protected path', async (_case, header) => {
    const { as, refused } = authenticator(true);
    await expect(as('/aspects', header)).rejects.toThrow(new UnauthorizedError('Unauthorized to perform this action.'));
    expect(refused).toHaveLength(1);
    expect(refused[0]).not.toContain('a-system-client-secret');
  });

  it('refuses an expired token and one signed with another key', async () => {
    const { as } = authenticator(true);
    const expired = await new TokenService({ signingKey: 'k'.repeat(32), now: () => now - 7_200_000 }).mint(
      'jdoe',
      'PERSONAL',
      3_600_000,
    );
    await expect(as('/aspects', `Bearer ${expired.token}`)).rejects.toThrow(UnauthorizedError);
    const foreign = await new TokenService({ signingKey: 'x'.repeat(32), now: () => now }).mint('jdoe', 'PERSONAL', 1);
    await expect(as('/aspects', `Bearer ${foreign.token}`)).rejects.toThrow(UnauthorizedError);
  });

  it('keeps health, metrics, docs, /config and the schema registry open, as anonymous without credentials', async () => {
    const { as } = authenticator(true);
    for (const path of [
      '/health',
      '/metrics',
      '/config',
      '/schema-registry/api/subjects',
      '/restli/docs',
      '/openapi/v3/api-docs',
      '/openapi/swagger-ui/index.html',
    ]) {
      expect(await as(path)).toBe(anonymous);
      expect(await as(path, 'Bearer junk')).toBe(anonymous);
    }
    await expect(as('/configuration')).rejects.toThrow(UnauthorizedError);
    await expect(as('/healthy')).rejects.toThrow(UnauthorizedError);
  });

  it('with authentication off, lets a request without valid credentials through as anonymous', async () => {
    const { as, refused } = authenticator(false);
    expect(await as('/aspects')).toBe(anonymous);
    expect(await as('/aspects', 'Bearer junk')).toBe(anonymous);
    expect(refused).toEqual([]);
  });
});
