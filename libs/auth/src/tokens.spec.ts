import { SignJWT } from 'jose';
import { ACCESS_TOKEN_DURATIONS, TokenError, TokenService } from './tokens';

const signingKey = 'a-signing-key-of-at-least-32-bytes!!';
const start = Date.UTC(2026, 10, 24);

function service(options: { key?: string; issuer?: string; at?: () => number } = {}) {
  return new TokenService({
    signingKey: options.key ?? signingKey,
    issuer: options.issuer,
    now: options.at ?? (() => start),
  });
}

/** A token signed with the service's key but claims of the test's choosing. */
function forged(payload: Record<string, unknown>, alg = 'HS256', key = signingKey): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg }).sign(new TextEncoder().encode(key));
}

const valid = {
  actorType: 'USER',
  actorId: 'jdoe',
  sub: 'jdoe',
  type: 'PERSONAL',
  version: '2',
  jti: 'j1',
  iss: 'datahub-metadata-service',
};

describe('TokenService', () => {
  it('given a personal token, then it verifies with DataHub’s claims, version 2, and its expiry', async () => {
    const { token, claims } = await service().mint('jdoe', 'PERSONAL', ACCESS_TOKEN_DURATIONS.ONE_HOUR);
    expect(claims).toEqual({
      actorType: 'USER',
      actorId: 'jdoe',
      sub: 'jdoe',
      type: 'PERSONAL',
      version: '2',
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown,
      iss: 'datahub-metadata-service',
      exp: start / 1000 + 3600,
    });
    expect(await service().verify(token)).toEqual(claims);
    expect(token.split('.')).toHaveLength(3);
  });

  it('given a session token, then version 1; given no expiry, then no exp claim', async () => {
    expect((await service().mint('jdoe', 'SESSION', 86_400_000)).claims.version).toBe('1');
    const { token, claims } = await service().mint('jdoe', 'PERSONAL', ACCESS_TOKEN_DURATIONS.NO_EXPIRY);
    expect(claims).not.toHaveProperty('exp');
    expect(await service({ at: () => start + 100 * 365 * 86_400_000 }).verify(token)).toEqual(claims);
  });

  it('given a token past its expiry, then refused as expired', async () => {
    const { token } = await service().mint('jdoe', 'PERSONAL', ACCESS_TOKEN_DURATIONS.ONE_HOUR);
    await expect(service({ at: () => start + 3_600_001 }).verify(token)).rejects.toThrow('Token has expired');
  });

  it('given a token of another key, issuer or algorithm, or tampered with, then refused', async () => {
    const { token } = await service().mint('jdoe', 'PERSONAL', undefined);
    await expect(service({ key: 'another-signing-key-of-32-bytes-or-more' }).verify(token)).rejects.toThrow(TokenError);
    await expect(service({ issuer: 'someone-else' }).verify(token)).rejects.toThrow(TokenError);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const other = Buffer.from(JSON.stringify({ ...valid, actorId: 'datahub', sub: 'datahub' })).toString('base64url');
    await expect(service().verify(`${header}.${other}.${signature}`)).rejects.toThrow(TokenError);
    const none = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    await expect(service().verify(`${none}.${payload}.`)).rejects.toThrow(TokenError);
    await expect(service().verify(await forged(valid, 'HS512'))).rejects.toThrow(TokenError);
    for (const junk of ['', 'invalid-token', 'invalid.jwt.token', 'a.b.c.d']) {
      await expect(service().verify(junk)).rejects.toThrow(TokenError);
    }
  });

  it.each([
    ['no actor', { ...valid, actorId: undefined }],
    ['a subject that is not the actor', { ...valid, sub: 'datahub' }],
    ['another actor type', { ...valid, actorType: 'SERVICE' }],
    ['an unknown type', { ...valid, type: 'MASTER' }],
    ['a numeric version', { ...valid, version: 2 }],
    ['a session stored as version 2', { ...valid, type: 'SESSION', version: '2' }],
    ['no id', { ...valid, jti: undefined }],
  ])('given a correctly signed token with %s, then refused', async (_case, payload) => {
    await expect(service().verify(await forged(payload))).rejects.toThrow(TokenError);
  });

  it('given a signing key shorter than 32 bytes, then it refuses to start', () => {
    expect(() => service({ key: 'short' })).toThrow('The token signing key must be at least 32 bytes long');
  });
});
