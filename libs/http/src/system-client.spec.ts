import { UnauthorizedError } from '@strata/model';
import { systemClientAuthenticator } from './system-client';

const client = { id: '__datahub_system', secret: 'a-system-client-secret' };
const system = 'urn:li:corpuser:__datahub_system';
const authenticate = systemClientAuthenticator(client, system);
const request = (path: string, headers: Record<string, string> = {}) => ({
  method: 'GET',
  path,
  open: false,
  header: (name: string) => headers[name.toLowerCase()],
});

describe('systemClientAuthenticator', () => {
  it('serves the system client, as the actor the gateway names or as itself, from the address it names', async () => {
    const authorization = 'Basic __datahub_system:a-system-client-secret';
    expect(await authenticate(request('/aspects', { authorization }))).toEqual({ actor: system });
    expect(
      await authenticate(
        request('/aspects', {
          authorization,
          'x-strata-actor': 'urn:li:corpuser:jdoe',
          'x-strata-source-ip': '10.1.2.3',
        }),
      ),
    ).toEqual({ actor: 'urn:li:corpuser:jdoe', sourceIp: '10.1.2.3' });
    expect(await authenticate(request('/aspects', { authorization, 'x-strata-actor': 'not a user' }))).toEqual({
      actor: system,
    });
  });

  it.each([undefined, 'Bearer eyJ.a.b', 'Basic __datahub_system:wrong', 'Basic other:a-system-client-secret'])(
    'refuses %s with 401',
    async (authorization) => {
      const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
      await expect(authenticate(request('/aspects', headers))).rejects.toThrow(UnauthorizedError);
    },
  );

  it('keeps health and metrics open, and the service table to the system client', async () => {
    for (const path of ['/health', '/metrics']) expect(await authenticate(request(path))).toBe(system);
    await expect(authenticate(request('/internal/service'))).rejects.toThrow(UnauthorizedError);
  });
});
