import { credentialsOf } from './credentials';

describe('credentialsOf', () => {
  it('given a bearer token, either capitalisation, then the token', () => {
    expect(credentialsOf('Bearer eyJ.a.b')).toEqual({ kind: 'token', token: 'eyJ.a.b' });
    expect(credentialsOf('bearer invalid-token')).toEqual({ kind: 'token', token: 'invalid-token' });
    expect(credentialsOf('  Bearer   eyJ.a.b  ')).toEqual({ kind: 'token', token: 'eyJ.a.b' });
  });

  it('given the system client as DataHub writes it (not base64), then the pair; the secret may hold colons', () => {
    expect(credentialsOf('Basic __datahub_system:JohnSnowKnowsNothing')).toEqual({
      kind: 'system',
      clientId: '__datahub_system',
      secret: 'JohnSnowKnowsNothing',
    });
    expect(credentialsOf('Basic client:a:b')).toEqual({ kind: 'system', clientId: 'client', secret: 'a:b' });
  });

  it.each([
    [undefined, 'missing'],
    ['', 'missing'],
    ['Bearer', 'empty bearer token'],
    ['Bearer ', 'empty bearer token'],
    ['Basic dXNlcjpwYXNz', 'malformed system client credentials'],
    ['Basic :secret', 'malformed system client credentials'],
    ['Basic client:', 'malformed system client credentials'],
    ['InvalidPrefix token', 'unknown scheme'],
    ['BEARER token', 'unknown scheme'],
  ])('given %j, then no credentials: %s', (header, problem) => {
    expect(credentialsOf(header)).toEqual({ problem });
  });
});
